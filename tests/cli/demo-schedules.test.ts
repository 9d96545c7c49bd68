import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo, storyEnd } from '../../cli/demo.js';
import { demoPayDates } from '../../cli/demo-story.js';
import { createRuntime, type Runtime } from '../../domain/runtime.js';
import { findOrgBySlug } from '../../domain/org/service.js';
import { DATABASE_URL } from '../helpers/harness.js';
import { freshDatabase } from '../multiprocess/harness.js';

/*
 * Without the PAYG schedule of today's pay runs (the ATO's 2026-27 Schedule 1 is not shipped: README "The books"),
 * the demo company trades up to the last day the loaded schedules cover, and says so; with no covering day at all
 * it refuses before it creates anything, naming what to load, rather than stopping half-seeded.
 * Its own database: the shared test helpers load a stand-in schedule that this test must not see.
 */
let runtime: Runtime;
let drop: (() => Promise<void>) | undefined;
beforeAll(async () => {
  const own = DATABASE_URL ? await freshDatabase(DATABASE_URL, 'wops_demo_refusal') : undefined;
  drop = own?.drop;
  runtime = await createRuntime(own ? { databaseUrl: own.url, poolSize: 4 } : { inMemory: true });
});
afterAll(async () => {
  await runtime?.close();
  await drop?.();
});

describe('npm run cli -- demo without the schedule of its pay dates', () => {
  it('trades up to the last day the loaded schedules cover, saying so, with every pay run under a real schedule', async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect(demoPayDates(today).some((d) => d >= '2026-07-01')).toBe(true);
    const { end, notice } = await storyEnd(runtime, today);
    expect(end).toBe('2026-06-30');
    expect(notice).toMatch(/^no PAYG schedule loaded for payments on \d{4}-\d\d-\d\d: load the ATO's Schedule 1 for \d{4}-\d\d with npm run cli -- payg-import <file>.*The demo company trades up to 2026-06-30/);
    const demo = await seedDemo(runtime, { slug: 'demo-anchored' });
    expect(demo.summary[0]).toBe(`Note: ${notice}.`);
    const runs = await runtime.db.query<{ pay_date: string; payg_schedule: string | null }>(
      `SELECT pay_date::text AS pay_date, payg_schedule FROM books_pay_runs WHERE org_id = $1 ORDER BY pay_date`,
      [demo.orgId],
    );
    expect(runs.length).toBeGreaterThanOrEqual(4);
    for (const r of runs) {
      expect(r.pay_date <= '2026-06-30').toBe(true);
      expect(r.payg_schedule).toMatch(/2024-25/);
    }
  });

  it('with no day covered at all, refuses before seeding anything, naming the year to load and the command', async () => {
    await expect(storyEnd(runtime, '2024-03-15')).rejects.toThrow(
      /payroll needs a PAYG schedule .*no PAYG schedule loaded for payments on \d{4}-\d\d-\d\d: load the ATO's Schedule 1 for \d{4}-\d\d with npm run cli -- payg-import <file>.*Nothing was seeded/,
    );
    expect(await findOrgBySlug(runtime.db, 'demo-refused')).toBeUndefined();
  });
});
