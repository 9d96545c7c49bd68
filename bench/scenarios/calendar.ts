import { createOrgs, rpc } from '../fixture.js';
import { latencies } from '../measure.js';
import { latencyRow } from '../report.js';
import type { BenchRun } from '../steps.js';
import { seedMembers } from './people.js';

/*
 * The calendar targets (docs/families/calendar.md, performance), on PostgreSQL: calendar.list of a month across 50
 * calendars under 50 ms p95, and calendar.findATime for 20 attendees over 60 days under 200 ms p95. 50 members in
 * five zones each hold a calendar with 5 weekly series (stand-ups, one-to-ones) and 3 single meetings a working day
 * over 4 months, each with 3 colleagues of the same office (zone) invited, inserted in bulk with the columns
 * calendar.create writes, then ANALYZE. Every call is one request at a time against the real server, as the
 * organizer's colleague reads them. findATime asks for 30 minutes with the 20 members in Berlin and London: their
 * working hours overlap 7 hours a day and their meetings are in the morning, so each answer has slots to find (20
 * people across all five zones share no working hour, and a busy day everywhere left nothing to find).
 */

const MEMBERS = 50;
const SAMPLES = Number(process.env.BENCH_CALENDAR_SAMPLES ?? 200);
const DAY_MS = 86_400_000;
const DAYS = 120;
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

/**
 * The Monday a week or more ahead (UTC): findATime offers no slot before now, so the seeded months lie ahead of the
 * clock (a fixed 2026-03-02 start left every findATime answer empty once that date had passed).
 */
function firstMonday(now: Date): string {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 7));
  d.setUTCDate(d.getUTCDate() + ((8 - d.getUTCDay()) % 7));
  return d.toISOString().slice(0, 10);
}

async function seed(run: BenchRun, orgId: string, ids: string[], first: string): Promise<{ events: number; ms: number }> {
  const started = performance.now();
  const db = run.ctx.db;
  await db.query(
    `INSERT INTO calendars (org_id, calendar_id, owner_id, created_at) SELECT $1, 'cal_b' || i, id, now() FROM unnest($2::text[]) WITH ORDINALITY AS t(id, i)`,
    [orgId, ids],
  );
  // Weekly series: BYDAY one weekday each, 30 to 60 minutes from 08:00 to 12:00 local, never ending.
  await db.query(
    `INSERT INTO calendar_events (org_id, event_id, calendar_id, organizer_id, title, start_local, end_local, time_zone, end_time_zone, start_at, end_at,
                                  rrule, ical_uid, created_by, created_at, updated_at)
     SELECT $1, 'cev_bw' || i || 'x' || k, 'cal_b' || i, id, 'Weekly ' || k, s.l, s.l + d.len, p.timezone, p.timezone,
            s.l AT TIME ZONE p.timezone, (s.l + d.len) AT TIME ZONE p.timezone,
            'FREQ=WEEKLY;BYDAY=' || (ARRAY['MO','TU','WE','TH','FR'])[k], 'cev_bw' || i || 'x' || k || '@bench', id, now(), now()
       FROM unnest($2::text[]) WITH ORDINALITY AS t(id, i)
       JOIN principals p ON p.org_id = $1 AND p.principal_id = t.id
      CROSS JOIN generate_series(1, 5) AS k
      CROSS JOIN LATERAL (SELECT ($3::date + (k - 1) + make_interval(hours => (8 + ((i + k) % 4))::int))::timestamp AS l) AS s
      CROSS JOIN LATERAL (SELECT make_interval(mins => (30 + 30 * ((i * k) % 2))::int) AS len) AS d`,
    [orgId, ids, first],
  );
  // Single meetings: 3 a working day, starting 09:00 to 12:00 local.
  await db.query(
    `INSERT INTO calendar_events (org_id, event_id, calendar_id, organizer_id, title, start_local, end_local, time_zone, end_time_zone, start_at, end_at,
                                  series_end_at, ical_uid, created_by, created_at, updated_at)
     SELECT $1, 'cev_bs' || i || 'x' || n || 'x' || k, 'cal_b' || i, id, 'Meeting ' || n || '.' || k, s.l, s.l + interval '1 hour', p.timezone, p.timezone,
            s.l AT TIME ZONE p.timezone, (s.l + interval '1 hour') AT TIME ZONE p.timezone, (s.l + interval '1 hour') AT TIME ZONE p.timezone,
            'cev_bs' || i || 'x' || n || 'x' || k || '@bench', id, now(), now()
       FROM unnest($2::text[]) WITH ORDINALITY AS t(id, i)
       JOIN principals p ON p.org_id = $1 AND p.principal_id = t.id
      CROSS JOIN generate_series(0, $4::int - 1) AS n
      CROSS JOIN generate_series(1, 3) AS k
      CROSS JOIN LATERAL (SELECT ($3::date + n + make_interval(hours => (9 + ((i * 7 + n * 3 + k * 2) % 4))::int))::timestamp AS l) AS s
      WHERE extract(isodow FROM $3::date + n) < 6`,
    [orgId, ids, first, DAYS],
  );
  // The organizer (accepted) and three colleagues of the same zone (members i and i + 5k; one in three has accepted).
  await db.query(
    `INSERT INTO calendar_attendees (org_id, event_id, attendee_key, principal_id, organizer, response_status)
     SELECT e.org_id, e.event_id, e.organizer_id, e.organizer_id, true, 'accepted' FROM calendar_events e WHERE e.org_id = $1`,
    [orgId],
  );
  await db.query(
    `INSERT INTO calendar_attendees (org_id, event_id, attendee_key, principal_id, response_status)
     SELECT e.org_id, e.event_id, m.id, m.id, CASE WHEN j = 1 THEN 'accepted' ELSE 'needsAction' END
       FROM calendar_events e
       JOIN LATERAL (SELECT array_position($2::text[], e.organizer_id) AS pos) AS o ON true
      CROSS JOIN generate_series(1, 3) AS j
      CROSS JOIN LATERAL (SELECT ($2::text[])[1 + (o.pos - 1 + 5 * (1 + (j * 3 + length(e.event_id)) % 9)) % array_length($2::text[], 1)] AS id) AS m
      WHERE e.org_id = $1 AND m.id <> e.organizer_id
     ON CONFLICT DO NOTHING`,
    [orgId, ids],
  );
  // Working hours 09:00-17:00 Monday to Friday, as profile.update writes them.
  const week = JSON.stringify(Object.fromEntries(['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [d, [{ start: '09:00', end: '17:00' }]])));
  await db.query(`INSERT INTO profiles (org_id, member_id, working_hours) SELECT $1, id, $3::jsonb FROM unnest($2::text[]) AS id`, [orgId, ids, week]);
  for (const table of ['calendars', 'calendar_events', 'calendar_attendees', 'calendar_overrides', 'profiles']) await db.query(`ANALYZE ${table}`);
  const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM calendar_events WHERE org_id = $1', [orgId])) as [{ n: number }];
  return { events: n, ms: performance.now() - started };
}

/** 17: calendar.list of a month across 50 calendars, and findATime for 20 attendees over 60 days. */
export async function calendarStep(run: BenchRun): Promise<void> {
  const { ctx } = run;
  const [org] = await createOrgs(ctx.baseUrl, ctx.db, run.adminKey, 1, `bench-${ctx.runId}-calendar`);
  const { ids } = await seedMembers(ctx.db, org, MEMBERS, () => null, `cal${ctx.runId}`);
  const first = firstMonday(new Date());
  log(`17. calendar: seeding ${MEMBERS} calendars (weekly series and 3 meetings a working day over ${DAYS} days from ${first}), then ANALYZE`);
  const seeded = await seed(run, org.orgId, ids, first);
  log(`17. calendar: ${seeded.events} events in ${(seeded.ms / 1000).toFixed(1)} s`);
  const calendarIds = ids.map((_, i) => `cal_b${i + 1}`);
  const day = (n: number) => new Date(Date.parse(`${first}T00:00:00Z`) + n * DAY_MS);
  // A month from the first Monday, a month on, two months on.
  const listOf = (i: number) => {
    const from = day([0, 30, 60][i % 3]);
    return { calendarIds, from: from.toISOString(), to: new Date(from.getTime() + 30 * DAY_MS).toISOString(), singleEvents: true, limit: 500 };
  };
  // Members 2, 5, 7, 10, … : Europe/Berlin and Europe/London (seedMembers gives member i ZONES[i % 5]).
  const europe = ids.filter((_, i) => i % 5 === 1 || i % 5 === 4);
  const findOf = (i: number) => ({
    attendees: europe.map((id) => ({ id })),
    durationMinutes: 30,
    from: day(i % 5).toISOString(),
    to: new Date(day(i % 5).getTime() + 60 * DAY_MS).toISOString(),
    respectWorkingHours: true,
  });
  for (let i = 0; i < 10; i++) {
    await rpc(ctx.baseUrl, org.key, 'calendar.list', listOf(i));
    await rpc(ctx.baseUrl, org.key, 'calendar.findATime', findOf(i));
  }
  let occurrences = 0;
  const list = await latencies(SAMPLES, async (i) => {
    const { body } = await rpc(ctx.baseUrl, org.key, 'calendar.list', listOf(i));
    if (!body.ok) throw new Error(`calendar.list: ${JSON.stringify(body).slice(0, 300)}`);
    occurrences += body.result.items.length;
  });
  let slots = 0;
  const find = await latencies(SAMPLES, async (i) => {
    const { body } = await rpc(ctx.baseUrl, org.key, 'calendar.findATime', findOf(i));
    if (!body.ok) throw new Error(`calendar.findATime: ${JSON.stringify(body).slice(0, 300)}`);
    slots += body.result.slots.length;
  });
  log(`17. calendar.list month x 50: p50 ${list.p50Ms.toFixed(1)} p95 ${list.p95Ms.toFixed(1)} ms, ${(occurrences / SAMPLES).toFixed(0)} occurrences a page`);
  log(
    `17. calendar.findATime 20 x 60 d (30 min): p50 ${find.p50Ms.toFixed(1)} p95 ${find.p95Ms.toFixed(1)} ms, ${(slots / SAMPLES).toFixed(1)} slots an answer`,
  );
  if (occurrences === 0) throw new Error('calendar.list: every page was empty; the seed is not what the bench reads');
  run.raw.calendar = { members: MEMBERS, events: seeded.events, seedMs: seeded.ms, list, find };
  run.rows.push(latencyRow('17 calendar.list, a month of 50 calendars', list, 50));
  run.rows.push(latencyRow('17 calendar.findATime, 20 attendees x 60 days', find, 200));
}
