import { ApiError, notFound } from '../../../protocol/errors.js';
import { payroll as c, type StpEvent } from '../../../protocol/methods/books/payroll.js';
import type { Queryable } from '../../../db/types.js';
import { appendEvent } from '../../../ledger/append.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { formatCents } from '../money.js';
import { finish } from '../outcome.js';
import { financialYear } from './model.js';

/*
 * Single Touch Payroll. Signing a pay run queues a PAY event; there is no ATO connection in this product, so an
 * integration (or the demo seed, or a test) reports the ATO's answers through recordStpResponse. A FAILED event
 * is requeued by books.stpResubmit; an ACCEPTED one is corrected by a new UPDATE event with year-to-date figures.
 */

interface Figures {
  employeeId: string;
  name: string;
  grossCents: number;
  paygCents: number;
  superCents: number;
}

export interface StpRow {
  stp_id: string;
  run_id: string;
  kind: 'PAY' | 'UPDATE';
  status: StpEvent['status'];
  attempt: number;
  error: string | null;
  pay_date: string;
  financial_year: string;
  follows: string | null;
  figures: Figures[];
  gross_cents: number;
  payg_cents: number;
  super_cents: number;
  created_at: string;
  updated_at: string;
}

const STP_COLUMNS = `stp_id, run_id, kind, status, attempt, error, pay_date, financial_year, follows, figures, gross_cents, payg_cents,
  super_cents, created_at, updated_at`;

export const stpView = (r: StpRow): StpEvent => ({
  id: r.stp_id,
  runId: r.run_id,
  kind: r.kind,
  status: r.status,
  attempt: r.attempt,
  error: r.error,
  payDate: r.pay_date,
  financialYear: r.financial_year,
  follows: r.follows,
  employees: r.figures,
  grossCents: r.gross_cents,
  paygCents: r.payg_cents,
  superCents: r.super_cents,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export async function loadStp(q: Queryable, orgId: string, stpId: string, lock = false): Promise<StpRow> {
  const [row] = await q.query<StpRow>(`SELECT ${STP_COLUMNS} FROM books_stp_events WHERE org_id = $1 AND stp_id = $2${lock ? ' FOR UPDATE' : ''}`, [
    orgId,
    stpId,
  ]);
  if (!row) throw notFound(`STP event ${stpId}`);
  return row;
}

/** The run's latest PAY event, if it was signed. */
export async function latestPayEvent(q: Queryable, orgId: string, runId: string, lock = false): Promise<StpRow | null> {
  const [row] = await q.query<StpRow>(
    `SELECT ${STP_COLUMNS} FROM books_stp_events WHERE org_id = $1 AND run_id = $2 AND kind = 'PAY' ORDER BY n DESC LIMIT 1${lock ? ' FOR UPDATE' : ''}`,
    [orgId, runId],
  );
  return row ?? null;
}

async function insertEvent(
  ctx: HandlerCtx,
  e: { runId: string; kind: 'PAY' | 'UPDATE'; payDate: string; follows: string | null; figures: Figures[] },
): Promise<StpRow> {
  const total = (k: 'grossCents' | 'paygCents' | 'superCents') => e.figures.reduce((s, f) => s + f[k], 0);
  const stpId = newId('stp');
  await ctx.q.query(
    `INSERT INTO books_stp_events (org_id, stp_id, run_id, kind, status, pay_date, financial_year, follows, figures, gross_cents, payg_cents, super_cents, created_by)
     VALUES ($1, $2, $3, $4, 'QUEUED', $5, $6, $7, $8::jsonb, $9, $10, $11, $12)`,
    [
      ctx.orgId,
      stpId,
      e.runId,
      e.kind,
      e.payDate,
      financialYear(e.payDate).label,
      e.follows,
      JSON.stringify(e.figures),
      total('grossCents'),
      total('paygCents'),
      total('superCents'),
      ctx.principal.id,
    ],
  );
  return loadStp(ctx.q, ctx.orgId, stpId);
}

/** Queue the PAY event of a run being posted: each payslip's gross, PAYG and super. */
export async function queuePayEvent(ctx: HandlerCtx, run: { run_id: string; pay_date: string }): Promise<StpRow> {
  const figures = await ctx.q.query<Figures>(
    `SELECT employee_id AS "employeeId", employee_name AS name, gross_cents AS "grossCents", payg_cents AS "paygCents", super_cents AS "superCents"
       FROM books_payslips WHERE org_id = $1 AND run_id = $2 ORDER BY n`,
    [ctx.orgId, run.run_id],
  );
  return insertEvent(ctx, { runId: run.run_id, kind: 'PAY', payDate: run.pay_date, follows: null, figures });
}

/** Year-to-date figures per employee: POSTED runs paid in the financial year containing `date`. */
export async function yearToDate(q: Queryable, orgId: string, date: string): Promise<Figures[]> {
  const fy = financialYear(date);
  return q.query<Figures>(
    `SELECT s.employee_id AS "employeeId", e.name, sum(s.gross_cents)::bigint AS "grossCents", sum(s.payg_cents)::bigint AS "paygCents",
            sum(s.super_cents)::bigint AS "superCents"
       FROM books_payslips s
       JOIN books_pay_runs r ON r.org_id = s.org_id AND r.run_id = s.run_id
       JOIN books_employees e ON e.org_id = s.org_id AND e.employee_id = s.employee_id
      WHERE s.org_id = $1 AND r.status = 'POSTED' AND r.pay_date BETWEEN $2::date AND $3::date
      GROUP BY s.employee_id, e.name, e.n ORDER BY e.n`,
    [orgId, fy.start, fy.end],
  );
}

const NEXT: Partial<Record<StpRow['status'], StpRow['status'][]>> = {
  QUEUED: ['SUBMITTED', 'ACCEPTED', 'FAILED'],
  SUBMITTED: ['ACCEPTED', 'FAILED'],
};

/**
 * The seam an ATO integration (and the demo seed, and tests) reports through: QUEUED -> SUBMITTED -> ACCEPTED or
 * FAILED (with the ATO's error). The same answer again changes nothing; any other move is CONFLICT. Appends a
 * `books.stp.record_response` event by the system (actor ''), so call it inside a transaction (`db.tx`).
 */
export async function recordStpResponse(
  q: Queryable,
  orgId: string,
  stpId: string,
  r: { status: 'SUBMITTED' | 'ACCEPTED' | 'FAILED'; error?: string },
): Promise<StpEvent> {
  const row = await loadStp(q, orgId, stpId, true);
  if (row.status === r.status) return stpView(row);
  if (!NEXT[row.status]?.includes(r.status)) {
    throw new ApiError('CONFLICT', `STP event ${stpId} is ${row.status}; an ATO answer of ${r.status} cannot apply to it`);
  }
  const error = r.status === 'FAILED' ? r.error?.trim() || 'refused by the ATO (no reason given)' : null;
  await q.query(`UPDATE books_stp_events SET status = $3, error = $4, updated_at = now() WHERE org_id = $1 AND stp_id = $2`, [orgId, stpId, r.status, error]);
  await appendEvent(q, orgId, {
    family: 'books',
    kind: 'books.stp.record_response',
    entityId: stpId,
    actor: '',
    payload: { stpId, runId: row.run_id, kind: row.kind, attempt: row.attempt, status: r.status, error },
  });
  return stpView(await loadStp(q, orgId, stpId));
}

export const stpResubmit = handler(c.stpResubmit, async (ctx, p) => {
  const row = await loadStp(ctx.q, ctx.orgId, p.eventId, true);
  const label = `STP ${row.kind} event ${row.stp_id} (pay run ${row.run_id}, paid ${row.pay_date})`;
  if (row.status === 'QUEUED' || row.status === 'SUBMITTED') {
    throw new ApiError('CONFLICT', `${label} is ${row.status}: still in flight; wait for the ATO's answer before resending`);
  }
  if (row.status === 'CANCELLED') {
    throw new ApiError('CONFLICT', `${label} was CANCELLED when its pay run was recalled; there is nothing to resend`);
  }
  if (row.status === 'FAILED') {
    await ctx.q.query(
      `UPDATE books_stp_events SET status = 'QUEUED', attempt = attempt + 1, error = NULL, updated_at = now() WHERE org_id = $1 AND stp_id = $2`,
      [ctx.orgId, row.stp_id],
    );
    const stpEvent = stpView(await loadStp(ctx.q, ctx.orgId, row.stp_id));
    return finish(
      ctx,
      {
        kind: 'books.stp.resubmit',
        entityId: row.stp_id,
        payload: {
          stpId: row.stp_id,
          runId: row.run_id,
          kind: row.kind,
          action: 'requeued',
          attempt: stpEvent.attempt,
          status: 'QUEUED',
          previousError: row.error,
        },
      },
      { stpEvent, changed: true },
      `Requeued ${label} as attempt ${stpEvent.attempt} after it failed (${row.error})`,
    );
  }
  // ACCEPTED: the ATO has it; corrections go as an update event with the year-to-date figures.
  const fy = financialYear(row.pay_date);
  const figures = await yearToDate(ctx.q, ctx.orgId, row.pay_date);
  if (figures.length === 0) throw new ApiError('CONFLICT', `no POSTED pay runs were paid in ${fy.label}: there are no year-to-date figures to send`);
  const update = await insertEvent(ctx, { runId: row.run_id, kind: 'UPDATE', payDate: row.pay_date, follows: row.stp_id, figures });
  const stpEvent = stpView(update);
  return finish(
    ctx,
    {
      kind: 'books.stp.resubmit',
      entityId: row.stp_id,
      payload: {
        stpId: row.stp_id,
        runId: row.run_id,
        kind: row.kind,
        action: 'update',
        updateId: update.stp_id,
        financialYear: fy.label,
        employees: figures.length,
        grossCents: stpEvent.grossCents,
        paygCents: stpEvent.paygCents,
        superCents: stpEvent.superCents,
        status: 'QUEUED',
      },
    },
    { stpEvent, changed: true },
    `Queued STP UPDATE event ${update.stp_id} after accepted ${row.stp_id}: year-to-date ${fy.label} for ${figures.length} staff, gross ${formatCents(stpEvent.grossCents)}, PAYG ${formatCents(stpEvent.paygCents)}, super ${formatCents(stpEvent.superCents)}`,
  );
});
