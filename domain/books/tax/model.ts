import { notFound } from '../../../protocol/errors.js';
import { BAS_LABELS, type BasLabel, type Lodgement } from '../../../protocol/methods/books/tax.js';
import type { Queryable } from '../../../db/types.js';
import { addSgBusinessDays } from '../calendar.js';
import { addDays } from '../dates.js';
import { formatCents } from '../money.js';

/** The lodgement row, its view and the words every tax message uses for it. */

export type BasLabels = Record<BasLabel, number>;

export interface LodgementRow {
  n: number;
  lodgement_id: string;
  period_start: string;
  period_end: string;
  status: Lodgement['status'];
  labels: BasLabels;
  net_cents: number;
  prepared_by: string;
  prepared_at: string;
  hold_reason: string | null;
  held_at: string | null;
  return_reason: string | null;
  returned_at: string | null;
  lodged_by: string | null;
  lodged_at: string | null;
  approval_id: string | null;
  journal_id: string | null;
}

export const LODGEMENT_SELECT = `
  SELECT n, lodgement_id, period_start, period_end, status, labels, net_cents, prepared_by, prepared_at, hold_reason,
         held_at, return_reason, returned_at, lodged_by, lodged_at, approval_id, journal_id
    FROM books_tax_lodgements`;

/** The lodgement, locked for the call's transaction when `lock`. Another org's id is NOT_FOUND too. */
export async function loadLodgement(q: Queryable, orgId: string, lodgementId: string, lock = false): Promise<LodgementRow> {
  const [row] = await q.query<LodgementRow>(`${LODGEMENT_SELECT} WHERE org_id = $1 AND lodgement_id = $2${lock ? ' FOR UPDATE' : ''}`, [orgId, lodgementId]);
  if (!row) throw notFound(`lodgement ${lodgementId}`);
  return row;
}

/**
 * Serialise the tax desk of one org for the call's transaction: preparing checks for overlapping periods and
 * lodging moves the lock date, so two of them must not interleave.
 */
export async function lockTaxDesk(q: Queryable, orgId: string): Promise<void> {
  await q.query(`SELECT pg_advisory_xact_lock(hashtext('books.tax:' || $1))`, [orgId]);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const dayMonth = (d: string): string => `${Number(d.slice(8, 10))} ${MONTHS[Number(d.slice(5, 7)) - 1]}`;

/** `1 Jul–30 Sep 2026`, or `1 Dec 2026–28 Feb 2027` across years. */
export function periodLabel(start: string, end: string): string {
  const [ys, ye] = [start.slice(0, 4), end.slice(0, 4)];
  return ys === ye ? `${dayMonth(start)}–${dayMonth(end)} ${ye}` : `${dayMonth(start)} ${ys}–${dayMonth(end)} ${ye}`;
}

/** `BAS 1 Jul–30 Sep 2026 (bas_…)`: how messages name a lodgement. */
export const lodgementLabel = (r: Pick<LodgementRow, 'period_start' | 'period_end' | 'lodgement_id'>): string =>
  `BAS ${periodLabel(r.period_start, r.period_end)} (${r.lodgement_id})`;

export function netPhrase(netCents: number): string {
  if (netCents > 0) return `net ${formatCents(netCents)} payable to the ATO`;
  if (netCents < 0) return `net refund of ${formatCents(0 - netCents)} from the ATO`;
  return 'nil net amount';
}

export const labelsText = (l: BasLabels): string =>
  `1A ${formatCents(l['1A'])}, 1B ${formatCents(l['1B'])}, W2 ${formatCents(l.W2)}; ` +
  `G1 ${formatCents(l.G1)}, G2 ${formatCents(l.G2)}, G3 ${formatCents(l.G3)}, G10 ${formatCents(l.G10)}, G11 ${formatCents(l.G11)}, W1 ${formatCents(l.W1)}`;

/**
 * What the human signs: the period, the net and every label of the snapshot. The lodging act compares it
 * with the summary of the approval it consumes, so an approval never lodges other figures than it showed.
 */
export const signSummary = (r: LodgementRow): string =>
  `${lodgementLabel(r)}, awaiting signature to lodge: ${netPhrase(r.net_cents)} (${labelsText(r.labels)})`;

export function sameFigures(a: BasLabels, b: BasLabels): boolean {
  return BAS_LABELS.every((k) => Number(a[k]) === Number(b[k]));
}

/** Which labels moved, for messages: `1A $1.00 -> $2.00`. */
export function labelChanges(before: BasLabels, after: BasLabels): string {
  return BAS_LABELS.filter((k) => Number(before[k]) !== Number(after[k]))
    .map((k) => `${k} ${formatCents(before[k])} -> ${formatCents(after[k])}`)
    .join(', ');
}

/** The status in words; a HELD lodgement says held and never claims to be lodged. */
export function statusNote(r: LodgementRow): string {
  switch (r.status) {
    case 'DRAFT':
      return `With the preparer${r.return_reason ? ` (returned: ${r.return_reason})` : ''}: re-prepare it (books.taxPrepare) before it can be signed.`;
    case 'PREPARED':
      return `Prepared, awaiting a human signature to lodge (books.taxSignLodge): ${netPhrase(r.net_cents)}.`;
    case 'HELD':
      return `Held, not lodged (${r.hold_reason}): lodging is blocked; return it to the preparer (books.taxReturn) and re-prepare it.`;
    case 'LODGED':
      return `Lodged ${(r.lodged_at as string).slice(0, 10)} under approval ${r.approval_id}: ${netPhrase(r.net_cents)}; the books are locked through ${r.period_end}.`;
  }
}

export function lodgementView(r: LodgementRow): Lodgement {
  const labels = Object.fromEntries(BAS_LABELS.map((k) => [k, Number(r.labels[k])])) as BasLabels;
  return {
    id: r.lodgement_id,
    periodStart: r.period_start,
    periodEnd: r.period_end,
    period: periodLabel(r.period_start, r.period_end),
    status: r.status,
    statusNote: statusNote(r),
    labels,
    netCents: r.net_cents,
    preparedBy: r.prepared_by,
    preparedAt: r.prepared_at,
    holdReason: r.hold_reason,
    heldAt: r.held_at,
    returnReason: r.return_reason,
    returnedAt: r.returned_at,
    lodgedBy: r.lodged_by,
    lodgedAt: r.lodged_at,
    approvalId: r.approval_id,
    journalId: r.journal_id,
  };
}

// ---- the quarterly calendar ---------------------------------------------------------------------

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** The calendar quarter (Jul–Sep, Oct–Dec, Jan–Mar, Apr–Jun) holding a date. */
export function quarterOf(date: string): { start: string; end: string } {
  const year = Number(date.slice(0, 4));
  const firstMonth = Math.floor((Number(date.slice(5, 7)) - 1) / 3) * 3 + 1;
  const start = `${year}-${pad2(firstMonth)}-01`;
  const next = firstMonth === 10 ? `${year + 1}-01-01` : `${year}-${pad2(firstMonth + 3)}-01`;
  return { start, end: addDays(next, -1) };
}

export const isQuarter = (start: string, end: string): boolean => {
  const q = quarterOf(start);
  return q.start === start && q.end === end;
};

/**
 * When a BAS is due (ATO, lodging yourself): quarters on the 28th of the second month after (Oct–Dec: 28 Feb);
 * any other period (monthly BAS) on the 21st of the month after it.
 */
export function basDueDate(start: string, end: string): string {
  const year = Number(end.slice(0, 4));
  const month = Number(end.slice(5, 7));
  if (isQuarter(start, end)) return month === 12 ? `${year + 1}-02-28` : `${year}-${pad2(month + 1)}-28`;
  return month === 12 ? `${year + 1}-01-21` : `${year}-${pad2(month + 1)}-21`;
}

// ---- the super guarantee: quarterly before 1 July 2026, Payday Super from it ------------------------

/** Payday Super (Act No. 57 of 2025, assented 6 November 2025) applies to QE days (paydays) from this day. */
export const PAYDAY_SUPER_FROM = '2026-07-01';
export const PAYDAY_SUPER_DAYS = 7;
/** The "extended usual period" (SGAA s 6(1) as amended): a first contribution for a new employee or to a new fund. */
export const PAYDAY_SUPER_FIRST_PAY_DAYS = 20;

/** Which rule set a super due date: what obligations, payslips and books.ask name. */
export const SUPER_DUE_RULES = ['PAYDAY', 'FIRST_CONTRIBUTION', 'OUT_OF_CYCLE', 'QUARTERLY'] as const;
export type SuperDueRule = (typeof SUPER_DUE_RULES)[number];

export const QUARTERLY_RULE = 'quarterly SG: due 28 days after the quarter';
export const PAYDAY_RULE = `Payday Super: due ${PAYDAY_SUPER_DAYS} business days after payday (${PAYDAY_SUPER_FIRST_PAY_DAYS} for a first contribution: a new or re-employed employee's first pay, or the first pay to a new fund; out-of-cycle runs ${PAYDAY_SUPER_DAYS} after the next regular payday)`;

/** Each rule in words, with its numbers (notes and payslips; books.ask words them without digits). */
export const RULE_WORDS: Record<SuperDueRule, string> = {
  PAYDAY: `Payday Super: due ${PAYDAY_SUPER_DAYS} business days after payday`,
  FIRST_CONTRIBUTION: `Payday Super, first contribution: due ${PAYDAY_SUPER_FIRST_PAY_DAYS} business days after payday`,
  OUT_OF_CYCLE: `Payday Super, out of cycle: due ${PAYDAY_SUPER_DAYS} business days after the next regular payday`,
  QUARTERLY: QUARTERLY_RULE,
};

export const isPaydaySuper = (payDate: string): boolean => payDate >= PAYDAY_SUPER_FROM;

/** The rule super paid on a date is computed under, in words (pay runs and reports name it). */
export const superRule = (payDate: string): string => (isPaydaySuper(payDate) ? PAYDAY_RULE : QUARTERLY_RULE);

/** A payslip's rule: out of cycle, or a first contribution (20 business days), or the ordinary 7. */
export const payslipSuperRule = (payDate: string, firstPay: boolean, outOfCycle = false): string => {
  if (!isPaydaySuper(payDate)) return QUARTERLY_RULE;
  if (outOfCycle) return RULE_WORDS.OUT_OF_CYCLE;
  return firstPay ? RULE_WORDS.FIRST_CONTRIBUTION : RULE_WORDS.PAYDAY;
};

/**
 * Quarterly super guarantee (before Payday Super): 28 calendar days after the quarter (28 Oct, 28 Jan, 28 Apr,
 * 28 Jul), as the books have always computed it: not moved off a weekend or holiday.
 */
export const quarterlySuperDueDate = (quarterEnd: string): string => addDays(quarterEnd, 28);

/**
 * When super on wages paid on `payDate` must reach the fund: from 1 July 2026, 7 business days after the pay
 * date (20 for a first contribution) in the law's calendar (calendar.ts: a state-wide holiday anywhere is not a
 * business day, wherever the employer is); before, 28 days after the quarter of the pay date.
 */
export function superDueDate(payDate: string, firstPay = false): string {
  if (!isPaydaySuper(payDate)) return quarterlySuperDueDate(quarterOf(payDate).end);
  return addSgBusinessDays(payDate, firstPay ? PAYDAY_SUPER_FIRST_PAY_DAYS : PAYDAY_SUPER_DAYS);
}
