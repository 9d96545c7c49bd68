import type { Queryable } from '../../db/types.js';
import { ATO_2024_25 } from '../../domain/books/rates/schedules/ato-2024-25.js';

/*
 * The ATO's Schedule 1 for payments from 1 July 2026 could not be retrieved (README "The books"), so the
 * product refuses pay dates from 2026-07-01 until an operator loads it (payg-import). The suite drafts most of
 * its pay runs in 2026-27, so each test database gets this stand-in: the 2024-25 coefficients re-dated for
 * 2026-27, its source saying so. It exercises the loaded-schedule path; its figures are NOT the ATO's 2026-27
 * figures. Replace it with the real file (and update the figures the payroll tests expect) once that is loaded.
 */
export const TEST_FIXTURE_2026_27 = {
  ...ATO_2024_25,
  label: '2026-27',
  from: '2026-07-01',
  to: '2027-06-30',
  source: 'https://test-fixture.invalid/2024-25-coefficients-re-dated-not-the-ato-2026-27-schedule',
  published: '2024-06-16',
  samples: [],
};

/** Store the stand-in (no ledger events: the operator's import ledgers; a test database has no operator). */
export async function loadTestPaygFixture(q: Queryable): Promise<void> {
  const s = TEST_FIXTURE_2026_27;
  await q.query(
    `INSERT INTO books_payg_schedules (from_date, to_date, label, source, published, scales, samples) VALUES ($1, $2, $3, $4, $5, $6, '[]')
     ON CONFLICT (from_date) DO NOTHING`,
    [s.from, s.to, s.label, s.source, s.published, JSON.stringify(s.scales)],
  );
}
