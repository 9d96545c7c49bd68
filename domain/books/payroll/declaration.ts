import { ApiError } from '../../../protocol/errors.js';
import type { HandlerCtx } from '../../core/handler.js';
import { today } from '../dates.js';
import { finish } from '../outcome.js';
import { employeePaygDeclaration, type EmployeeRow } from './model.js';
import { paygScale, type MedicareLevyVariation } from './payg.js';
import type { Residency } from '../rates/payg-schedule.js';

/*
 * The tfn step again, with another declaration: an employee who declared no TFN gives one later (scale 4 ends), or
 * makes a new TFN or Medicare levy variation declaration. It takes effect for pay runs drafted from now; runs
 * already drafted keep the scale they were drafted with (recall and draft again to apply it). The TFN itself is
 * stored, never written to the ledger.
 */

export interface TfnDeclaration {
  tfn: string | null;
  claimsTaxFreeThreshold?: boolean;
  residency: Residency;
  medicareLevyVariation: MedicareLevyVariation;
}

/** The declaration as stored: no TFN is never a claimed threshold, so nothing reads it as scale 2. */
export const normalised = (d: TfnDeclaration) => ({ ...d, claimsTaxFreeThreshold: d.tfn === null ? false : d.claimsTaxFreeThreshold === true });

/** Whether `d` differs from what the employee declared (the same declaration again is a replay). */
export function declarationChanged(emp: EmployeeRow, d: TfnDeclaration): boolean {
  const n = normalised(d);
  return (
    emp.tfn !== n.tfn ||
    emp.claims_tax_free_threshold !== n.claimsTaxFreeThreshold ||
    emp.residency !== n.residency ||
    emp.medicare_levy_variation !== n.medicareLevyVariation
  );
}

/** Store the declaration on the employee (the tfn step, first or again): what was stored and the scale it gives. */
export async function saveDeclaration(ctx: HandlerCtx, employeeId: string, d: TfnDeclaration) {
  const n = normalised(d);
  await ctx.q.query(
    `UPDATE books_employees SET tfn = $3, claims_tax_free_threshold = $4, residency = $5, medicare_levy_variation = $6, updated_at = now()
      WHERE org_id = $1 AND employee_id = $2`,
    [ctx.orgId, employeeId, n.tfn, n.claimsTaxFreeThreshold, n.residency, n.medicareLevyVariation],
  );
  return {
    ...n,
    ...paygScale({
      tfnProvided: n.tfn !== null,
      residency: n.residency,
      claimsTaxFreeThreshold: n.claimsTaxFreeThreshold,
      medicareLevyVariation: n.medicareLevyVariation,
    }),
  };
}

/** Record the new declaration from today (business time); the answer names the scale before and after. */
export async function changeDeclaration<V extends object>(
  ctx: HandlerCtx,
  onboardingId: string,
  emp: EmployeeRow,
  d: TfnDeclaration,
  views: () => Promise<V>,
): Promise<unknown> {
  if (emp.status === 'ENDED')
    throw new ApiError(
      'CONFLICT',
      `employee ${emp.employee_id} (${emp.name}) has ENDED (re-employed under a new record); record the declaration on the current record`,
    );
  const before = paygScale(employeePaygDeclaration(emp));
  const n = await saveDeclaration(ctx, emp.employee_id, d);
  const after = { scale: n.scale, why: n.why };
  const changedOn = today(ctx.deps);
  const scales =
    before.scale === after.scale
      ? `PAYG stays on scale ${after.scale} (${after.why})`
      : `PAYG moves from scale ${before.scale} (${before.why}) to scale ${after.scale} (${after.why})`;
  return finish(
    ctx,
    {
      kind: 'books.onboarding.advance',
      entityId: onboardingId,
      payload: {
        onboardingId,
        employeeId: emp.employee_id,
        step: 'tfn',
        declarationChange: true,
        tfnProvided: n.tfn !== null,
        claimsTaxFreeThreshold: n.claimsTaxFreeThreshold,
        residency: n.residency,
        medicareLevyVariation: n.medicareLevyVariation,
        paygScale: after.scale,
        previousPaygScale: before.scale,
        changedOn,
      },
    },
    { ...(await views()), approvalId: null, changed: true },
    `Recorded ${emp.name}'s new TFN declaration from ${changedOn}: ${scales} for pay runs drafted from now; a run already drafted keeps its scale (books.payrollRecall it and draft again to apply this)`,
  );
}
