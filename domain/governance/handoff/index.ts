import { ApiError, badRequest, conflict } from '../../../protocol/errors.js';
import { handoff as c } from '../../../protocol/methods/handoff.js';
import { one } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { getMembers } from '../../people/index.js';
import { describeRight, enforceRights, findRight, readRights, selectsAny, standing, type GoverningAct } from '../rights.js';
import { maxOpenHandoffsOf } from '../compact/index.js';
import { getHandoff, HANDOFF_COLUMNS, isExpired, openOfferFor, pendingOffer, toHandoff, type HandoffRow } from './model.js';
import { holdingOf, transfer, type Holding, type Subject } from './subjects.js';
import { handoffWaiting } from './waiting.js';

/*
 * handoff.*: offer, accept, decline, cancel (all governance-gated: the pipeline answers 423 until rights exist).
 * The offer runs under enforceRights for the act {handoff, area, owner: the subject's holder}: the holder (by the
 * default right, `owner`) or the decider offers; otherwise a hold for the humans who decide. Accept and cancel lock
 * the subject, then the offer (offer locks the subject too): of two at once, one wins and the other meets the
 * changed status. Expiry is read from the clock. Events carry ids and statuses: never the brief or a reason.
 */

const ref = (s: Subject) => `${s.kind} ${s.id}`;
const subjectOf = (r: HandoffRow): Subject => ({ kind: r.subject_kind, id: r.subject_id });
const actOf = (area: string | null | undefined, holding: Holding): GoverningAct => ({ kind: 'handoff', key: area ?? undefined, owner: holding.holder });

/** An answered or expired offer refuses the other answers, naming its state and the way forward. */
function refuseClosed(r: HandoffRow, now: Date): never {
  if (isExpired(r, now)) {
    throw conflict(
      `handoff ${r.handoff_id} expired at ${r.expires_at} unanswered: it is closed; ${r.from_principal} may offer ${ref(subjectOf(r))} again (handoff.offer)`,
    );
  }
  throw conflict(`handoff ${r.handoff_id} is ${r.status} already: it is closed; a new offer of ${ref(subjectOf(r))} starts again (handoff.offer)`);
}

async function answered(ctx: HandlerCtx, r: HandoffRow, kind: 'accept' | 'decline' | 'cancel', now: Date) {
  await ctx.emit(`handoff.offer.${kind}`, r.handoff_id, {
    handoffId: r.handoff_id,
    subjectKind: r.subject_kind,
    subjectId: r.subject_id,
    status: r.status,
    noop: true,
  });
  return { handoff: toHandoff(r, now), changed: false };
}

export const offer = handler(c.offer, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const subject: Subject = p.subject;
  const holding = await holdingOf(ctx.q, ctx.orgId, subject, now, 'FOR UPDATE');
  if (!holding.open) throw conflict(`${ref(subject)} is ${holding.state}: only an open one is handed off`);
  if (p.to === ctx.principal.id) throw badRequest('to', `${p.to} is you: offer it to someone else`);
  if (p.to === holding.holder) throw badRequest('to', `${p.to} holds ${ref(subject)} already`);
  const [member] = await getMembers(ctx.q, ctx.orgId, [p.to]);
  if (!member || member.status !== 'active') throw badRequest('to', `no active member ${p.to} in this org`);
  if (subject.kind === 'escalation' && member.kind !== 'human') throw badRequest('to', 'must be a human: humans answer escalations');

  const area = p.area ?? holding.area;
  const act = actOf(area, holding);
  const resolved = findRight((await readRights(ctx.q, ctx.orgId)).rights, act);
  const perform = resolved.right.perform ?? [];
  if (perform.length > 0 && !(await selectsAny(ctx.q, ctx.orgId, perform, { id: p.to, kind: member.kind }, holding.holder))) {
    throw badRequest('to', `${p.to} is outside the perform selectors (${perform.join(', ')}) of ${describeRight(resolved)}`);
  }
  const open = await openOfferFor(ctx.q, ctx.orgId, subject.kind, subject.id, now);
  if (open) {
    throw conflict(
      `${ref(subject)} has an open offer already (${open.handoff_id} to ${open.to_principal}, expiring ${open.expires_at}): ` +
        `it is accepted, declined or cancelled (handoff.cancel) first, or it expires`,
    );
  }
  // An agent's compact limits its open offers (its own compact's, else the org compact's); a human has no compact.
  const limit = ctx.principal.kind === 'agent' ? await maxOpenHandoffsOf(ctx.q, ctx.orgId, ctx.principal.id) : null;
  if (limit !== null) {
    // Counted and inserted under one lock per offerer, so two offers at once cannot both pass the limit.
    await ctx.q.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [`handoff.offers:${ctx.orgId}`, ctx.principal.id]);
    const row = one(
      await ctx.q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM handoffs WHERE org_id = $1 AND from_principal = $2 AND status = 'offered' AND expires_at > $3`,
        [ctx.orgId, ctx.principal.id, now.toISOString()],
      ),
    );
    if (Number(row.n) >= limit) {
      throw conflict(
        `${ctx.principal.id} has ${row.n} open handoff offer${Number(row.n) === 1 ? '' : 's'}, its compact's maxOpenHandoffs (${limit}): cancel one (handoff.cancel) or wait for answers first`,
      );
    }
  }
  const how = await enforceRights(ctx, act, {
    subjectId: subject.id,
    summary: `Hand off ${ref(subject)} (held by ${holding.holder ?? 'nobody'}) from ${ctx.principal.id} to ${p.to}${area ? ` in area ${area}` : ''}, the offer open ${p.expiresInHours} h`,
    params: p,
  });
  // An expired offer of the subject is closed now, so the new one is the subject's only open offer.
  const expired = await ctx.q.query(
    `UPDATE handoffs SET status = 'expired', closed_at = expires_at
        WHERE org_id = $1 AND subject_kind = $2 AND subject_id = $3 AND status = 'offered' AND expires_at <= $4 RETURNING handoff_id`,
    [ctx.orgId, subject.kind, subject.id, now.toISOString()],
  );
  const row = one(
    await ctx.q.query<HandoffRow>(
      `INSERT INTO handoffs (org_id, handoff_id, subject_kind, subject_id, area, from_principal, to_principal, holder_at_offer, brief,
                             offered_at, expires_at, override, approval_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING ${HANDOFF_COLUMNS}`,
      [
        ctx.orgId,
        newId('hof'),
        subject.kind,
        subject.id,
        area,
        ctx.principal.id,
        p.to,
        holding.holder,
        p.brief,
        now.toISOString(),
        new Date(now.getTime() + p.expiresInHours * 3_600_000).toISOString(),
        how.override,
        how.approvalId,
      ],
    ),
  );
  await ctx.emit('handoff.offer.create', row.handoff_id, {
    handoffId: row.handoff_id,
    subjectKind: subject.kind,
    subjectId: subject.id,
    from: ctx.principal.id,
    to: p.to,
    holder: holding.holder,
    expiresAt: row.expires_at,
    status: row.status,
    override: how.override,
    approvalId: how.approvalId,
    expiredOffers: expired.length,
  });
  return { handoff: toHandoff(row, now), changed: true };
});

/** The offer's subject locked (first: the order every act takes), then the offer. */
async function lockBoth(ctx: HandlerCtx, handoffId: string, now: Date): Promise<{ row: HandoffRow; holding: Holding }> {
  const peek = await getHandoff(ctx.q, ctx.orgId, handoffId);
  const holding = await holdingOf(ctx.q, ctx.orgId, subjectOf(peek), now, 'FOR UPDATE');
  return { row: await getHandoff(ctx.q, ctx.orgId, handoffId, 'FOR UPDATE'), holding };
}

function onlyRecipient(ctx: HandlerCtx, r: HandoffRow, act: string): void {
  if (ctx.principal.id !== r.to_principal) {
    throw new ApiError('CONFLICT', `handoff ${r.handoff_id} is offered to ${r.to_principal}: only they ${act} it; nothing changed`);
  }
}

export const accept = handler(c.accept, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const { row, holding } = await lockBoth(ctx, p.handoffId, now);
  onlyRecipient(ctx, row, 'accept');
  if (row.status === 'accepted') return answered(ctx, row, 'accept', now);
  if (row.status !== 'offered' || isExpired(row, now)) refuseClosed(row, now);
  const subject = subjectOf(row);
  if (!holding.open || holding.holder !== row.holder_at_offer) {
    const now_ = holding.open ? `held by ${holding.holder ?? 'nobody'} now, ${row.holder_at_offer ?? 'nobody'} when offered` : `it is ${holding.state}`;
    throw conflict(
      `${ref(subject)} moved since handoff ${row.handoff_id} was offered (${now_}): the offer no longer stands; ${row.from_principal} cancels it (handoff.cancel) and offers again if still meant`,
    );
  }
  const moved = await transfer(ctx.q, ctx.orgId, subject, row.to_principal, now);
  const updated = one(
    await ctx.q.query<HandoffRow>(
      `UPDATE handoffs SET status = 'accepted', closed_by = $3, closed_at = $4 WHERE org_id = $1 AND handoff_id = $2 RETURNING ${HANDOFF_COLUMNS}`,
      [ctx.orgId, row.handoff_id, ctx.principal.id, now.toISOString()],
    ),
  );
  await ctx.emit('handoff.offer.accept', row.handoff_id, {
    handoffId: row.handoff_id,
    subjectKind: subject.kind,
    subjectId: subject.id,
    from: row.from_principal,
    to: row.to_principal,
    previousHolder: holding.holder,
    status: 'accepted',
    ...moved,
  });
  return { handoff: toHandoff(updated, now), changed: true };
});

async function close(ctx: HandlerCtx, row: HandoffRow, status: 'declined' | 'cancelled', reason: string, now: Date, override = false) {
  const updated = one(
    await ctx.q.query<HandoffRow>(
      `UPDATE handoffs SET status = $3, closed_by = $4, closed_at = $5, reason = $6 WHERE org_id = $1 AND handoff_id = $2 RETURNING ${HANDOFF_COLUMNS}`,
      [ctx.orgId, row.handoff_id, status, ctx.principal.id, now.toISOString(), reason],
    ),
  );
  await ctx.emit(`handoff.offer.${status === 'declined' ? 'decline' : 'cancel'}`, row.handoff_id, {
    handoffId: row.handoff_id,
    subjectKind: row.subject_kind,
    subjectId: row.subject_id,
    status,
    ...(status === 'cancelled' ? { override } : {}),
  });
  return { handoff: toHandoff(updated, now), changed: true };
}

export const decline = handler(c.decline, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const row = await getHandoff(ctx.q, ctx.orgId, p.handoffId, 'FOR UPDATE');
  onlyRecipient(ctx, row, 'decline');
  if (row.status === 'declined') return answered(ctx, row, 'decline', now);
  if (row.status !== 'offered' || isExpired(row, now)) refuseClosed(row, now);
  return close(ctx, row, 'declined', p.reason, now);
});

export const cancel = handler(c.cancel, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const { row, holding } = await lockBoth(ctx, p.handoffId, now);
  let override = false;
  if (ctx.principal.id !== row.from_principal) {
    // Anyone else cancels as the handoff's decider for the subject as it is held now.
    const resolved = findRight((await readRights(ctx.q, ctx.orgId)).rights, actOf(row.area, holding));
    const st = await standing(ctx.q, ctx.orgId, ctx.principal, resolved);
    if (!st.satisfies) {
      throw new ApiError(
        'CONFLICT',
        `only its offerer ${row.from_principal} or the handoff's decider (${describeRight(resolved)}) cancels handoff ${row.handoff_id}; nothing changed: ask one of them`,
      );
    }
    override = st.override;
  }
  if (row.status === 'cancelled') return answered(ctx, row, 'cancel', now);
  if (row.status !== 'offered' || isExpired(row, now)) refuseClosed(row, now);
  return close(ctx, row, 'cancelled', p.reason, now, override);
});

export const handoffHandlers = family('handoff', { offer, accept, decline, cancel });

/** The handoff family, as domain/deployed.ts lists it. */
export const handoffFamily: Family = {
  name: 'handoff',
  methods: handoffHandlers,
  contributes: { waiting: handoffWaiting, taskOffer: (q, orgId, taskId, now) => pendingOffer(q, orgId, 'task', taskId, now) },
};
