import { ApiError, badRequest, conflict } from '../../../protocol/errors.js';
import { invitation as c } from '../../../protocol/methods/invitation.js';
import { one, type Queryable } from '../../../db/types.js';
import { requireSeat } from '../billing/index.js';
import { family, type Family } from '../../core/family.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { laneHold } from '../member/lane.js';
import { checkManager, checkTeams, checkUnique, getMember, lockPeople, newMemberHandle, setTeams, toMember, type MemberRow } from '../member/model.js';
import { findOrgById } from '../org/service.js';
import {
  INVITATION_COLUMNS,
  INVITATION_TTL_MS,
  RESENDS_PER_DAY,
  acceptUrl,
  getInvitation,
  invitationMail,
  newToken,
  sendAfterCommit,
  toInvitation,
  type InvitationRow,
} from './model.js';

export { revokeInvitationsOf } from './model.js';

/*
 * invitation.create / resend / revoke. Events carry ids, the role, statuses, counts and versions: never the
 * address, the message or the link (the ledger cannot forget them; the mail goes to SMTP only, after commit).
 * Acceptance is the /join page's act (accept.ts).
 */

/** dan.ortega@… -> Dan Ortega: a display name until the member changes it. */
export function nameFromEmail(email: string): string {
  const words = email
    .split('@')[0]
    .split(/[._+-]+/)
    .filter(Boolean);
  return words.map((w) => w[0].toUpperCase() + w.slice(1)).join(' ') || email.split('@')[0];
}

async function liveKeys(q: Queryable, orgId: string, memberId: string): Promise<number> {
  const row = one(
    await q.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND principal_id = $2 AND revoked_at IS NULL', [orgId, memberId]),
  );
  return Number(row.n);
}

async function pendingFor(q: Queryable, orgId: string, email: string): Promise<InvitationRow | undefined> {
  const [row] = await q.query<InvitationRow>(
    `SELECT ${INVITATION_COLUMNS} FROM invitations WHERE org_id = $1 AND lower(email) = lower($2) AND status = 'pending'`,
    [orgId, email],
  );
  return row;
}

/** The member an invitation may give access to: a human without access, not suspended or gone; else CONFLICT naming the fix. */
async function linkable(ctx: HandlerCtx, row: MemberRow, field: string): Promise<void> {
  if (row.kind !== 'human') throw badRequest(field, `${row.principal_id} is an agent: agents get keys by pairing (pairing.approve), not invitations`);
  const keys = await liveKeys(ctx.q, ctx.orgId, row.principal_id);
  if (keys > 0)
    throw conflict(`${field}: member ${row.principal_id} already has access (${keys} live API key(s)); change its role with user.updateRole instead`);
  if (row.status !== 'active' && row.status !== 'invited') {
    throw conflict(`${field}: member ${row.principal_id} is ${row.status}; reactivate it (admin.reactivate) instead of inviting it`);
  }
}

export const create = handler(c.create, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  // The member: the one named, else the one who already has this address, else a new one (status invited).
  let target: MemberRow | undefined;
  if (p.memberId !== undefined) {
    target = await getMember(ctx.q, ctx.orgId, p.memberId, 'FOR UPDATE OF p');
    await linkable(ctx, target, 'memberId');
    if (target.email !== null && target.email.toLowerCase() !== p.email.toLowerCase()) {
      throw badRequest('email', `member ${p.memberId} has another email address; invite that one, or change it first (member.update)`);
    }
    if (target.email === null) await checkUnique(ctx.q, ctx.orgId, p.memberId, 'email', p.email);
  } else {
    const [holder] = await ctx.q.query<{ principal_id: string }>('SELECT principal_id FROM principals WHERE org_id = $1 AND lower(email) = lower($2)', [
      ctx.orgId,
      p.email,
    ]);
    if (holder) {
      target = await getMember(ctx.q, ctx.orgId, holder.principal_id, 'FOR UPDATE OF p');
      await linkable(ctx, target, 'email');
    }
  }
  const pending = await pendingFor(ctx.q, ctx.orgId, p.email);
  if (pending && !pending.expired) {
    throw conflict(
      `email: invitation ${pending.invitation_id} to this address is pending until ${new Date(pending.expires_at).toISOString()}; resend it (invitation.resend) or revoke it first`,
    );
  }
  if (p.managerId !== undefined) await checkManager(ctx.q, ctx.orgId, target?.principal_id ?? null, p.managerId);
  if (p.teamIds !== undefined) await checkTeams(ctx.q, ctx.orgId, p.teamIds, 'teamIds');
  // Seats last among the checks: its lock is held to commit, taken after the people lock like every path.
  await requireSeat(ctx.q, ctx.orgId, 'human', 'email');
  // An agent grants access only with a human's approval (docs/families/people.md, Agent lane).
  const proof = laneHold(ctx.principal, 'invitation.create')
    ? await ctx.requireSignature({
        actionClass: 'invitation.create',
        subjectId: target?.principal_id ?? ctx.orgId,
        summary: `Invite ${p.email} to join as ${p.role}${target ? ` (member ${target.principal_id})` : ''}`,
        params: p,
      })
    : null;

  // An expired invitation to this address is superseded by the new one (its link was dead already).
  if (pending) {
    await ctx.q.query(
      `UPDATE invitations SET status = 'revoked', revoked_at = now(), version = version + 1, updated_at = now() WHERE org_id = $1 AND invitation_id = $2`,
      [ctx.orgId, pending.invitation_id],
    );
  }
  let memberId: string;
  const createdMember = target === undefined;
  if (target) {
    memberId = target.principal_id;
    await ctx.q.query(
      `UPDATE principals SET role = $3, email = coalesce(email, $4), manager_id = coalesce($5, manager_id), version = version + 1, updated_at = now()
          WHERE org_id = $1 AND principal_id = $2`,
      [ctx.orgId, memberId, p.role, p.email, p.managerId ?? null],
    );
  } else {
    memberId = newId('usr');
    const name = p.name ?? nameFromEmail(p.email);
    const handle = await newMemberHandle(ctx.q, ctx.orgId, name);
    await ctx.q.query(
      `INSERT INTO principals (org_id, principal_id, kind, name, handle, email, manager_id, status, role)
         VALUES ($1, $2, 'human', $3, $4, $5, $6, 'invited', $7)`,
      [ctx.orgId, memberId, name, handle, p.email, p.managerId ?? null, p.role],
    );
  }
  if (p.teamIds !== undefined) await setTeams(ctx.q, ctx.orgId, memberId, p.teamIds);
  const invitationId = newId('ivt');
  const { token, hash } = newToken(ctx.orgId, invitationId);
  const row = one(
    await ctx.q.query<InvitationRow>(
      `INSERT INTO invitations (org_id, invitation_id, member_id, email, role, token_hash, expires_at, created_member, invited_by)
       VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7::double precision / 1000), $8, $9)
       RETURNING ${INVITATION_COLUMNS}`,
      [ctx.orgId, invitationId, memberId, p.email, p.role, hash, INVITATION_TTL_MS, createdMember, ctx.principal.id],
    ),
  );
  const m = toMember(await getMember(ctx.q, ctx.orgId, memberId));
  const inv = toInvitation(row);
  const url = acceptUrl(ctx.deps, token);
  const org = await findOrgById(ctx.q, ctx.orgId);
  const mail = invitationMail(ctx.deps, {
    orgName: org?.name ?? ctx.principal.orgSlug,
    to: p.email,
    inviterName: ctx.principal.name,
    role: p.role,
    message: p.message,
    url,
    expiresAt: inv.expiresAt,
  });
  sendAfterCommit(ctx.deps, (fn) => ctx.afterCommit(fn), mail, { orgId: ctx.orgId, invitationId });
  await ctx.emit('invitation.invite.create', invitationId, {
    invitationId,
    memberId,
    role: p.role,
    createdMember,
    memberStatus: m.status,
    ...(pending ? { superseded: pending.invitation_id } : {}),
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { invitation: inv, member: m, acceptUrl: url, changed: true };
});

export const resend = handler(c.resend, async (ctx, p) => {
  // The people lock first, as invitation.create takes it before the seats and the rows it supersedes.
  await lockPeople(ctx.q, ctx.orgId);
  const row = await getInvitation(ctx.q, ctx.orgId, p.invitationId, 'FOR UPDATE');
  if (row.status === 'accepted') throw conflict(`invitation ${p.invitationId} was accepted: its member has access already`);
  if (row.status === 'revoked') throw conflict(`invitation ${p.invitationId} was revoked; create a new one (invitation.create)`);
  const dayAgo = Date.now() - 24 * 60 * 60 * 1000;
  const recent = row.resend_times
    .map((t) => new Date(t).getTime())
    .filter((t) => t > dayAgo)
    .sort((a, b) => a - b);
  if (recent.length >= RESENDS_PER_DAY) {
    const seconds = Math.max(1, Math.ceil((recent[0] + 24 * 60 * 60 * 1000 - Date.now()) / 1000));
    throw new ApiError(
      'RATE_LIMITED',
      `rate limited: invitation ${p.invitationId} was resent ${RESENDS_PER_DAY} times in 24 hours; retry in ${seconds} seconds`,
      {
        retryAfterSeconds: seconds,
      },
    );
  }
  // An expired invitation held no seat: renewing it takes one again.
  if (row.expired) await requireSeat(ctx.q, ctx.orgId, 'human', 'invitationId');
  const { token, hash } = newToken(ctx.orgId, p.invitationId);
  const updated = one(
    await ctx.q.query<InvitationRow>(
      `UPDATE invitations SET token_hash = $3, expires_at = now() + make_interval(secs => $4::double precision / 1000), sends = sends + 1,
            resend_times = array_append(array(SELECT t FROM unnest(resend_times) t WHERE t > now() - interval '24 hours'), now()),
            version = version + 1, updated_at = now()
      WHERE org_id = $1 AND invitation_id = $2 RETURNING ${INVITATION_COLUMNS}`,
      [ctx.orgId, p.invitationId, hash, INVITATION_TTL_MS],
    ),
  );
  const inv = toInvitation(updated);
  const url = acceptUrl(ctx.deps, token);
  const org = await findOrgById(ctx.q, ctx.orgId);
  const mail = invitationMail(ctx.deps, {
    orgName: org?.name ?? ctx.principal.orgSlug,
    to: row.email,
    inviterName: ctx.principal.name,
    role: row.role,
    url,
    expiresAt: inv.expiresAt,
  });
  sendAfterCommit(ctx.deps, (fn) => ctx.afterCommit(fn), mail, { orgId: ctx.orgId, invitationId: p.invitationId });
  await ctx.emit('invitation.invite.resend', p.invitationId, {
    invitationId: p.invitationId,
    memberId: row.member_id,
    sends: inv.sends,
    wasExpired: row.expired,
    version: inv.version,
  });
  return { invitation: inv, acceptUrl: url, changed: true };
});

export const revoke = handler(c.revoke, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const row = await getInvitation(ctx.q, ctx.orgId, p.invitationId, 'FOR UPDATE');
  if (row.status === 'accepted')
    throw conflict(`invitation ${p.invitationId} was accepted: its member has access; cut it with user.deactivate or admin.deactivate`);
  if (row.status === 'revoked') {
    await ctx.emit('invitation.invite.revoke', p.invitationId, {
      invitationId: p.invitationId,
      memberId: row.member_id,
      status: 'revoked',
      version: Number(row.version),
      noop: true,
    });
    return { invitation: toInvitation(row), changed: false };
  }
  const updated = one(
    await ctx.q.query<InvitationRow>(
      `UPDATE invitations SET status = 'revoked', revoked_at = now(), version = version + 1, updated_at = now()
      WHERE org_id = $1 AND invitation_id = $2 RETURNING ${INVITATION_COLUMNS}`,
      [ctx.orgId, p.invitationId],
    ),
  );
  // A member made for this invitation never joined: it leaves the directory, and its address is let go so the
  // same person can be invited again (and is not kept for someone who never came).
  let archived = false;
  if (row.created_member) {
    const member = await getMember(ctx.q, ctx.orgId, row.member_id, 'FOR UPDATE OF p');
    if (member.status === 'invited') {
      archived = true;
      // Out of the chart as member.archive does it: its reports move up to its manager, it leads and joins no team.
      await ctx.q.query('UPDATE principals SET manager_id = $3, version = version + 1, updated_at = now() WHERE org_id = $1 AND manager_id = $2', [
        ctx.orgId,
        row.member_id,
        member.manager_id,
      ]);
      await ctx.q.query('UPDATE teams SET lead_id = NULL, version = version + 1, updated_at = now() WHERE org_id = $1 AND lead_id = $2', [
        ctx.orgId,
        row.member_id,
      ]);
      await setTeams(ctx.q, ctx.orgId, row.member_id, []);
      await ctx.q.query(
        `UPDATE principals SET status = 'archived', email = NULL, manager_id = NULL, version = version + 1, updated_at = now() WHERE org_id = $1 AND principal_id = $2`,
        [ctx.orgId, row.member_id],
      );
    }
  }
  const inv = toInvitation(updated);
  await ctx.emit('invitation.invite.revoke', p.invitationId, {
    invitationId: p.invitationId,
    memberId: row.member_id,
    from: row.expired ? 'expired' : 'pending',
    memberArchived: archived,
    version: inv.version,
  });
  return { invitation: inv, changed: true };
});

export const invitationHandlers = family('invitation', { create, resend, revoke });

/** The invitation family, as domain/deployed.ts lists it. */
export const invitationFamily: Family = { name: 'invitation', methods: invitationHandlers };
