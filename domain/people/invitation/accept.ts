import { ApiError, conflict } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { appendEvent } from '../../../ledger/append.js';
import type { Deps } from '../../core/deps.js';
import { getMember } from '../member/model.js';
import { mintKey } from '../org/keys.js';
import { findOrgById } from '../org/service.js';
import { addressBucket, count, hmac } from '../pairing/limits.js';
import { INVITATION_COLUMNS, parseToken, tokenMatches, toInvitation, type InvitationRow, type ParsedToken } from './model.js';

/*
 * The /join page's two acts, for someone who holds a link and no key. Acceptance is not a registry method (the
 * registry has no invitation.accept): the gateway runs it here, in one transaction that appends
 * `invitation.invite.accept` through the same ledger append the pipeline uses, with the new member as actor.
 * Every view and accept is counted per source address before the token is looked at, so guessing tokens is
 * bounded across all processes (the links' secrets are 206 bits besides).
 */

export const JOIN_PER_ADDRESS_PER_MINUTE = 30;

async function limitJoin(deps: Deps, source: string | undefined): Promise<void> {
  if (!source) return;
  await count(deps.db, [
    {
      bucket: `join:${hmac(deps.signingKey, 'join-address', addressBucket(source))}`,
      windowMs: 60_000,
      max: JOIN_PER_ADDRESS_PER_MINUTE,
      refusal: `at most ${JOIN_PER_ADDRESS_PER_MINUTE} invitation links a minute from one address`,
    },
  ]);
}

// Malformed, unknown, of another org, or replaced by a resend: one answer, so a link tells nothing it does not hold.
const invalidLink = () =>
  new ApiError(
    'NOT_FOUND',
    'this invitation link is not valid: use the whole link from the newest invitation mail (resending makes older links stop working), or ask whoever invited you for a new one',
  );

async function find(q: Queryable, token: unknown, lock = ''): Promise<{ t: ParsedToken; row: InvitationRow }> {
  const t = parseToken(token);
  if (!t) throw invalidLink();
  const [row] = await q.query<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE org_id = $1 AND invitation_id = $2 ${lock}`, [
    t.orgId,
    t.invitationId,
  ]);
  if (!row || !tokenMatches(row, t.secret)) throw invalidLink();
  return { t, row };
}

export interface JoinView {
  state: 'pending' | 'expired' | 'revoked' | 'accepted';
  org: { name: string; slug: string };
  role: string;
  email: string;
  memberName: string;
  inviterName: string;
  expiresAt: string;
}

/** What the page shows for a link: whose invitation, to which org, and its state (expired, revoked and used ones too). */
export async function viewInvitation(deps: Deps, token: unknown, source: string | undefined): Promise<JoinView> {
  await limitJoin(deps, source);
  const { t, row } = await find(deps.db, token);
  const org = await findOrgById(deps.db, t.orgId);
  if (!org) throw invalidLink();
  const [member, inviter] = await Promise.all([getMember(deps.db, t.orgId, row.member_id), getMember(deps.db, t.orgId, row.invited_by).catch(() => undefined)]);
  const inv = toInvitation(row);
  return {
    state: inv.status,
    org: { name: org.name, slug: org.slug },
    role: row.role,
    email: row.email,
    memberName: member.name,
    inviterName: inviter?.name ?? 'an admin',
    expiresAt: inv.expiresAt,
  };
}

export interface Accepted {
  org: { name: string; slug: string };
  memberId: string;
  role: string;
  keyId: string;
  apiKey: string;
  scopes: string[];
}

/** Accept: the member becomes active with its role, and one key of that role is minted and returned (shown once). */
export async function acceptInvitation(deps: Deps, token: unknown, source: string | undefined): Promise<Accepted> {
  await limitJoin(deps, source);
  const { accepted, orgId, seq } = await deps.db.tx(async (q) => {
    const { t, row } = await find(q, token, 'FOR UPDATE');
    const org = await findOrgById(q, t.orgId);
    if (!org) throw invalidLink();
    const ask = `ask an admin of ${org.name}`;
    if (row.status === 'accepted')
      throw conflict(
        `this invitation was already accepted: its key was shown once on this page. If it was lost, ${ask} to mint you a new one (settings.mintApiKey)`,
      );
    if (row.status === 'revoked') throw conflict(`this invitation was withdrawn; ${ask} to invite you again`);
    if (row.expired) throw conflict(`this invitation expired on ${toInvitation(row).expiresAt}; ${ask} to resend it (you will get a new link)`);
    const member = await getMember(q, t.orgId, row.member_id, 'FOR UPDATE OF p');
    if (member.status !== 'invited' && member.status !== 'active') throw conflict(`your member record is ${member.status}; ${ask} to reactivate it`);
    // Accepted first: the invitation's seat is given up as the key takes one (mintKey counts seats).
    await q.query(
      `UPDATE invitations SET status = 'accepted', accepted_at = now(), version = version + 1, updated_at = now() WHERE org_id = $1 AND invitation_id = $2`,
      [t.orgId, t.invitationId],
    );
    await q.query(`UPDATE principals SET status = 'active', role = $3, version = version + 1, updated_at = now() WHERE org_id = $1 AND principal_id = $2`, [
      t.orgId,
      row.member_id,
      row.role,
    ]);
    const minted = await mintKey(q, t.orgId, {
      name: `${member.name} (joined by invitation)`,
      tier: row.role,
      principalId: row.member_id,
      createdBy: row.member_id,
    });
    await q.query('UPDATE invitations SET key_id = $3 WHERE org_id = $1 AND invitation_id = $2', [t.orgId, t.invitationId, minted.keyId]);
    const event = await appendEvent(q, t.orgId, {
      family: 'invitation',
      kind: 'invitation.invite.accept',
      entityId: t.invitationId,
      actor: row.member_id,
      payload: { invitationId: t.invitationId, memberId: row.member_id, role: row.role, keyId: minted.keyId, from: member.status },
    });
    const result: Accepted = {
      org: { name: org.name, slug: org.slug },
      memberId: row.member_id,
      role: row.role,
      keyId: minted.keyId,
      apiKey: minted.apiKey,
      scopes: minted.scopes,
    };
    return { accepted: result, orgId: t.orgId, seq: event.seq };
  });
  deps.stream.appended(orgId, seq);
  return accepted;
}
