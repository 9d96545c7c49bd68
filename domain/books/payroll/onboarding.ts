import { badRequest } from '../../../protocol/errors.js';
import { ONBOARDING_STEPS, payroll as c } from '../../../protocol/methods/books/payroll.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { today } from '../dates.js';
import { finish } from '../outcome.js';
import { employeeView, loadEmployee, loadOnboarding, onboardingView, rateLabel, stepDoneAt, type Step } from './model.js';
import { changeFund, endFormer, saveFund, superChanged, tidy } from './super-fund.js';
import { changeDeclaration, declarationChanged, saveDeclaration } from './declaration.js';

/**
 * Onboarding: a new employee is PENDING until four steps are done (tfn, super, bank, contract); the contract
 * step needs a human signature. Events carry which step was done, never the TFN or account numbers.
 */

async function views(ctx: HandlerCtx, onboardingId: string) {
  const onboarding = await loadOnboarding(ctx.q, ctx.orgId, onboardingId);
  const employee = await loadEmployee(ctx.q, ctx.orgId, onboarding.employee_id);
  return { onboarding: onboardingView(onboarding, employee), employee: employeeView(employee) };
}

export const onboardingStart = handler(c.onboardingStart, async (ctx, p) => {
  const employeeId = newId('emp');
  const onboardingId = newId('onb');
  const name = tidy(p.person);
  const role = tidy(p.role);
  if (!name) throw badRequest('person', 'must not be blank');
  if (!role) throw badRequest('role', 'must not be blank');
  // A re-employment ends the former record (no exit act exists); the new record's first pay has 20 business days.
  const former = p.rehireOf ? await endFormer(ctx, p.rehireOf, p.startDate) : null;
  await ctx.q.query(
    `INSERT INTO books_employees (org_id, employee_id, name, email, role, start_date, status, pay_basis, rate_cents, hours_per_week, created_by, rehire_of)
     VALUES ($1, $2, $3, $4, $5, $6, 'PENDING', $7, $8, $9, $10, $11)`,
    [
      ctx.orgId,
      employeeId,
      name,
      p.email ?? null,
      role,
      p.startDate,
      p.rate.basis,
      p.rate.amountCents,
      p.rate.hoursPerWeek,
      ctx.principal.id,
      former?.employee_id ?? null,
    ],
  );
  await ctx.q.query(`INSERT INTO books_onboardings (org_id, onboarding_id, employee_id, status, created_by) VALUES ($1, $2, $3, 'PENDING', $4)`, [
    ctx.orgId,
    onboardingId,
    employeeId,
    ctx.principal.id,
  ]);
  const v = await views(ctx, onboardingId);
  return finish(
    ctx,
    {
      kind: 'books.onboarding.start',
      entityId: onboardingId,
      payload: {
        onboardingId,
        employeeId,
        name,
        role,
        startDate: p.startDate,
        basis: p.rate.basis,
        amountCents: p.rate.amountCents,
        hoursPerWeek: p.rate.hoursPerWeek,
        rehireOf: former?.employee_id ?? null,
      },
    },
    { ...v, changed: true },
    `Started onboarding ${onboardingId} for ${name}${former ? ` (re-employed: former record ${former.employee_id} has ENDED and is no longer paid; the first pay has 20 business days for super)` : ''} (${role} from ${p.startDate}, ${rateLabel({ pay_basis: p.rate.basis, rate_cents: p.rate.amountCents, hours_per_week: p.rate.hoursPerWeek })}); steps to do: tfn, super, bank and contract (books.onboardingAdvance)`,
  );
});

export const onboardingAdvance = handler(c.onboardingAdvance, async (ctx, p) => {
  const row = await loadOnboarding(ctx.q, ctx.orgId, p.id, true);
  const emp = await loadEmployee(ctx.q, ctx.orgId, row.employee_id, true);
  const event = (payload: Record<string, unknown>) => ({
    kind: 'books.onboarding.advance',
    entityId: row.onboarding_id,
    payload: { onboardingId: row.onboarding_id, employeeId: emp.employee_id, step: p.step, ...payload },
  });
  const doneAt = stepDoneAt(row, p.step);
  // The super step again with other details: a change of fund (super-fund.ts); the tfn step, a new declaration.
  if (doneAt && p.step === 'super' && superChanged(emp, p.data)) return changeFund(ctx, row.onboarding_id, emp, p.data, () => views(ctx, row.onboarding_id));
  if (doneAt && p.step === 'tfn' && declarationChanged(emp, p.data))
    return changeDeclaration(ctx, row.onboarding_id, emp, p.data, () => views(ctx, row.onboarding_id));
  if (doneAt) {
    // A done step is never redone: a replay, or details that were already recorded. A proof given anyway is
    // checked (another act's: CONFLICT; a used one: refused), never consumed.
    if (p.step === 'contract') await ctx.verifyProof({ actionClass: 'books.onboarding_advance', subjectId: row.onboarding_id, summary: '', params: p });
    return finish(
      ctx,
      event({ noop: true }),
      { ...(await views(ctx, row.onboarding_id)), approvalId: p.step === 'contract' ? row.contract_approval_id : null, changed: false },
      `Step ${p.step} of onboarding ${row.onboarding_id} (${emp.name}) was already done at ${doneAt}; nothing changed`,
    );
  }

  let approvalId: string | null = null;
  let detail: Record<string, unknown> = {};
  let note = '';
  switch (p.step) {
    case 'tfn': {
      const { scale, why, ...d } = await saveDeclaration(ctx, emp.employee_id, p.data);
      note = ` (PAYG scale ${scale}: ${why})`;
      detail = {
        tfnProvided: d.tfn !== null,
        claimsTaxFreeThreshold: d.claimsTaxFreeThreshold,
        residency: d.residency,
        medicareLevyVariation: d.medicareLevyVariation,
        paygScale: scale,
      };
      break;
    }
    case 'super':
      detail = { fundName: await saveFund(ctx, emp.employee_id, p.data), usi: p.data.usi };
      break;
    case 'bank':
      await ctx.q.query(
        `UPDATE books_employees SET bank_bsb = $3, bank_account = $4, bank_account_name = $5, updated_at = now()
            WHERE org_id = $1 AND employee_id = $2`,
        [ctx.orgId, emp.employee_id, p.data.bsb, p.data.accountNumber, tidy(p.data.accountName)],
      );
      break;
    case 'contract': {
      const now = today(ctx.deps);
      if (p.data.signedOn > now) throw badRequest('data.signedOn', `${p.data.signedOn} is in the future; record the contract once it is signed`);
      // Validated first, so a hold is only ever filed for an act that could run.
      const proof = await ctx.requireSignature({
        actionClass: 'books.onboarding_advance',
        subjectId: row.onboarding_id,
        summary: `Employment contract ${p.data.contractRef} for ${emp.name} as ${emp.role}, starting ${emp.start_date} at ${rateLabel(emp)}`,
        params: p,
      });
      approvalId = proof.approvalId;
      await ctx.q.query(
        `UPDATE books_onboardings SET contract_ref = $3, contract_signed_on = $4, contract_approval_id = $5 WHERE org_id = $1 AND onboarding_id = $2`,
        [ctx.orgId, row.onboarding_id, p.data.contractRef, p.data.signedOn, approvalId],
      );
      detail = { contractRef: p.data.contractRef, signedOn: p.data.signedOn, approvalId };
      break;
    }
  }

  // The row is locked: the act completes the onboarding when the other three steps were already done.
  const remaining = ONBOARDING_STEPS.filter((st: Step) => st !== p.step && stepDoneAt(row, st) === null);
  const completed = remaining.length === 0;
  await ctx.q.query(
    `UPDATE books_onboardings SET ${p.step}_done_at = now(), status = $3, completed_at = CASE WHEN $4 THEN now() END WHERE org_id = $1 AND onboarding_id = $2`,
    [ctx.orgId, row.onboarding_id, completed ? 'COMPLETED' : 'PENDING', completed],
  );
  if (completed) {
    await ctx.q.query(`UPDATE books_employees SET status = 'ACTIVE', updated_at = now() WHERE org_id = $1 AND employee_id = $2`, [ctx.orgId, emp.employee_id]);
  }
  const v = await views(ctx, row.onboarding_id);
  return finish(
    ctx,
    event({ ...detail, completed, employeeStatus: v.employee.status }),
    { ...v, approvalId, changed: true },
    completed
      ? `Onboarding ${row.onboarding_id} COMPLETED with the ${p.step} step${note}: ${emp.name} is ACTIVE and paid by pay runs from ${emp.start_date}`
      : `Step ${p.step} of onboarding ${row.onboarding_id} (${emp.name}) done${note}${approvalId ? ` under approval ${approvalId}` : ''}; still to do: ${remaining.join(', ')}`,
  );
});
