import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../cli/demo.js';
import { demoPayDates } from '../../cli/demo-story.js';
import { createRuntime, type Runtime } from '../../domain/runtime.js';
import { findOrgBySlug } from '../../domain/org/service.js';
import { DATABASE_URL } from '../helpers/harness.js';
import { freshDatabase } from '../multiprocess/harness.js';

/*
 * Without the PAYG schedule of its pay dates (the ATO's 2026-27 Schedule 1 is not shipped: README "The books"),
 * the demo company refuses before it creates anything, naming what to load, rather than stopping half-seeded.
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
  it('refuses before seeding anything, naming the year to load and the command', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const dates = demoPayDates(today);
    expect(dates.length).toBeGreaterThanOrEqual(4);
    expect(dates.every((d) => d >= '2026-07-01')).toBe(true);
    await expect(seedDemo(runtime, { slug: 'demo-refused' })).rejects.toThrow(
      /payroll needs a PAYG schedule .*no PAYG schedule loaded for payments on \d{4}-\d\d-\d\d: load the ATO's Schedule 1 for \d{4}-\d\d with npm run cli -- payg-import <file>.*Nothing was seeded/,
    );
    expect(await findOrgBySlug(runtime.db, 'demo-refused')).toBeUndefined();
  });
});
