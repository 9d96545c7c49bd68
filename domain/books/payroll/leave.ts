import { ApiError, badRequest, notFound } from '../../../protocol/errors.js';
import { payroll as c } from '../../../protocol/methods/books/payroll.js';
import { one, type Queryable } from '../../../db/types.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { daysBetween, daysInclusive } from '../dates.js';
import { finish } from '../outcome.js';
import { loadEmployee, type EmployeeRow } from './model.js';

/*
 * Leave: requested against a balance, then scheduled or rejected. Balances accrue with service (National
 * Employment Standards: 4 weeks of annual and 2 weeks of personal leave a year, pro rata by days). Hours are
 * handled in hundredths so a 7.6-hour day stays exact.
 */

interface LeaveRow {
  leave_id: string;
  employee_id: string;
  employee_name: string;
  kind: 'ANNUAL' | 'PERSONAL' | 'UNPAID';
  start_date: string;
  end_date: string;
  hours: number;
  status: 'REQUESTED' | 'SCHEDULED' | 'REJECTED';
  note: string | null;
  decided_by: string | null;
  decided_at: string | null;
  created_at: string;
}

const leaveView = (r: LeaveRow) => ({
  id: r.leave_id,
  employee: { id: r.employee_id, name: r.employee_name },
  kind: r.kind,
  startDate: r.start_date,
  endDate: r.end_date,
  hours: r.hours,
  status: r.status,
  note: r.note,
  decidedBy: r.decided_by,
  decidedAt: r.decided_at,
  createdAt: r.created_at,
});

async function loadLeave(q: Queryable, orgId: string, leaveId: string, lock = false): Promise<LeaveRow> {
  if (lock) {
    const [locked] = await q.query('SELECT 1 FROM books_leave WHERE org_id = $1 AND leave_id = $2 FOR UPDATE', [orgId, leaveId]);
    if (!locked) throw notFound(`leave request ${leaveId}`);
  }
  const [row] = await q.query<LeaveRow>(
    `SELECT l.leave_id, l.employee_id, e.name AS employee_name, l.kind, l.start_date, l.end_date, l.hours::float8 AS hours, l.status, l.note,
            l.decided_by, l.decided_at, l.created_at
       FROM books_leave l JOIN books_employees e ON e.org_id = l.org_id AND e.employee_id = l.employee_id
      WHERE l.org_id = $1 AND l.leave_id = $2`,
    [orgId, leaveId],
  );
  if (!row) throw notFound(`leave request ${leaveId}`);
  return row;
}

/** Weeks of leave accrued per year of service, by kind. */
const WEEKS_A_YEAR = { ANNUAL: 4, PERSONAL: 2 } as const;

const hours = (hundredths: number): number => hundredths / 100;

/**
 * The balance of a kind of leave as at `asOf`, in hundredths of an hour: accrued (hoursPerWeek * weeks a year,
 * pro rata by days of service, rounded down) less leave of that kind REQUESTED or SCHEDULED.
 */
export async function leaveBalance(q: Queryable, orgId: string, e: EmployeeRow, kind: 'ANNUAL' | 'PERSONAL', asOf: string) {
  const serviceDays = Math.max(0, daysBetween(e.start_date, asOf));
  const accrued = Math.floor((e.hours_per_week * WEEKS_A_YEAR[kind] * 100 * serviceDays) / 365);
  const row = one(
    await q.query<{ committed: number }>(
      `SELECT coalesce(sum(round(hours * 100)), 0)::bigint AS committed FROM books_leave
      WHERE org_id = $1 AND employee_id = $2 AND kind = $3 AND status IN ('REQUESTED', 'SCHEDULED')`,
      [orgId, e.employee_id, kind],
    ),
  );
  return { kind, accrued, committed: row.committed, available: accrued - row.committed };
}

export const leaveRequest = handler(c.leaveRequest, async (ctx, p) => {
  if (p.endDate < p.startDate) throw badRequest('endDate', `${p.endDate} is before startDate ${p.startDate}`);
  // The employee row is the lock that serialises balance checks.
  const e = await loadEmployee(ctx.q, ctx.orgId, p.employeeId, true);
  if (e.status !== 'ACTIVE')
    throw new ApiError('CONFLICT', `employee ${e.name} (${e.employee_id}) is ${e.status}: finish the onboarding before requesting leave`);
  if (p.startDate < e.start_date) throw badRequest('startDate', `${p.startDate} is before ${e.name} started (${e.start_date})`);
  const days = daysInclusive(p.startDate, p.endDate);
  const maxHours = e.hours_per_week * Math.ceil(days / 7);
  if (p.hours > maxHours)
    throw badRequest(
      'hours',
      `${p.hours} is more than ${e.name} works in ${days} day${days === 1 ? '' : 's'} (at most ${maxHours} hours at ${e.hours_per_week} a week)`,
    );
  const wanted = Math.round(p.hours * 100);

  const [overlap] = await ctx.q.query<{ leave_id: string; kind: string; start_date: string; end_date: string; status: string }>(
    `SELECT leave_id, kind, start_date, end_date, status FROM books_leave
      WHERE org_id = $1 AND employee_id = $2 AND status IN ('REQUESTED', 'SCHEDULED') AND start_date <= $4::date AND end_date >= $3::date
      ORDER BY n LIMIT 1`,
    [ctx.orgId, e.employee_id, p.startDate, p.endDate],
  );
  if (overlap) {
    throw new ApiError(
      'CONFLICT',
      `${e.name} already has ${overlap.kind} leave ${overlap.leave_id} from ${overlap.start_date} to ${overlap.end_date} (${overlap.status}) overlapping these dates`,
    );
  }

  let balance: { kind: 'ANNUAL' | 'PERSONAL'; accruedHours: number; committedHours: number; availableHours: number } | null = null;
  if (p.kind !== 'UNPAID') {
    const b = await leaveBalance(ctx.q, ctx.orgId, e, p.kind, p.startDate);
    balance = { kind: b.kind, accruedHours: hours(b.accrued), committedHours: hours(b.committed), availableHours: hours(b.available) };
    if (wanted > b.available) {
      throw new ApiError(
        'CONFLICT',
        `${e.name} has ${hours(b.available)} hours of ${p.kind} leave available on ${p.startDate} (${hours(b.accrued)} accrued, ${hours(b.committed)} already requested or scheduled); ${p.hours} requested`,
      );
    }
  }

  const leaveId = newId('lv');
  await ctx.q.query(
    `INSERT INTO books_leave (org_id, leave_id, employee_id, kind, start_date, end_date, hours, status, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7::numeric / 100, 'REQUESTED', $8)`,
    [ctx.orgId, leaveId, e.employee_id, p.kind, p.startDate, p.endDate, wanted, ctx.principal.id],
  );
  const leave = leaveView(await loadLeave(ctx.q, ctx.orgId, leaveId));
  return finish(
    ctx,
    {
      kind: 'books.leave.request',
      entityId: leaveId,
      payload: { leaveId, employeeId: e.employee_id, kind: p.kind, startDate: p.startDate, endDate: p.endDate, hours: leave.hours },
    },
    { leave, balance, changed: true },
    `${e.name} requested ${leave.hours} hours of ${p.kind} leave from ${p.startDate} to ${p.endDate}${balance ? ` (${balance.availableHours} hours were available)` : ''}; it awaits a decision (books.leaveApprove)`,
  );
});

/** Pay runs an approved unpaid leave falls in: a DRAFT must be recalled and drafted again to deduct it. */
async function runsCovering(ctx: HandlerCtx, l: LeaveRow) {
  return ctx.q.query<{ run_id: string; status: string }>(
    `SELECT run_id, status FROM books_pay_runs WHERE org_id = $1 AND status IN ('DRAFT', 'POSTED') AND period_start <= $3::date AND period_end >= $2::date ORDER BY n`,
    [ctx.orgId, l.start_date, l.end_date],
  );
}

export const leaveApprove = handler(c.leaveApprove, async (ctx, p) => {
  const row = await loadLeave(ctx.q, ctx.orgId, p.id, true);
  const status = p.decision === 'approve' ? 'SCHEDULED' : 'REJECTED';
  const label = `${row.kind} leave ${row.leave_id} for ${row.employee_name} (${row.start_date} to ${row.end_date}, ${row.hours} hours)`;
  const event = (payload: Record<string, unknown>) => ({
    kind: 'books.leave.approve',
    entityId: row.leave_id,
    payload: { leaveId: row.leave_id, employeeId: row.employee_id, decision: p.decision, ...payload },
  });
  if (row.status === status) {
    return finish(ctx, event({ status, noop: true }), { leave: leaveView(row), changed: false }, `${label} was already ${status}; nothing changed`);
  }
  if (row.status !== 'REQUESTED') {
    throw new ApiError(
      'CONFLICT',
      `${label} was already ${row.status}; a decision is final: ${row.status === 'SCHEDULED' ? 'request new leave instead of rejecting this one' : 'file a new request (books.leaveRequest)'}`,
    );
  }
  await ctx.q.query(`UPDATE books_leave SET status = $3, note = $4, decided_by = $5, decided_at = now() WHERE org_id = $1 AND leave_id = $2`, [
    ctx.orgId,
    row.leave_id,
    status,
    p.note ?? null,
    ctx.principal.id,
  ]);
  let warning = '';
  if (status === 'SCHEDULED' && row.kind === 'UNPAID') {
    const runs = await runsCovering(ctx, row);
    if (runs.length)
      warning = `; pay run ${runs.map((r) => `${r.run_id} (${r.status})`).join(', ')} already covers these dates without the deduction: recall and redraft a DRAFT, correct a POSTED run in the next one`;
  }
  const leave = leaveView(await loadLeave(ctx.q, ctx.orgId, row.leave_id));
  return finish(
    ctx,
    event({ status, note: p.note ?? null }),
    { leave, changed: true },
    `${p.decision === 'approve' ? 'Approved' : 'Rejected'} ${label}: now ${status}${warning}`,
  );
});
