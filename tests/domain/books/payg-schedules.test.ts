import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { paygImportCommand, readScheduleFile } from '../../../cli/payg-import.js';
import { loadedSchedules } from '../../../domain/books/rates/index.js';
import { superGuaranteeRate } from '../../../domain/books/rates/super.js';
import { PAYG_SCALES, parseSchedule, scheduleWithholdingDollars } from '../../../domain/books/rates/payg-schedule.js';
import { ATO_2024_25 } from '../../../domain/books/rates/schedules/ato-2024-25.js';
import { ATO_2026_27 } from '../../../domain/books/rates/schedules/ato-2026-27.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { allEvents, DATABASE_URL, testServer } from '../../helpers/harness.js';
import { expectError } from '../../helpers/frames.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { one } from '../../../db/types.js';
import type { BooksServer } from './setup.js';
import { TestClock } from '../../helpers/clock.js';
import { tempDir } from '../../helpers/temp.js';
import { payrollKit } from './payroll-kit.js';

/*
 * PAYG schedules as effective-dated data: the pay date picks the schedule (30 June / 1 July boundaries through
 * the API), a date no loaded schedule covers is refused naming what to load, an operator loads the next year
 * (validated, ledgered in every org), GET /policy lists what is loaded. An import ledgers in every org of its
 * database, so on PostgreSQL this file runs on a database of its own (the suite's is shared by other files).
 */

let s: BooksServer;
let drop: (() => Promise<void>) | undefined;
let k: ReturnType<typeof payrollKit>;

beforeAll(async () => {
  const own = DATABASE_URL ? await freshDatabase(DATABASE_URL, 'wops_payg') : undefined;
  drop = own?.drop;
  const clock = new TestClock('2026-11-02');
  // Imports here change what every org of the database sees: a database of its own (PGlite's too, not the worker's).
  const base = await testServer({ clock, ...(own ? { databaseUrl: own.url } : { inMemory: true }) });
  const approver = await base.client.mint({ tier: 'approver' }, 'finance lead');
  const agent = await base.client.mint({ tier: 'agent' }, 'books agent');
  s = { ...base, clock, approver, agent };
  k = payrollKit(s);
});

afterAll(async () => {
  await s?.close();
  await drop?.();
});

/** A fortnight ending the day before `payDate`, for Jane ($78,000, scale 2, started 1 June 2024) in a clean org. */
async function fortnightPaid(payDate: string, threshold = true) {
  const d = await k.desk();
  await k.hire(d, { startDate: '2024-06-01' }, threshold);
  const end = new Date(Date.parse(`${payDate}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
  const start = new Date(Date.parse(`${end}T00:00:00Z`) - 13 * 86_400_000).toISOString().slice(0, 10);
  const res = await d.client.rpc('books.payrollDraft', { periodStart: start, periodEnd: end, payDate });
  return { d, res };
}

describe('the pay date chooses the schedule and the super rate', () => {
  it.each([
    // 2024-25 Schedule 1, 11.5% super: $78,000 for a full fortnight = a 26th, 300000 (the contract's pay, see
    // payroll-terms.test.ts); half $1,500 -> $304 -> $608; super 300000 * 11.5% = 34500.
    ['2025-06-30', 'ATO Schedule 1 2024-25 (from 2024-07-01)', 60_800, 34_500],
    // The same schedule (the ATO did not reissue it for 2025-26), super 12%: 36000.
    ['2025-07-01', 'ATO Schedule 1 2024-25 (from 2024-07-01)', 60_800, 36_000],
    ['2026-06-30', 'ATO Schedule 1 2024-25 (from 2024-07-01)', 60_800, 36_000],
    // From 1 July 2026 the shipped 2026-27 schedule: 0.32 * 1500.99 - 181.7319 = 298.58 -> $299 -> $598.
    ['2026-07-01', 'ATO Schedule 1 2026-27 (from 2026-07-01)', 59_800, 36_000],
  ])('paid %s: %s', async (payDate, name, payg, superCents) => {
    const { d, res } = await fortnightPaid(payDate);
    expect(res.status, res.raw).toBe(200);
    const run = res.body.result.payRun;
    expect(run).toMatchObject({ payDate, paygSchedule: name, paygCents: payg, superCents });
    expect(run.payslips[0]).toMatchObject({ paygSchedule: name, paygCents: payg, superCents });
    expect(res.body.result.message ?? res.raw).toContain(name);
    await k.invariants(d);
  });

  it('a pay date no loaded schedule covers is refused, naming the year to load; nothing is drafted', async () => {
    for (const [payDate, year] of [
      ['2027-07-01', '2027-28'],
      ['2027-07-03', '2027-28'],
      ['2024-06-30', '2023-24'],
    ]) {
      const { d, res } = await fortnightPaid(payDate);
      expectError(
        res,
        'CONFLICT',
        new RegExp(
          `^payDate: no PAYG schedule loaded for payments on ${payDate}: load the ATO's Schedule 1 for ${year} with npm run cli -- payg-import <file>`,
        ),
      );
      const { n } = one(await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM books_pay_runs WHERE org_id = $1', [d.orgId]));
      expect(n).toBe(0);
    }
  });

  it('a period Schedule 1 prescribes no frequency for is refused naming periodEnd', async () => {
    const d = await k.desk();
    await k.hire(d);
    const res = await d.client.rpc('books.payrollDraft', { periodStart: '2026-11-01', periodEnd: '2026-11-10', payDate: '2026-11-11' });
    expectError(res, 'BAD_REQUEST', /^periodEnd: 2026-11-01 to 2026-11-10 is 10 days; PAYG withholding \(ATO Schedule 1\)/);
  });

  it('the super guarantee rate by date: 11% 2023-24, 11.5% 2024-25, 12% from 1 July 2025', () => {
    expect([
      superGuaranteeRate('2024-06-30'),
      superGuaranteeRate('2024-07-01'),
      superGuaranteeRate('2025-06-30'),
      superGuaranteeRate('2025-07-01'),
      superGuaranteeRate('2027-07-01'),
    ]).toEqual([1_100, 1_150, 1_150, 1_200, 1_200]);
  });
});

/** A 2027-28 file as the operator gives it. Its coefficients are 2024-25's (the ATO has not published 2027-28). */
const SCALES = ATO_2024_25.scales;
const file2027 = (over: Record<string, unknown> = {}) => ({
  label: '2027-28',
  from: '2027-07-01',
  to: '2028-06-30',
  source: 'https://test-fixture.invalid/2027-28-stand-in',
  published: '2027-06-15',
  scales: SCALES,
  // Worked by hand on these coefficients: scale 2, x = 1000.99: 0.3227 * 1000.99 - 180.0385 = 142.98 -> $143;
  // scale 1, x = 1000.99: 0.32 * 1000.99 - 65.7202 = 254.60 -> $255; scale 2, x = 360.99 < 361: nil (the old shape,
  // read as weekly); fortnightly $2,000: half $1,000 -> $143 * 2; scale 4 foreign: 45% of $999 = 449.55 -> $449.
  samples: [
    { scale: '2', weeklyEarnings: 1000, withheld: 143 },
    { scale: '1', frequency: 'WEEKLY', grossCents: 100_000, withheld: 255 },
    { scale: '2', weeklyEarnings: 360, withheld: 0 },
    { scale: '2', frequency: 'FORTNIGHTLY', grossCents: 200_000, withheld: 286 },
    { scale: '4', frequency: 'MONTHLY', grossCents: 99_999, withheld: 449, residency: 'FOREIGN' },
  ],
  ...over,
});

async function importFile(content: unknown, from?: string) {
  const dir = tempDir('payg-');
  const file = path.join(dir, 'schedule.json');
  await writeFile(file, typeof content === 'string' ? content : JSON.stringify(content));
  return paygImportCommand(s.runtime.db, await readScheduleFile(file), from);
}

describe('payg-import (an operator loads the next year without a release)', () => {
  it.each([
    ['not JSON', '{ nope', /^schedule\.json: not JSON/],
    [
      'a missing scale',
      file2027({ scales: { ...SCALES, '3': undefined } }),
      /^schedule\.json: scales\.3: missing; every coefficient scale \(1, 2, 3, 5, 6\) needs its rows/,
    ],
    [
      'no scale 4 rates',
      file2027({ scales: { ...SCALES, '4': undefined } }),
      /^schedule\.json: scales\.4: missing; scale 4 \(no TFN\) needs \{"resident": rate, "foreign": rate\}/,
    ],
    ['a scale 4 rate of 100%', file2027({ scales: { ...SCALES, '4': { resident: 1, foreign: 0.45 } } }), /scales\.4\.resident: must be a rate 0 < rate < 1/],
    [
      'a last row with a bound',
      file2027({
        scales: {
          ...SCALES,
          '1': [
            [150, 0.16, 0.16],
            [371, 0.2117, 7.755],
          ],
        },
      }),
      /scales\.1\[1\]: the last row must be open/,
    ],
    [
      'bounds out of order',
      file2027({
        scales: {
          ...SCALES,
          '2': [
            [361, 0, 0],
            [300, 0.16, 57.8462],
            [null, 0.47, 650.6154],
          ],
        },
      }),
      /scales\.2\[1\]: lessThan 300 must be above the row before \(361\)/,
    ],
    [
      'a rate of 100% or more',
      file2027({
        scales: {
          ...SCALES,
          '2': [
            [361, 0, 0],
            [null, 1.2, 57.8462],
          ],
        },
      }),
      /scales\.2\[1\]: a must be a rate 0 <= a < 1/,
    ],
    [
      'withholding that falls as earnings rise',
      file2027({
        scales: {
          ...SCALES,
          '2': [
            [361, 0.2, 0],
            [null, 0.47, 650.6154],
          ],
        },
      }),
      /scales\.2: withholding falls from \$72 to \$0 at \$361 a week/,
    ],
    [
      'a sample the coefficients do not reproduce',
      file2027({ samples: [{ scale: '2', weeklyEarnings: 1000, withheld: 144 }] }),
      /samples\.0: scale 2 on a WEEKLY pay of \$1,000\.00 computes \$143, the ATO's sample says \$144/,
    ],
    [
      'a monthly sample that does not reproduce',
      file2027({ samples: [{ scale: '5', frequency: 'MONTHLY', grossCents: 399_533, withheld: 1 }] }),
      /samples\.0: scale 5 on a MONTHLY pay of \$3,995\.33 computes \$\d+, the ATO's sample says \$1;/,
    ],
    [
      'a sample of an unknown frequency',
      file2027({ samples: [{ scale: '2', frequency: 'DAILY', grossCents: 100, withheld: 0 }] }),
      /samples\.0\.frequency: must be one of WEEKLY, FORTNIGHTLY, MONTHLY/,
    ],
    ['an open-ended or reversed range', file2027({ to: '2027-06-30' }), /to: 2027-06-30 is before from 2027-07-01/],
    ['no source address', file2027({ source: 'the ATO' }), /source: must be the https address/],
  ])('refuses %s, naming the problem; nothing is stored or ledgered', async (_what, content, message) => {
    const before = (await loadedSchedules(s.runtime.db)).length;
    await expect(importFile(content)).rejects.toThrow(message);
    expect((await loadedSchedules(s.runtime.db)).length).toBe(before);
    expect((await allEvents(s.client)).filter((e) => e.kind === 'books.payg.load_schedule')).toEqual([]);
  });

  it('stores a valid file for every org, ledgers it in each as an operator act, and pay runs on its dates use it', async () => {
    const d = await k.desk();
    await k.hire(d, { startDate: '2027-06-01' });
    const refused = await d.client.rpc('books.payrollDraft', { periodStart: '2027-06-19', periodEnd: '2027-07-02', payDate: '2027-07-03' });
    expectError(refused, 'CONFLICT', /no PAYG schedule loaded for payments on 2027-07-03: load the ATO's Schedule 1 for 2027-28/);

    const line = await importFile(file2027());
    expect(line).toMatch(
      /^Loaded ATO Schedule 1 2027-28 \(from 2027-07-01\): payments 2027-07-01 to 2028-06-30, scales 1, 2, 3, 4, 5, 6, 5 sample rows reproduced; source https:\/\/test-fixture\.invalid\/2027-28-stand-in \(published 2027-06-15\); ledgered in \d+ orgs$/,
    );

    const run = await d.client.ok('books.payrollDraft', { periodStart: '2027-06-19', periodEnd: '2027-07-02', payDate: '2027-07-03' });
    expect(run.payRun).toMatchObject({ paygSchedule: 'ATO Schedule 1 2027-28 (from 2027-07-01)', paygScales: ['2'], paygCents: 60_800 });
    for (const [client, orgId] of [
      [d.client, d.orgId],
      [s.client, s.org.orgId],
    ] as const) {
      const loaded = (await allEvents(client)).filter((e) => e.kind === 'books.payg.load_schedule');
      expect(loaded).toHaveLength(1);
      expect(loaded[0]).toMatchObject({
        actor: '',
        payload: { name: 'ATO Schedule 1 2027-28 (from 2027-07-01)', from: '2027-07-01', to: '2028-06-30', samples: 5, replaced: false, by: 'system' },
      });
      expect((await verifyOrgChain(s.runtime.db, orgId)).ok).toBe(true);
    }

    // A corrected file with the same start replaces it (ledgered again, saying so).
    expect(await importFile(file2027({ published: '2027-06-20' }))).toMatch(/^Replaced ATO Schedule 1 2027-28/);
    const again = (await allEvents(s.client)).filter((e) => e.kind === 'books.payg.load_schedule');
    expect(again.map((e) => e.payload.replaced)).toEqual([false, true]);
  });

  it('reads the CSV form: the same schedule, checked the same way', async () => {
    const csv = (extra = '') =>
      [
        '# ATO Schedule 1 as published, one fact per line',
        'meta,label,2029-30',
        'meta,from,2029-07-01',
        'meta,to,2030-06-30',
        'meta,source,https://test-fixture.invalid/2029-30-stand-in',
        'meta,published,2029-06-15',
        ...(['1', '2', '3', '5', '6'] as const).flatMap((scale) => SCALES[scale].map(([lt, a, b]) => `coefficient,${scale},${lt ?? ''},${a},${b}`)),
        'scale4,0.47,0.45',
        // The old weekly shape, and the new one: $3,995.33 a month on scale 2 -> $511 (payg.test.ts); scale 4 foreign 45% of $87.
        'sample,2,1000,143',
        'sample,2,MONTHLY,3995.33,511',
        'sample,4,WEEKLY,87,39,FOREIGN',
        extra,
      ].join('\n');
    const dir = tempDir('payg-');
    await writeFile(path.join(dir, 'bad.csv'), csv('sample,1,1000,254'));
    await expect(readScheduleFile(path.join(dir, 'bad.csv')).then((f) => paygImportCommand(s.runtime.db, f))).rejects.toThrow(
      /^bad\.csv: samples\.3: scale 1 on a WEEKLY pay of \$1,000\.00 computes \$255, the ATO's sample says \$254/,
    );
    await writeFile(path.join(dir, 'typo.csv'), csv('coefficent,1,100,0.1,0'));
    await expect(readScheduleFile(path.join(dir, 'typo.csv'))).rejects.toThrow(/^typo\.csv: line \d+: expected meta/);
    await writeFile(path.join(dir, 'good.csv'), csv());
    expect(await paygImportCommand(s.runtime.db, await readScheduleFile(path.join(dir, 'good.csv')))).toMatch(
      /^Loaded ATO Schedule 1 2029-30 \(from 2029-07-01\): payments 2029-07-01 to 2030-06-30, scales 1, 2, 3, 4, 5, 6, 3 sample rows reproduced/,
    );
    const stored = (await loadedSchedules(s.runtime.db)).find((x) => x.label === '2029-30');
    expect(stored?.scales).toEqual(SCALES);
    expect(stored?.samples).toEqual([
      { scale: '2', frequency: 'WEEKLY', grossCents: 100_000, withheld: 143 },
      { scale: '2', frequency: 'MONTHLY', grossCents: 399_533, withheld: 511 },
      { scale: '4', frequency: 'WEEKLY', grossCents: 8_700, withheld: 39, residency: 'FOREIGN' },
    ]);
  });

  it("--from overrides the file's start date", async () => {
    expect(await importFile(file2027({ from: '2028-07-01', to: '2029-06-30', label: '2028-29' }), '2028-07-02')).toMatch(
      /^Loaded ATO Schedule 1 2028-29 \(from 2028-07-02\): payments 2028-07-02 to 2029-06-30/,
    );
  });
});

describe('the ATO sample data and GET /policy', () => {
  it('every loaded schedule reproduces each of its sample rows, and passes the import checks', async () => {
    for (const schedule of await loadedSchedules(s.runtime.db)) {
      expect(parseSchedule(JSON.parse(JSON.stringify(schedule)))).toEqual(schedule);
      for (const sample of schedule.samples)
        expect(scheduleWithholdingDollars(schedule, sample), `${schedule.label} ${JSON.stringify(sample)}`).toBe(sample.withheld);
    }
  });

  it.each([
    [ATO_2024_25, '2024-07-01', '2026-06-30', '2024-06-16'],
    [ATO_2026_27, '2026-07-01', '2027-06-30', '2026-06-17'],
  ])("shipped %#: every scale, every frequency: payg-tax's 720 worked amounts and the 22 of scale 4 reproduce", (schedule, from, to, published) => {
    expect(schedule).toMatchObject({ from, to, published });
    const count = (scale: string, frequency: string) => schedule.samples.filter((x) => x.scale === scale && x.frequency === frequency).length;
    for (const scale of ['1', '2', '3', '5', '6']) for (const f of ['WEEKLY', 'FORTNIGHTLY', 'MONTHLY']) expect(count(scale, f), `${scale} ${f}`).toBe(48);
    expect(count('4', 'WEEKLY')).toBe(22);
    expect(schedule.samples).toHaveLength(742);
    expect(Object.keys(schedule.scales).sort()).toEqual([...PAYG_SCALES]);
    expect(schedule.samples.filter((x) => scheduleWithholdingDollars(schedule, x) !== x.withheld)).toEqual([]);
    // The JSON an operator would load passes the import checks (which reproduce every sample again).
    expect(parseSchedule(JSON.parse(JSON.stringify(schedule)))).toEqual(schedule);
  });

  it('spot rows: 2024-25 against the ATO page, 2026-27 against both sources', () => {
    // ATO page 2024-25: scale 2 row "865 | 0.1890 | 64.3365", scale 1 row "515 | 0.1890 | -0.6702".
    expect(ATO_2024_25.scales['2'][4]).toEqual([865, 0.189, 64.3365]);
    expect(ATO_2024_25.scales['1'][2]).toEqual([515, 0.189, -0.6702]);
    // 2026-27, in payg-tax and the second source alike: scale 2 "673 => [0.25, 108.2135]", scale 6 "1135 => [0.3527, 230.6135]".
    expect(ATO_2026_27.scales['2'][2]).toEqual([673, 0.25, 108.2135]);
    expect(ATO_2026_27.scales['6'][4]).toEqual([1135, 0.3527, 230.6135]);
    expect(ATO_2026_27.scales['4']).toEqual({ resident: 0.47, foreign: 0.45 });
  });

  it('lists the loaded schedules, oldest first, with their dates and sources; the super rate of today', async () => {
    const res = await s.client.get('policy');
    expect(res.status, res.raw).toBe(200);
    const list = res.body.books.paygSchedules;
    expect(list[0]).toEqual({
      name: 'ATO Schedule 1 2024-25 (from 2024-07-01)',
      year: '2024-25',
      from: '2024-07-01',
      to: '2026-06-30',
      source: ATO_2024_25.source,
      published: '2024-06-16',
      samples: 742,
    });
    expect(list[1]).toMatchObject({
      name: 'ATO Schedule 1 2026-27 (from 2026-07-01)',
      from: '2026-07-01',
      to: '2027-06-30',
      source: ATO_2026_27.source,
      samples: 742,
    });
    expect(list.map((x: any) => x.from)).toEqual([...list.map((x: any) => x.from)].sort());
    expect(res.body.books.superGuaranteeBasisPoints).toBe(1_200);
  });
});
