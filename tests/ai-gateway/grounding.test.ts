import { describe, expect, it } from 'vitest';
import { checkGrounding, numbersIn } from '../../ai-gateway/grounding.js';
import { CitedRecords, indexResult } from '../../ai-gateway/records.js';
import type { Claim, Draft } from '../../ai-gateway/types.js';
import { BOOKS_GROUNDING } from '../../domain/books/ask/answerer.js';

/** What the reads "returned" in these tests: two invoices, two accounts in a report, one event. */
function records(): CitedRecords {
  const r = new CitedRecords();
  indexResult(r, 'books.invoices', {
    invoices: [
      { id: 'inv_a1', number: 'INV-0001', amountDueCents: 123456, daysOverdue: 12, contact: { id: 'con_x', name: 'Acme' }, totals: { grossCents: 150000 } },
      { id: 'inv_b2', number: 'INV-0002', amountDueCents: 1200, daysOverdue: 40, contact: { id: 'con_y', name: 'Bolt' }, totals: { grossCents: 1200 } },
    ],
    nextCursor: null,
  });
  indexResult(
    r,
    'books.reports',
    {
      report: 'profitAndLoss',
      income: { lines: [{ account: '200', name: 'Sales', amountCents: 500000 }], totalCents: 500000 },
      expenses: { lines: [{ account: '400', name: 'Advertising', amountCents: 20000 }], totalCents: 20000 },
    },
    BOOKS_GROUNDING,
  );
  indexResult(r, 'ledger.events', {
    events: [{ seq: 42, kind: 'books.invoice.send', family: 'books', entityId: 'inv_a1', payload: { amountCents: 150000 } }],
    nextBeforeSeq: null,
  });
  return r;
}

const owed: Claim = {
  text: 'Acme owes $1,234.56 on INV-0001 (inv_a1), 12 days overdue since 2026-10-21.',
  cites: [{ kind: 'record', id: 'inv_a1' }],
  figure: { value: 123456, unit: 'cents', op: 'value', field: 'amountDueCents' },
};
const overdueDays: Claim = {
  text: 'It is 12 days overdue.',
  cites: [{ kind: 'record', id: 'inv_a1' }],
  figure: { value: 12, unit: 'days', op: 'value', field: 'daysOverdue' },
};
const answer = (claims: Claim[], text = 'Acme owes $1,234.56, 12 days overdue.'): Draft => ({ kind: 'answer', answer: text, claims });
const reasonOf = (d: Draft, r = records()) => {
  const v = checkGrounding(d, r);
  return v.ok ? 'grounded' : v.reason;
};

describe('grounding', () => {
  it('accepts an answer whose citations were returned and whose figures recompute', () => {
    expect(reasonOf(answer([owed, overdueDays]))).toBe('grounded');
  });

  it('accepts sum, min, max and count over several citations, nested fields, account and event citations', () => {
    const both = [
      { kind: 'record' as const, id: 'inv_a1' },
      { kind: 'record' as const, id: 'inv_b2' },
    ];
    const claims: Claim[] = [
      { text: 'Two invoices are open.', cites: both, figure: { value: 2, unit: 'count', op: 'count' } },
      { text: 'Together $1,246.56 is due.', cites: both, figure: { value: 124656, unit: 'cents', op: 'sum', field: 'amountDueCents' } },
      { text: 'The oldest is 40 days overdue.', cites: both, figure: { value: 40, unit: 'days', op: 'max', field: 'daysOverdue' } },
      { text: 'The smallest was billed at $12.00.', cites: both, figure: { value: 1200, unit: 'cents', op: 'min', field: 'totals.grossCents' } },
      {
        text: 'Sales (account 200) were $5,000.00.',
        cites: [{ kind: 'account', code: '200' }],
        figure: { value: 500000, unit: 'cents', op: 'value', field: 'amountCents' },
      },
      { text: 'INV-0001 was sent in event #42.', cites: [{ kind: 'event', seq: 42 }] },
    ];
    expect(reasonOf(answer(claims, '2 invoices are open with $1,246.56 due; the oldest is 40 days overdue.'))).toBe('grounded');
  });

  it('refuses a citation no read returned (a fabricated id)', () => {
    const fake: Claim = { ...owed, cites: [{ kind: 'record', id: 'inv_fake9' }] };
    expect(reasonOf(answer([fake]))).toBe('claim 1 cites record inv_fake9, which no read returned in this call');
    expect(reasonOf(answer([{ text: 'Rent', cites: [{ kind: 'account', code: '469' }] }], 'Rent.'))).toMatch(/cites account 469, which no read returned/);
    expect(reasonOf(answer([{ text: 'Event', cites: [{ kind: 'event', seq: 41 }] }], 'Event.'))).toMatch(/cites ledger event seq 41, which no read returned/);
  });

  it('refuses a figure that does not recompute, by op', () => {
    expect(reasonOf(answer([{ ...owed, figure: { ...owed.figure!, value: 123457 } }]))).toBe(
      "claim 1's figure says $1,234.57 but amountDueCents of record inv_a1 is $1,234.56",
    );
    const both = [
      { kind: 'record' as const, id: 'inv_a1' },
      { kind: 'record' as const, id: 'inv_b2' },
    ];
    expect(reasonOf(answer([{ text: 'x', cites: both, figure: { value: 124600, unit: 'cents', op: 'sum', field: 'amountDueCents' } }], 'x'))).toMatch(
      /says \$1,246\.00 but the sum of amountDueCents over its 2 citations is \$1,246\.56/,
    );
    expect(reasonOf(answer([{ text: 'x', cites: both, figure: { value: 12, unit: 'days', op: 'max', field: 'daysOverdue' } }], 'x'))).toMatch(
      /max of daysOverdue .* is 40/,
    );
    expect(reasonOf(answer([{ text: 'x', cites: both, figure: { value: 3, unit: 'count', op: 'count' } }], 'x'))).toMatch(
      /says 3 but the claim cites 2 distinct records/,
    );
    // Citing the same record twice does not count it twice.
    expect(reasonOf(answer([{ text: 'x', cites: [both[0], both[0]], figure: { value: 2, unit: 'count', op: 'count' } }], 'x'))).toMatch(
      /cites 1 distinct record$/,
    );
  });

  it('refuses malformed figures, naming what is wrong', () => {
    const f = owed.figure!;
    expect(reasonOf(answer([{ ...owed, figure: { ...f, field: 'nope' } }]))).toMatch(/record inv_a1 has no number at nope/);
    expect(reasonOf(answer([{ ...owed, figure: { ...f, field: undefined } }]))).toMatch(/op value needs the field/);
    expect(reasonOf(answer([{ ...owed, figure: { ...f, value: 1.5 } }]))).toMatch(/value must be an integer/);
    expect(reasonOf(answer([{ ...owed, cites: [...owed.cites, { kind: 'record', id: 'inv_b2' }] }]))).toMatch(/op value needs exactly one citation/);
    expect(reasonOf(answer([{ ...owed, figure: { value: 1, unit: 'count', op: 'count', field: 'x' } }]))).toMatch(/a count takes no field/);
  });

  it('refuses a number in the text that is none of the figures', () => {
    expect(reasonOf(answer([owed, overdueDays], 'Acme owes $1,234.65, 12 days overdue.'))).toMatch(
      /^the answer states \$1,234\.65, which is none of the answer's figures \(\$1,234\.56, 12\)/,
    );
    expect(reasonOf(answer([owed, overdueDays], 'Acme owes $1,234.56, 13 days overdue.'))).toMatch(/^the answer states 13/);
    expect(reasonOf(answer([{ ...owed, text: 'Acme owes $99.00.' }], 'Acme owes $1,234.56.'))).toMatch(/^claim 1 states \$99\.00/);
    expect(reasonOf(answer([owed], 'Acme owes $1,234.56 of -$5.00.'))).toMatch(/states -\$5\.00/);
    expect(reasonOf(answer([owed], 'Acme owes $1,234.56, about 1.5 weeks late.'))).toMatch(/states 1\.5/);
  });

  it('does not count dates, identifiers, cited account codes and cited seqs as numbers', () => {
    expect(numbersIn('On 2026-11-02T09:00:00.000Z inv_3k9, INV-0042, W2, 1A and G1 were fine; 5-10 and $1,234.56.').map((t) => t.text)).toEqual([
      '5',
      '10',
      '$1,234.56',
    ]);
    const sales: Claim = {
      text: 'Account 200 shows $5,000.00 (seq 42).',
      cites: [
        { kind: 'account', code: '200' },
        { kind: 'event', seq: 42 },
      ],
    };
    expect(reasonOf(answer([{ ...sales, figure: undefined }, { ...owed }], 'Account 200 and event #42: $1,234.56.'))).toMatch(/claim 1 states \$5,000\.00/);
    // 42 only counts as a seq when written as one.
    expect(reasonOf(answer([{ ...sales, text: 'Sales.' }, owed], 'Saw 42 sales; $1,234.56.'))).toMatch(/the answer states 42/);
    expect(reasonOf(answer([{ ...sales, text: 'Sales.' }, owed], 'Account 200, seq 42: $1,234.56.'))).toMatch(/claim 2 states 12/);
    expect(
      reasonOf(
        answer(
          [
            { ...sales, text: 'Sales.' },
            { ...owed, text: 'Acme owes $1,234.56.' },
          ],
          'Account 200, seq 42: $1,234.56.',
        ),
      ),
    ).toBe('grounded');
  });

  it('refuses answers with no claims, claims without citations, and a zero count without any read', () => {
    expect(reasonOf(answer([], 'All good.'))).toMatch(/makes no claims/);
    expect(reasonOf(answer([{ text: 'Acme is fine.', cites: [] }], 'Acme is fine.'))).toMatch(/claim 1 \("Acme is fine."\) cites no record/);
    const none: Claim = { text: 'No invoice is overdue.', cites: [], figure: { value: 0, unit: 'count', op: 'count' } };
    expect(reasonOf(answer([none], 'None: 0 overdue.'))).toBe('grounded');
    expect(reasonOf(answer([none], 'None: 0 overdue.'), new CitedRecords())).toMatch(/no read was made/);
    expect(reasonOf({ kind: 'answer', answer: ' ', claims: [owed] })).toMatch(/empty/);
  });

  it('a cannot_answer draft claims nothing', () => {
    expect(checkGrounding({ kind: 'cannot_answer', reason: 'no such invoice' }, records())).toEqual({ ok: true });
  });

  it('a value figure holds if any occurrence of the record supports it; sum over a record whose reads disagree is ambiguous', () => {
    const r = records();
    indexResult(r, 'books.reports', { report: 'agedReceivables', contacts: [{ documents: [{ id: 'inv_a1', balanceCents: 100 }] }] }, BOOKS_GROUNDING);
    indexResult(r, 'books.invoices', { invoices: [{ id: 'inv_a1', amountDueCents: 999 }] });
    const c = { kind: 'record' as const, id: 'inv_a1' };
    expect(reasonOf(answer([{ text: 'x', cites: [c], figure: { value: 999, unit: 'cents', op: 'value', field: 'amountDueCents' } }], '$9.99'), r)).toBe(
      'grounded',
    );
    expect(reasonOf(answer([{ text: 'x', cites: [c], figure: { value: 999, unit: 'cents', op: 'sum', field: 'amountDueCents' } }], '$9.99'), r)).toMatch(
      /differs between the reads/,
    );
  });
});
