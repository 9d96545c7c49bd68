import { ApiError } from '../../../protocol/errors.js';
import type { Db, Queryable } from '../../../db/types.js';
import { appendEvent } from '../../../ledger/append.js';
import { financialYear } from '../payroll/model.js';
import { parseSample, parseSchedule, scheduleName, type PaygScheduleData } from './payg-schedule.js';
import { ATO_2024_25 } from './schedules/ato-2024-25.js';
import { ATO_2026_27 } from './schedules/ato-2026-27.js';

export { superGuaranteeRate } from './super.js';
export { scheduleName, type PaygScheduleData } from './payg-schedule.js';

/** The schedules shipped with the release (each checked against the sources it names, and its worked amounts). */
const SHIPPED: readonly PaygScheduleData[] = [ATO_2024_25, ATO_2026_27];

interface ScheduleRow {
  from_date: string;
  to_date: string;
  label: string;
  source: string;
  published: string;
  scales: PaygScheduleData['scales'];
  samples: unknown[];
}

/** Every loaded schedule, shipped and imported (an import with the same `from` replaces the shipped one), by `from`. */
export async function loadedSchedules(q: Queryable): Promise<PaygScheduleData[]> {
  const rows = await q.query<ScheduleRow>(
    `SELECT from_date::text AS from_date, to_date::text AS to_date, label, source, published::text AS published, scales, samples FROM books_payg_schedules`,
  );
  const byFrom = new Map<string, PaygScheduleData>(SHIPPED.map((s) => [s.from, s]));
  for (const r of rows) {
    // Files imported before samples named their frequency hold {scale, weeklyEarnings, withheld}: read as WEEKLY.
    const samples = r.samples.map((x, i) => parseSample(x, `samples.${i}`));
    byFrom.set(r.from_date, { label: r.label, from: r.from_date, to: r.to_date, source: r.source, published: r.published, scales: r.scales, samples });
  }
  return [...byFrom.values()].sort((a, b) => (a.from < b.from ? -1 : 1));
}

/**
 * The schedule for payments made on `payDate`: of those covering it, the one starting latest. None covering it
 * is refused, naming what to load: withholding is never computed with another year's coefficients.
 */
export async function paygSchedule(q: Queryable, payDate: string): Promise<PaygScheduleData> {
  return scheduleCovering(await loadedSchedules(q), payDate);
}

/** Of `all` (loadedSchedules), the one for payments on `payDate`, or the refusal naming what to load. */
function scheduleCovering(all: readonly PaygScheduleData[], payDate: string): PaygScheduleData {
  const covering = all.filter((s) => s.from <= payDate && payDate <= s.to);
  const found = covering[covering.length - 1];
  if (found) return found;
  const fy = financialYear(payDate);
  throw new ApiError(
    'CONFLICT',
    `payDate: no PAYG schedule loaded for payments on ${payDate}: load the ATO's Schedule 1 for ${fy.label} with npm run cli -- payg-import <file> (loaded: ${all.map((s) => `${s.label} ${s.from} to ${s.to}`).join('; ') || 'none'})`,
  );
}

/**
 * Load a schedule (validated by parseSchedule) for every org: stored once, and ledgered in each org's chain as
 * an operator act (actor ""), in one transaction.
 */
export async function importSchedule(
  db: Db,
  raw: unknown,
  opts: { from?: string } = {},
): Promise<{ schedule: PaygScheduleData; orgs: number; replaced: boolean }> {
  const schedule = parseSchedule(opts.from ? { ...(raw as object), from: opts.from } : raw);
  return db.tx(async (q) => {
    const [prev] = await q.query<{ n: number }>('SELECT 1 AS n FROM books_payg_schedules WHERE from_date = $1 FOR UPDATE', [schedule.from]);
    await q.query(
      `INSERT INTO books_payg_schedules (from_date, to_date, label, source, published, scales, samples) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (from_date) DO UPDATE SET to_date = EXCLUDED.to_date, label = EXCLUDED.label, source = EXCLUDED.source,
         published = EXCLUDED.published, scales = EXCLUDED.scales, samples = EXCLUDED.samples, loaded_at = now()`,
      [schedule.from, schedule.to, schedule.label, schedule.source, schedule.published, JSON.stringify(schedule.scales), JSON.stringify(schedule.samples)],
    );
    const orgs = await q.query<{ org_id: string }>('SELECT org_id FROM orgs ORDER BY created_at, org_id');
    for (const { org_id } of orgs) {
      await appendEvent(q, org_id, {
        family: 'books',
        kind: 'books.payg.load_schedule',
        entityId: `payg_${schedule.from}`,
        actor: '',
        payload: {
          name: scheduleName(schedule),
          label: schedule.label,
          from: schedule.from,
          to: schedule.to,
          source: schedule.source,
          published: schedule.published,
          samples: schedule.samples.length,
          replaced: prev !== undefined,
          by: 'system',
        },
      });
    }
    return { schedule, orgs: orgs.length, replaced: prev !== undefined };
  });
}

/** The first of `payDates` no loaded schedule covers, with the refusal a pay run on it would get; undefined if none. */
export async function firstUncoveredPayDate(q: Queryable, payDates: readonly string[]): Promise<{ payDate: string; message: string } | undefined> {
  const all = await loadedSchedules(q);
  for (const payDate of payDates) {
    try {
      scheduleCovering(all, payDate);
    } catch (err) {
      if (err instanceof ApiError) return { payDate, message: err.message };
      throw err;
    }
  }
  return undefined;
}
