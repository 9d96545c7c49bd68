import { conflict } from '../../../protocol/errors.js';
import { admin as c } from '../../../protocol/methods/admin.js';
import { requireSeat } from '../billing/seats.js';
import { heldWork } from '../held-work.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { laneHold, laneSignature } from '../member/lane.js';
import { lockPeople } from '../member/model.js';
import { lockAccess, refuseLastAdmin, refuseSelf, setStatus, toAccess } from '../user/access.js';
import { endInboxSessions } from '../user/inbox-sessions.js';

/*
 * admin.*: the kill switch. Suspending blocks a member's keys at once without revoking them (the authentication
 * statement admits active members only), so reactivating restores exactly the access it had. Cutting an agent's
 * access never waits for anyone; an agent suspending a human, or giving access back, holds for a human to decide
 * (the agent lane, domain/people/member/lane.ts).
 */

export const deactivate = handler(c.deactivate, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await lockAccess(ctx.q, ctx.orgId, p.memberId);
  if (row.status === 'suspended') {
    await ctx.emit('admin.member.deactivate', p.memberId, { memberId: p.memberId, status: row.status, version: Number(row.version), noop: true });
    return { member: toAccess(row), released: { claims: 0, sessions: 0 }, changed: false };
  }
  refuseSelf(row, ctx.principal.id, 'suspend');
  if (row.status !== 'active') {
    const fix = row.status === 'invited' ? 'revoke its invitation (invitation.revoke)' : 'admin.reactivate gives access back';
    throw conflict(`member ${p.memberId} is ${row.status}: it has no access to suspend; ${fix}`);
  }
  await refuseLastAdmin(ctx.q, ctx.orgId, row, `suspend ${p.memberId}`);
  // The agent lane (domain/people/member/lane.ts): an agent's access is cut at once (the kill switch); a human's by a human.
  await laneSignature(ctx, row.kind === 'human', {
    subjectId: p.memberId,
    summary: `Suspend ${row.name} (${p.memberId}), a human: ${Number(row.live_keys)} key${Number(row.live_keys) === 1 ? '' : 's'} blocked at once, board claims released`,
    params: p,
    completion: 'release',
  });
  const released = {
    claims: await heldWork(ctx.deps.families).releaseClaims(ctx.q, ctx.orgId, p.memberId),
    sessions: await endInboxSessions(ctx.q, ctx.orgId, p.memberId),
  };
  await setStatus(ctx.q, ctx.orgId, p.memberId, 'suspended', p.reason, ctx.principal.id);
  const after = await lockAccess(ctx.q, ctx.orgId, p.memberId);
  await ctx.emit('admin.member.deactivate', p.memberId, {
    memberId: p.memberId,
    kind: row.kind,
    from: row.status,
    status: 'suspended',
    keysBlocked: Number(row.live_keys),
    claimsReleased: released.claims,
    sessionsEnded: released.sessions,
    version: Number(after.version),
  });
  return { member: toAccess(after), released, changed: true };
});

export const reactivate = handler(c.reactivate, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await lockAccess(ctx.q, ctx.orgId, p.memberId);
  const keys = Number(row.live_keys);
  const hold = {
    actionClass: 'admin.reactivate',
    subjectId: p.memberId,
    summary: `Reactivate ${row.kind === 'agent' ? 'the agent ' : ''}${row.name} (${p.memberId}), now ${row.status}: ${keys} kept key${keys === 1 ? '' : 's'} work again`,
    params: p,
  };
  if (row.status === 'active') {
    if (laneHold(ctx.principal, 'admin.reactivate')) await ctx.verifyProof(hold);
    await ctx.emit('admin.member.reactivate', p.memberId, { memberId: p.memberId, status: row.status, version: Number(row.version), noop: true });
    return { member: toAccess(row), changed: false };
  }
  if (row.status === 'invited')
    throw conflict(`member ${p.memberId} is invited: it becomes active by accepting its invitation (invitation.resend sends a new link)`);
  // A member with kept keys takes a seat again the moment it is active; one without keys is free until minted one.
  if (keys > 0) await requireSeat(ctx.q, ctx.orgId, row.kind, 'memberId');
  const proof = laneHold(ctx.principal, 'admin.reactivate') ? await ctx.requireSignature(hold) : null;
  await setStatus(ctx.q, ctx.orgId, p.memberId, 'active', p.reason ?? null, ctx.principal.id);
  const after = await lockAccess(ctx.q, ctx.orgId, p.memberId);
  await ctx.emit('admin.member.reactivate', p.memberId, {
    memberId: p.memberId,
    kind: row.kind,
    from: row.status,
    status: 'active',
    keysRestored: keys,
    version: Number(after.version),
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { member: toAccess(after), changed: true };
});

export const adminHandlers = family('admin', { deactivate, reactivate });

/** The admin family, as domain/deployed.ts lists it. */
export const adminFamily: Family = { name: 'admin', methods: adminHandlers };
