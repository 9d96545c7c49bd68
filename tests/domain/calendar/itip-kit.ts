import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort } from '../../helpers/ports.js';
import { tempDir } from '../../helpers/temp.js';
import { createMailbox, receiveMessage, type Verdict } from '../../../domain/email/index.js';
import { DATABASE_URL, onPostgres, testServer, type TestServer } from '../../helpers/harness.js';
import { ownerOf, person, type Person } from '../../helpers/people.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { relayConfig } from '../../mail/kit.js';
import { startSink, type Sink } from '../../mail/sink.js';
import { mime } from '../email/kit.js';
import { setEmail, setSponsor, setZone } from './kit.js';
import { join } from 'node:path';
import type { Clock } from '../../../domain/core/deps.js';

/*
 * The real components the invitation and feed tests check against: Debian's python3 with python3-icalendar (parses
 * every iTIP and feed output) and radicale (a CalDAV server on a loopback port, a temp storage folder, no auth).
 * Debian's interpreter, not one a version manager put first on PATH: the packages are installed for it.
 */

export const PYTHON = '/usr/bin/python3';

/** Whether Debian's python3 can import `module` (the test skips saying so when not). */
export function pyHas(module: string): boolean {
  const r = spawnSync(PYTHON, ['-c', `import ${module}`], { encoding: 'utf8' });
  return r.status === 0;
}

/** Run a python script with `input` on stdin; its stdout parsed as JSON. Throws with stderr on failure. */
export function py<T = unknown>(script: string, input = ''): T {
  const r = spawnSync(PYTHON, ['-c', script], { input, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** What python3-icalendar reads in a VCALENDAR: METHOD, and per VEVENT the fields the tests compare. */
export interface PyEvent {
  uid: string;
  sequence: number;
  status: string | null;
  summary: string | null;
  dtstart: string;
  dtstartTz: string | null;
  dtend: string | null;
  recurrenceId: string | null;
  rrule: string | null;
  exdates: string[];
  organizer: string | null;
  attendees: { email: string; partstat: string | null; role: string | null; rsvp: string | null }[];
  klass: string | null;
}

const PARSE = String.raw`
import sys, json, icalendar, datetime
cal = icalendar.Calendar.from_ical(sys.stdin.read())
def iso(v):
    d = v.dt
    if isinstance(d, datetime.datetime):
        return d.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ') if d.tzinfo else d.isoformat()
    return d.isoformat()
def tzname(v):
    d = v.dt
    return str(getattr(d, 'tzinfo', None) and (getattr(d.tzinfo, 'zone', None) or d.tzinfo)) if isinstance(d, datetime.datetime) and d.tzinfo else None
out = {'method': str(cal.get('METHOD')) if cal.get('METHOD') else None, 'zones': [str(z['TZID']) for z in cal.walk('VTIMEZONE')], 'events': []}
for e in cal.walk('VEVENT'):
    ex = e.get('EXDATE')
    exs = [] if ex is None else (ex if isinstance(ex, list) else [ex])
    atts = e.get('ATTENDEE')
    atts = [] if atts is None else (atts if isinstance(atts, list) else [atts])
    out['events'].append({
        'uid': str(e['UID']), 'sequence': int(e.get('SEQUENCE', 0)), 'status': str(e['STATUS']) if e.get('STATUS') else None,
        'summary': str(e['SUMMARY']) if e.get('SUMMARY') else None,
        'dtstart': iso(e['DTSTART']), 'dtstartTz': tzname(e['DTSTART']), 'dtend': iso(e['DTEND']) if e.get('DTEND') else None,
        'recurrenceId': iso(e['RECURRENCE-ID']) if e.get('RECURRENCE-ID') else None,
        'rrule': e['RRULE'].to_ical().decode() if e.get('RRULE') else None,
        'exdates': [iso(d) for x in exs for d in x.dts],
        'organizer': str(e['ORGANIZER']) if e.get('ORGANIZER') else None,
        'attendees': [{'email': str(a), 'partstat': a.params.get('PARTSTAT'), 'role': a.params.get('ROLE'), 'rsvp': a.params.get('RSVP')} for a in atts],
        'klass': str(e['CLASS']) if e.get('CLASS') else None,
    })
print(json.dumps(out))
`;

/** python3-icalendar's reading of iCalendar text (it raises on text it cannot parse). */
export function pyParse(ics: string): { method: string | null; zones: string[]; events: PyEvent[] } {
  return py(PARSE, ics);
}

const EXPAND = String.raw`
import sys, json, re, datetime, icalendar
from dateutil.rrule import rrulestr
args = json.loads(sys.argv[1])
cal = icalendar.Calendar.from_ical(sys.stdin.read())
lo = datetime.datetime.fromisoformat(args['from'].replace('Z', '+00:00'))
hi = datetime.datetime.fromisoformat(args['to'].replace('Z', '+00:00'))
utc = datetime.timezone.utc
out = []
for e in cal.walk('VEVENT'):
    start = e['DTSTART'].dt
    tz = start.tzinfo
    # Expand in wall-clock time (pytz zones carry a fixed offset through dateutil's arithmetic), then place each.
    place = (lambda n: tz.localize(n)) if hasattr(tz, 'localize') else (lambda n: n.replace(tzinfo=tz))
    wall = lambda d: d.astimezone(tz).replace(tzinfo=None)
    rule = e['RRULE'].to_ical().decode() if e.get('RRULE') else None
    if rule:
        m = re.search(r'UNTIL=(\d{8}T\d{6})Z', rule)
        if m:
            until = wall(datetime.datetime.strptime(m.group(1), '%Y%m%dT%H%M%S').replace(tzinfo=utc))
            rule = rule.replace(m.group(0), 'UNTIL=' + until.strftime('%Y%m%dT%H%M%S'))
        rs = rrulestr(rule, dtstart=wall(start), forceset=True)
        ex = e.get('EXDATE')
        for x in ([] if ex is None else (ex if isinstance(ex, list) else [ex])):
            for d in x.dts: rs.exdate(wall(d.dt))
        times = [place(n) for n in rs.between(wall(lo) - datetime.timedelta(days=1), wall(hi) + datetime.timedelta(days=1), inc=True)]
        times = [t for t in times if lo <= t < hi]
    else:
        times = [start] if lo <= start < hi else []
    out += [t.astimezone(utc).strftime('%Y-%m-%dT%H:%M:%SZ') for t in times]
print(json.dumps(sorted(out)))
`;

/** The UTC instants python3-icalendar + dateutil expand the text's events to in [from, to]. */
export function pyExpand(ics: string, from: string, to: string): string[] {
  const r = spawnSync(PYTHON, ['-c', EXPAND, JSON.stringify({ from, to })], { input: ics, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

/** A radicale server on a loopback port with a temp storage folder, no auth (any user and password pass). */
export interface Radicale {
  /** The base URL with credentials `u:x` (auth none takes any). */
  url: string;
  folder: string;
  stop(): Promise<void>;
}

export async function startRadicale(): Promise<Radicale> {
  const port = await freePort();
  const folder = tempDir('wops-radicale-');
  const args = ['-m', 'radicale', '--server-hosts', `127.0.0.1:${port}`, '--storage-filesystem-folder', folder, '--auth-type', 'none'];
  const child: ChildProcess = spawn(PYTHON, [...args, '--logging-level', 'warning'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  // Bounded wait for the port to answer (at most 10 s).
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`radicale exited: ${err}`);
    try {
      await fetch(`${url}/`, { headers: auth });
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
    if (i === 99) throw new Error(`radicale did not start: ${err}`);
  }
  return {
    url,
    folder,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export const auth = { authorization: `Basic ${Buffer.from('u:x').toString('base64')}` };

/** A CalDAV request to radicale; the status and body. */
export async function dav(url: string, method: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { method, body, headers: { ...auth, ...headers } });
  return { status: res.status, body: await res.text() };
}

/** calendar-query REPORT: the hrefs of the collection's VEVENTs with an occurrence in [from, to) (radicale's own expansion). */
export async function davTimeRange(collection: string, from: string, to: string): Promise<string[]> {
  const fmt = (s: string) => s.replace(/[-:]/g, '').replace(/\.\d+/, '');
  const body =
    `<?xml version="1.0" encoding="utf-8"?><C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">` +
    `<D:prop><D:getetag/></D:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">` +
    `<C:time-range start="${fmt(from)}" end="${fmt(to)}"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`;
  const r = await dav(collection, 'REPORT', body, { depth: '1', 'content-type': 'application/xml' });
  if (r.status !== 207) throw new Error(`REPORT answered ${r.status}: ${r.body}`);
  return [...r.body.matchAll(/<href>([^<]+)<\/href>/g)].map((m) => m[1]);
}

const RADICALE_EXPAND = String.raw`
import sys, json, datetime, vobject
from radicale.item import filter as rf
args = json.loads(sys.argv[1])
lo = datetime.datetime.fromisoformat(args['from'].replace('Z', '+00:00'))
hi = datetime.datetime.fromisoformat(args['to'].replace('Z', '+00:00'))
item = vobject.readOne(sys.stdin.read())
out = []
def range_fn(start, end, is_recurrence):
    if start < hi and end > lo: out.append(start.astimezone(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ'))
    return start >= hi
rf.visit_time_ranges(item, 'VEVENT', range_fn, lambda start: False)
print(json.dumps(sorted(set(out))))
`;

/**
 * The occurrences radicale's own recurrence code (radicale.item.filter.visit_time_ranges, what answers its
 * time-range queries) finds in iCalendar text it stored. radicale 3.1 has no CalDAV `expand`, so the tests ask it
 * through the server for the text and its filter, and through its module for the instants.
 */
export function radicaleExpand(ics: string, from: string, to: string): string[] {
  const r = spawnSync(PYTHON, ['-c', RADICALE_EXPAND, JSON.stringify({ from, to })], { input: ics, encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`python3 failed (${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout) as string[];
}

// ---------------------------------------------------------------------------------------------------------------
// The invitations world: the calendar family, a relay sink (a real smtp-server on loopback), the real pg-boss worker
// (on a database of the world's own) and a mailbox per member who sends: ann@ (the owner, with the agent's seat in
// it) and bea@ (a second human). Members' work addresses are their mailboxes, so mail to them is filed here.

/** The inbound hook, until domain/calendar/index.ts contributes it (then nothing extra). */
export interface ItipWorld {
  s: TestServer;
  sink: Sink;
  /** The org's creator, Europe/Berlin, ann@<domain>: owner of that mailbox. */
  ann: Person;
  /** A second human, America/New_York, bea@<domain>. */
  bea: Person;
  /** An agent sponsored by ann, with the agent's seat in ann@. */
  agent: Person;
  domain: string;
  annAddress: string;
  beaAddress: string;
  annMailbox: string;
  close(): Promise<void>;
}

let worlds = 0;

export async function itipWorld(opts: { workers?: boolean; clock?: Clock } = {}): Promise<ItipWorld> {
  const sink = await startSink();
  const workers = opts.workers !== false;
  const fresh = workers && onPostgres ? await freshDatabase(DATABASE_URL!, 'wops_itip') : undefined;
  const s = await testServer({
    ...(workers ? (fresh ? { databaseUrl: fresh.url } : { inMemory: true }) : {}),
    mail: { ...relayConfig(sink.url, { timeoutMs: 5000 }), outboxDir: join(tempDir('wops-itip-outbox-'), 'outbox') },
    config: { emailSending: { reviewTtlMs: 7 * 24 * 3600_000, hourlyExternalCap: 50, retryDelaySeconds: 1, retryWindowMs: 24 * 3600_000 } },
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  if (workers) await s.runtime.deps.jobs.startWorkers({ pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 });
  const ann = await ownerOf(s);
  const bea = await person(s, 'Bea Two', { tier: 'member' });
  const agent = await person(s, 'Cal Agent', { tier: 'agent' });
  const domain = `acme-${Date.now().toString(36)}${++worlds}.example`;
  const annAddress = `ann@${domain}`;
  const beaAddress = `bea@${domain}`;
  await setZone(s, ann, 'Europe/Berlin');
  await setZone(s, bea, 'America/New_York');
  await setSponsor(s, agent, ann);
  await setEmail(s, ann, annAddress);
  await setEmail(s, bea, beaAddress);
  const annMailbox = await s.runtime.db.tx(async (q) => {
    const a = await createMailbox(q, s.org.orgId, {
      address: annAddress,
      displayName: 'Ann Owner',
      undoSeconds: workers ? 1 : 300,
      members: [
        { principalId: ann.id, role: 'owner' },
        { principalId: agent.id, role: 'agent' },
      ],
    });
    await createMailbox(q, s.org.orgId, {
      address: beaAddress,
      displayName: 'Bea Two',
      undoSeconds: workers ? 1 : 300,
      members: [{ principalId: bea.id, role: 'owner' }],
    });
    return a.mailboxId;
  });
  const close = async () => {
    await s.close();
    await sink.close();
    await fresh?.drop();
  };
  return { s, sink, ann, bea, agent, domain, annAddress, beaAddress, annMailbox, close };
}

/** Mail from outside with a text/calendar alternative, received as the SMTP listener hands it over. */
export async function arriveIcs(
  w: ItipWorld,
  opts: { from: string; to: string; method: string; ics: string; dmarc?: Verdict; subject?: string },
): Promise<{ messageIds: string[] }> {
  const raw = await mime({
    from: opts.from,
    to: opts.to,
    subject: opts.subject ?? 'Invitation',
    text: 'See the calendar part.',
    alternatives: [{ contentType: `text/calendar; charset=utf-8; method=${opts.method}`, content: opts.ics }],
  });
  const got = await receiveMessage(w.s.runtime.deps, {
    orgId: w.s.org.orgId,
    raw,
    envelope: { from: opts.from, to: [opts.to] },
    auth: opts.dmarc ? { spf: opts.dmarc, dkim: opts.dmarc, dmarc: opts.dmarc } : undefined,
  });
  return { messageIds: got.messages.map((m) => m.messageId) };
}

/** The calendar parts of the mail the relay sink got for `to` (each with its METHOD and its iCalendar text). */
export async function sinkCalendars(sink: Sink, to: string): Promise<{ method: string | null; ics: string; contentType: string; raw: string }[]> {
  const { simpleParser } = await import('mailparser');
  const out = [];
  for (const r of sink.received.filter((x) => x.to.map((t) => t.toLowerCase()).includes(to.toLowerCase()))) {
    const mail = await simpleParser(r.raw);
    const type = (mail.headers.get('content-type') as { value?: string } | undefined)?.value ?? '';
    for (const a of mail.attachments.filter((x) => x.contentType === 'text/calendar')) {
      const params = (a.headers.get('content-type') as { params?: Record<string, string> } | undefined)?.params ?? {};
      out.push({ method: params.method ?? null, ics: a.content.toString('utf8'), contentType: type, raw: r.raw.toString('utf8') });
    }
  }
  return out;
}
