import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storyEnd } from '../../cli/demo.js';
import { demoPayDates } from '../../cli/demo-story.js';
import { createRuntime, type Runtime } from '../../domain/deployed.js';
import { findOrgBySlug } from '../../domain/people/org/service.js';
import { DATABASE_URL } from '../helpers/harness.js';
import { freshDatabase } from '../multiprocess/harness.js';

/*
 * The demo company trades up to today when the loaded PAYG schedules cover every pay date of its story (2024-25
 * and 2026-27 ship: today is covered until 30 June 2027). Past the last covered day it trades up to that day and
 * says so; with no covering day at all it refuses before it creates anything, naming what to load, rather than
 * stopping half-seeded. Its own database, so no other test's imported schedule can cover a date for it.
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

describe('npm run cli -- demo and the PAYG schedules of its pay dates', () => {
  it('trades up to today while the shipped schedules cover it, with no notice', async () => {
    const today = new Date().toISOString().slice(0, 10);
    expect(demoPayDates(today).some((d) => d >= '2026-07-01')).toBe(true);
    const { end, notice } = await storyEnd(runtime, today);
    if (today <= '2027-06-30') expect({ end, notice }).toEqual({ end: today, notice: undefined });
    else expect(end < today).toBe(true);
  });

  it('past the last covered day, trades up to it and says why and what to load', async () => {
    const { end, notice } = await storyEnd(runtime, '2027-09-15');
    expect(end).toBe('2027-06-30');
    expect(notice).toMatch(
      /^no PAYG schedule loaded for payments on 2027-07-31: load the ATO's Schedule 1 for 2027-28 with npm run cli -- payg-import <file>.*The demo company trades up to 2027-06-30/,
    );
  });

  it('with no day covered at all, refuses before seeding anything, naming the year to load and the command', async () => {
    await expect(storyEnd(runtime, '2024-03-15')).rejects.toThrow(
      /payroll needs a PAYG schedule .*no PAYG schedule loaded for payments on \d{4}-\d\d-\d\d: load the ATO's Schedule 1 for \d{4}-\d\d with npm run cli -- payg-import <file>.*Nothing was seeded/,
    );
    expect(await findOrgBySlug(runtime.db, 'demo-refused')).toBeUndefined();
  });
});
