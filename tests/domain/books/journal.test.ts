import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { ApiError } from '../../../protocol/errors.js';
import { postJournal, reverseJournal } from '../../../domain/books/journal.js';
import { setLockDate } from '../../../domain/books/policy.js';
import { freshOrg } from '../../helpers/harness.js';
import { checkInvariants } from './setup.js';

/** The posting engine and the database's own guarantees: balance at commit, posted journals immutable. */

const base = { narration: 'test', sourceKind: 'manual', sourceId: 'x', postedBy: 'usr_test' };

describe('postJournal', () => {
  it('posts balanced journals and refuses unbalanced or one-line ones before writing', async ({ books: s }) => {
    const id = await s.runtime.db.tx((q) =>
      postJournal(q, s.org.orgId, {
        ...base,
        date: '2026-11-01',
        lines: [
          { account: '429', amountCents: 500 },
          { account: '090', amountCents: -500 },
          { account: '404', amountCents: 0 },
        ],
      }),
    );
    const lines = await s.runtime.db.query('SELECT account_code FROM books_journal_lines WHERE org_id = $1 AND journal_id = $2', [s.org.orgId, id]);
    expect(lines).toHaveLength(2); // the zero line is dropped
    await expect(
      s.runtime.db.tx((q) =>
        postJournal(q, s.org.orgId, {
          ...base,
          date: '2026-11-01',
          lines: [
            { account: '429', amountCents: 500 },
            { account: '090', amountCents: -499 },
          ],
        }),
      ),
    ).rejects.toThrow(/unbalanced/);
    await expect(
      s.runtime.db.tx((q) =>
        postJournal(q, s.org.orgId, {
          ...base,
          date: '2026-11-01',
          lines: [
            { account: '429', amountCents: 0 },
            { account: '090', amountCents: 0 },
          ],
        }),
      ),
    ).rejects.toThrow(/unbalanced/);
    await expect(
      s.runtime.db.tx((q) =>
        postJournal(q, s.org.orgId, {
          ...base,
          date: '2026-11-01',
          lines: [
            { account: '999', amountCents: 1 },
            { account: '090', amountCents: -1 },
          ],
        }),
      ),
    ).rejects.toThrow(/not in the chart/);
    await checkInvariants(s.runtime.db, s.org.orgId);
  });

  it('the database refuses an unbalanced journal at commit, and any change to a posted one', async ({ books: s }) => {
    const insert = (amounts: number[]) =>
      s.runtime.db.tx(async (q) => {
        await q.query(
          `INSERT INTO books_journals (org_id, journal_id, date, narration, source_kind, source_id, posted_by) VALUES ($1, 'jnl_raw${amounts.join('_').replace(/-/g, 'm')}', '2026-11-01', 'raw', 'manual', 'x', 'usr_x')`,
          [s.org.orgId],
        );
        let n = 0;
        for (const a of amounts) {
          await q.query(
            `INSERT INTO books_journal_lines (org_id, journal_id, line_no, account_code, amount_cents) VALUES ($1, 'jnl_raw${amounts.join('_').replace(/-/g, 'm')}', $2, '429', $3)`,
            [s.org.orgId, ++n, a],
          );
        }
      });
    await expect(insert([100, -99])).rejects.toThrow(/unbalanced/);
    await expect(insert([100])).rejects.toThrow(/unbalanced/);
    await insert([100, -100]);
    await expect(s.runtime.db.query(`UPDATE books_journal_lines SET amount_cents = 1 WHERE org_id = $1`, [s.org.orgId])).rejects.toThrow(/never change/);
    await expect(s.runtime.db.query(`DELETE FROM books_journals WHERE org_id = $1`, [s.org.orgId])).rejects.toThrow(/never change/);
    await checkInvariants(s.runtime.db, s.org.orgId);
  });

  it('reverses exactly once, and refuses dates in a locked period with CONFLICT', async ({ books: s }) => {
    const o = await freshOrg(s.runtime, 'lock');
    const id = await s.runtime.db.tx((q) =>
      postJournal(q, o.orgId, {
        ...base,
        date: '2026-10-15',
        lines: [
          { account: '429', amountCents: 700, taxCode: 'GST', taxCents: 64 },
          { account: '820', amountCents: 64 },
          { account: '090', amountCents: -764 },
        ],
      }),
    );
    const rev = await s.runtime.db.tx((q) =>
      reverseJournal(q, o.orgId, id, { date: '2026-10-20', narration: 'undo', sourceKind: 'manual', sourceId: 'x', postedBy: 'usr_test' }),
    );
    const lines = await s.runtime.db.query<{ amount_cents: number; tax_cents: number }>(
      'SELECT amount_cents, tax_cents FROM books_journal_lines WHERE org_id = $1 AND journal_id = $2 ORDER BY line_no',
      [o.orgId, rev],
    );
    expect(lines.map((l) => [l.amount_cents, l.tax_cents])).toEqual([
      [-700, -64],
      [-64, 0],
      [764, 0],
    ]);
    await expect(
      s.runtime.db.tx((q) =>
        reverseJournal(q, o.orgId, id, { date: '2026-10-20', narration: 'again', sourceKind: 'manual', sourceId: 'x', postedBy: 'usr_test' }),
      ),
    ).rejects.toThrow(/already reversed/);
    await s.runtime.db.tx((q) => setLockDate(q, o.orgId, '2026-10-31'));
    const locked = s.runtime.db.tx((q) =>
      postJournal(q, o.orgId, {
        ...base,
        date: '2026-10-31',
        lines: [
          { account: '429', amountCents: 1 },
          { account: '090', amountCents: -1 },
        ],
      }),
    );
    await expect(locked).rejects.toBeInstanceOf(ApiError);
    await expect(locked).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/locked through 2026-10-31/) });
    await s.runtime.db.tx((q) =>
      postJournal(q, o.orgId, {
        ...base,
        date: '2026-11-01',
        lines: [
          { account: '429', amountCents: 1 },
          { account: '090', amountCents: -1 },
        ],
      }),
    );
    await checkInvariants(s.runtime.db, o.orgId);
  });
});
