import type { z } from 'zod';
import { tax as c, type Obligation } from '../../../protocol/methods/books/tax.js';
import type { Queryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { addDays, minDate, today } from '../dates.js';
import { formatCents } from '../money.js';
import { computeBas } from './bas.js';
import { LODGEMENT_SELECT, basDueDate, isQuarter, lodgementLabel, periodLabel, quarterOf, type LodgementRow } from './model.js';
import { superItems } from './super.js';

/*
 * The obligations calendar as at a date: quarterly BAS (with PAYG withholding on it), the super guarantee (by
 * quarter before 1 July 2026, by pay run from it: super.ts) and STP pay events. Shown: the current and previous quarter, and anything earlier still overdue or open.
 * Computed, not stored, so it pages by position.
 */

type Item = z.infer<typeof Obligation>;

/** STP events needing nothing more: accepted by the ATO or cancelled with their run. */
const STP_DONE = new Set(['ACCEPTED', 'CANCELLED']);
const KIND_ORDER = { BAS: 0, PAYGW: 1, SUPER: 2, STP: 3 } as const;

interface Quarter {
  start: string;
  end: string;
}

/** The quarters from the one holding `from` to the one holding `to`, oldest first. */
function quartersBetween(from: string, to: string): Quarter[] {
  const out: Quarter[] = [];
  for (let q = quarterOf(from); q.start <= to; q = quarterOf(addDays(q.end, 1))) out.push(q);
  return out;
}

/** Whether LODGED lodgements of other periods (e.g. monthly) together cover every day of a quarter. */
function coveredByLodged(q: Quarter, lodgements: LodgementRow[]): boolean {
  const lodged = lodgements
    .filter((l) => l.status === 'LODGED' && l.period_end >= q.start && l.period_start <= q.end)
    .sort((a, b) => a.period_start.localeCompare(b.period_start));
  let next = q.start;
  for (const l of lodged) {
    if (l.period_start > next) return false;
    if (l.period_end >= next) next = addDays(l.period_end, 1);
  }
  return next > q.end;
}

async function basItems(q: Queryable, orgId: string, asOf: string, current: Quarter, previous: Quarter): Promise<Item[]> {
  const lodgements = await q.query<LodgementRow>(`${LODGEMENT_SELECT} WHERE org_id = $1 AND period_start <= $2 ORDER BY n`, [orgId, current.end]);
  const [first] = await q.query<{ d: string | null }>('SELECT min(date) AS d FROM books_journals WHERE org_id = $1', [orgId]);
  // From the first activity (a journal or a lodgement), so an unlodged old quarter shows as overdue.
  let from = previous.start;
  if (first?.d) from = minDate(from, first.d);
  for (const l of lodgements) from = minDate(from, l.period_start);

  const items: Item[] = [];
  for (const qr of quartersBetween(from, current.end)) {
    const lodgement = lodgements.find((l) => l.period_start === qr.start && l.period_end === qr.end) ?? null;
    const status = lodgement?.status ?? (coveredByLodged(qr, lodgements) ? 'LODGED' : 'NOT_PREPARED');
    const dueDate = basDueDate(qr.start, qr.end);
    const overdue = status !== 'LODGED' && dueDate < asOf;
    const open = lodgement !== null && status !== 'LODGED';
    if (!(qr.start >= previous.start || overdue || open)) continue;
    const figures = lodgement ? { labels: lodgement.labels, netCents: lodgement.net_cents } : await computeBas(q, orgId, qr.start, qr.end);
    const estimated = lodgement === null;
    const period = periodLabel(qr.start, qr.end);
    const state = basNote(status, lodgement, overdue, dueDate);
    items.push({
      key: `BAS ${qr.start}..${qr.end}`,
      kind: 'BAS',
      periodStart: qr.start,
      periodEnd: qr.end,
      dueDate,
      status,
      lodgementId: lodgement?.lodgement_id ?? null,
      amountCents: figures.netCents,
      estimated,
      overdue,
      note: `BAS ${period}: ${state}; net ${formatCents(figures.netCents)}${estimated ? ' from the books so far' : ''}`,
    });
    const w1 = Number(figures.labels.W1);
    const w2 = Number(figures.labels.W2);
    if (w1 !== 0 || w2 !== 0) {
      items.push({
        key: `PAYGW ${qr.start}..${qr.end}`,
        kind: 'PAYGW',
        periodStart: qr.start,
        periodEnd: qr.end,
        dueDate,
        status,
        lodgementId: lodgement?.lodgement_id ?? null,
        amountCents: w2,
        estimated,
        overdue,
        note: `PAYG withholding ${period}: W2 ${formatCents(w2)} on wages W1 ${formatCents(w1)}, reported and paid with the BAS (${state})`,
      });
    }
  }
  // Open lodgements of other periods (monthly BAS) show as themselves.
  for (const l of lodgements.filter((x) => x.status !== 'LODGED' && !isQuarter(x.period_start, x.period_end))) {
    const dueDate = basDueDate(l.period_start, l.period_end);
    const overdue = dueDate < asOf;
    items.push({
      key: `BAS ${l.period_start}..${l.period_end}`,
      kind: 'BAS',
      periodStart: l.period_start,
      periodEnd: l.period_end,
      dueDate,
      status: l.status,
      lodgementId: l.lodgement_id,
      amountCents: l.net_cents,
      estimated: false,
      overdue,
      note: `${lodgementLabel(l)}: ${basNote(l.status, l, overdue, dueDate)}; net ${formatCents(l.net_cents)}`,
    });
  }
  return items;
}

function basNote(status: string, l: LodgementRow | null, overdue: boolean, dueDate: string): string {
  const late = overdue ? `overdue since ${dueDate}` : `due ${dueDate}`;
  switch (status) {
    case 'NOT_PREPARED':
      return `not prepared, ${late}`;
    case 'DRAFT':
      return `with the preparer (returned${l?.return_reason ? `: ${l.return_reason}` : ''}), ${late}`;
    case 'PREPARED':
      return `prepared, awaiting a human signature to lodge, ${late}`;
    case 'HELD':
      return `held, not lodged (${l?.hold_reason}), ${late}`;
    default:
      return l ? `lodged ${(l.lodged_at as string).slice(0, 10)}` : 'lodged in shorter periods';
  }
}

/** STP pay events (the payroll area's table, when deployed) of the two quarters shown, and any still open. */
async function stpItems(q: Queryable, orgId: string, asOf: string, from: string, to: string): Promise<Item[]> {
  const [exists] = await q.query<{ t: string | null }>(`SELECT to_regclass('books_stp_events')::text AS t`);
  if (!exists?.t) return [];
  const rows = await q.query<{ stp_id: string; run_id: string; kind: string; status: string; pay_date: string }>(
    `SELECT stp_id, run_id, kind, status, pay_date FROM books_stp_events
      WHERE org_id = $1 AND ((pay_date BETWEEN $2::date AND $3::date) OR status <> ALL($4::text[])) ORDER BY pay_date, stp_id`,
    [orgId, from, to, [...STP_DONE]],
  );
  return rows.map((r) => {
    const open = !STP_DONE.has(r.status);
    // Submitted events are on time; queued or failed ones past the pay date are late.
    const overdue = open && r.status !== 'SUBMITTED' && r.pay_date < asOf;
    return {
      key: `STP ${r.stp_id}`,
      kind: 'STP' as const,
      periodStart: r.pay_date,
      periodEnd: r.pay_date,
      dueDate: r.pay_date,
      status: r.status,
      lodgementId: null,
      amountCents: null,
      estimated: false,
      overdue,
      note: `STP ${r.kind === 'UPDATE' ? 'update' : 'pay'} event ${r.stp_id} for pay run ${r.run_id}, due on the pay date ${r.pay_date}: ${r.status}${overdue ? ' (overdue: resubmit it with books.stpResubmit)' : ''}`,
    };
  });
}

export const taxObligations = handler(c.taxObligations, async (ctx, p) => {
  const asOf = p.asOf ?? today(ctx.deps);
  const current = quarterOf(asOf);
  const previous = quarterOf(addDays(current.start, -1));
  const items = [
    ...(await basItems(ctx.q, ctx.orgId, asOf, current, previous)),
    ...(await superItems(ctx.q, ctx.orgId, asOf, previous.start, current.end)),
    ...(await stpItems(ctx.q, ctx.orgId, asOf, previous.start, current.end)),
  ].sort(
    (a, b) =>
      a.dueDate.localeCompare(b.dueDate) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || a.periodStart.localeCompare(b.periodStart) || a.key.localeCompare(b.key),
  );
  const start = p.cursor;
  const page = items.slice(start, start + p.limit);
  return { obligations: page, nextCursor: start + p.limit < items.length ? start + p.limit : null };
});
