import { CHART } from '../../../protocol/methods/books/chart.js';
import { one, type Queryable } from '../../../db/types.js';
import type { BasLabels } from './model.js';

/*
 * The BAS labels of a period, accrual basis: every journal line dated within it (reversals included, so a
 * voided invoice nets out). Derived from (account, tax_code, amount, tax_cents) of the lines, where tax_cents
 * is the GST of the line with the line's sign: sales are credits, so their labels negate the sums.
 * Shared with the reports (BAS summary): one computation, one set of figures.
 */

const REVENUE = CHART.filter((a) => a.type === 'REVENUE').map((a) => a.code);
const EXPENSE = CHART.filter((a) => a.type === 'EXPENSE').map((a) => a.code);
/** Fixed-asset cost accounts (710, 720): their purchases are capital (G10). */
const CAPITAL = CHART.filter((a) => a.accumulated !== undefined).map((a) => a.code);
/** Tax codes reported on the BAS; BAS_EXCLUDED and untaxed lines are not. */
const ON_BAS = ['GST', 'GST_FREE', 'INPUT_TAXED'];
/** Journals of the payroll area: a pay run and the exact reversal a recall posts. */
export const PAYROLL_SOURCES = ['pay_run', 'pay_run_recall'];

export interface BasFigures {
  labels: BasLabels;
  /** 1A + W2 - 1B: positive payable to the ATO, negative a refund. */
  netCents: number;
}

export async function computeBas(q: Queryable, orgId: string, periodStart: string, periodEnd: string): Promise<BasFigures> {
  const s = one(
    await q.query<{
      sales_gross: number;
      sales_free: number;
      sales_gst: number;
      capital: number;
      non_capital: number;
      purchase_gst: number;
      wages: number;
      withheld: number;
    }>(
      `SELECT
       coalesce(sum(l.amount_cents + l.tax_cents) FILTER (WHERE l.account_code = ANY($4::text[]) AND l.tax_code = ANY($7::text[])), 0)::bigint AS sales_gross,
       coalesce(sum(l.amount_cents) FILTER (WHERE l.account_code = ANY($4::text[]) AND l.tax_code = 'GST_FREE'), 0)::bigint AS sales_free,
       coalesce(sum(l.tax_cents) FILTER (WHERE l.account_code = ANY($4::text[]) AND l.tax_code = 'GST'), 0)::bigint AS sales_gst,
       coalesce(sum(l.amount_cents + l.tax_cents) FILTER (WHERE l.account_code = ANY($6::text[]) AND l.tax_code = ANY($7::text[])), 0)::bigint AS capital,
       coalesce(sum(l.amount_cents + l.tax_cents) FILTER (WHERE l.account_code = ANY($5::text[]) AND l.tax_code = ANY($7::text[])), 0)::bigint AS non_capital,
       coalesce(sum(l.tax_cents) FILTER (WHERE (l.account_code = ANY($5::text[]) OR l.account_code = ANY($6::text[])) AND l.tax_code = 'GST'), 0)::bigint AS purchase_gst,
       coalesce(sum(l.amount_cents) FILTER (WHERE l.account_code = '477' AND j.source_kind = ANY($8::text[])), 0)::bigint AS wages,
       coalesce(sum(l.amount_cents) FILTER (WHERE l.account_code = '825' AND j.source_kind = ANY($8::text[])), 0)::bigint AS withheld
     FROM books_journal_lines l
     JOIN books_journals j ON j.org_id = l.org_id AND j.journal_id = l.journal_id
     WHERE l.org_id = $1 AND j.date BETWEEN $2::date AND $3::date`,
      [orgId, periodStart, periodEnd, REVENUE, EXPENSE, CAPITAL, ON_BAS, PAYROLL_SOURCES],
    ),
  );
  // `0 - x` rather than `-x`: no negative zeros in the figures.
  const labels: BasLabels = {
    G1: 0 - Number(s.sales_gross),
    G2: 0, // no export tax code in this chart: exports are coded GST_FREE and reported in G1 and G3
    G3: 0 - Number(s.sales_free),
    G10: Number(s.capital),
    G11: Number(s.non_capital),
    '1A': 0 - Number(s.sales_gst),
    '1B': Number(s.purchase_gst),
    W1: Number(s.wages),
    W2: 0 - Number(s.withheld),
  };
  return { labels, netCents: labels['1A'] + labels.W2 - labels['1B'] };
}
