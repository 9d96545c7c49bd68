import { createHash, timingSafeEqual } from 'node:crypto';
import { notFound } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import type { Deps } from '../../core/deps.js';
import { newSecret } from '../../core/ids.js';

/*
 * Invitation rows, links and mail. A link is `<PUBLIC_URL>/join?token=<orgId>.<invitationId>.<secret>`: the org and
 * invitation ids find the row by its primary key (no lookup across orgs), and only the secret's SHA-256 is kept.
 * A resend replaces the hash, so the old link dies.
 */

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const RESENDS_PER_DAY = 5;

export interface InvitationRow {
  invitation_id: string;
  member_id: string;
  email: string;
  role: 'admin' | 'approver' | 'member' | 'viewer';
  status: 'pending' | 'accepted' | 'revoked';
  expired: boolean;
  token_hash: string;
  expires_at: string | Date;
  sends: number;
  resend_times: (string | Date)[];
  created_member: boolean;
  invited_by: string;
  key_id: string | null;
  version: number;
  created_at: string | Date;
  accepted_at: string | Date | null;
  revoked_at: string | Date | null;
}

export const INVITATION_COLUMNS = `invitation_id, member_id, email, role, status, expires_at <= now() AS expired, token_hash, expires_at, sends,
  resend_times, created_member, invited_by, key_id, version, created_at, accepted_at, revoked_at`;

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

export function toInvitation(r: InvitationRow) {
  return {
    id: r.invitation_id,
    memberId: r.member_id,
    email: r.email,
    role: r.role,
    status: r.status === 'pending' && r.expired ? ('expired' as const) : r.status,
    expiresAt: iso(r.expires_at)!,
    sends: Number(r.sends),
    invitedBy: r.invited_by,
    createdAt: iso(r.created_at)!,
    acceptedAt: iso(r.accepted_at),
    revokedAt: iso(r.revoked_at),
    version: Number(r.version),
  };
}

export async function getInvitation(q: Queryable, orgId: string, invitationId: string, lock = ''): Promise<InvitationRow> {
  const [row] = await q.query<InvitationRow>(`SELECT ${INVITATION_COLUMNS} FROM invitations WHERE org_id = $1 AND invitation_id = $2 ${lock}`, [
    orgId,
    invitationId,
  ]);
  if (!row) throw notFound(`invitation ${invitationId}`);
  return row;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A new link secret: the token to mail (once) and the hash to store. */
export function newToken(orgId: string, invitationId: string): { token: string; hash: string } {
  const secret = newSecret('wjt', 40);
  return { token: `${orgId}.${invitationId}.${secret}`, hash: sha256(secret) };
}

export const acceptUrl = (deps: Deps, token: string) => `${deps.config.publicUrl}/join?token=${encodeURIComponent(token)}`;

export interface ParsedToken {
  orgId: string;
  invitationId: string;
  secret: string;
}

const TOKEN = /^(org_[0-9a-z]{1,64})\.(ivt_[0-9a-z]{1,64})\.(wjt_[0-9a-z]{40})$/;

export function parseToken(token: unknown): ParsedToken | undefined {
  if (typeof token !== 'string') return undefined;
  const m = TOKEN.exec(token);
  return m ? { orgId: m[1], invitationId: m[2], secret: m[3] } : undefined;
}

/** The secret matches the stored hash (compared in constant time). */
export function tokenMatches(row: Pick<InvitationRow, 'token_hash'>, secret: string): boolean {
  const a = Buffer.from(sha256(secret), 'hex');
  const b = Buffer.from(row.token_hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The invitation mail: plain text with the link. Its words go to SMTP only, never to the ledger or a log. */
export function invitationMail(
  deps: Deps,
  m: { orgName: string; to: string; inviterName: string; role: string; message?: string; url: string; expiresAt: string },
) {
  const host = new URL(deps.config.publicUrl).hostname;
  const domain = /\./.test(host) ? host : `${host}.localdomain`;
  const note = m.message ? `\n${m.inviterName} wrote:\n\n${m.message}\n` : '';
  return {
    from: { name: m.orgName, address: `no-reply@${domain}` },
    to: [m.to],
    subject: `${m.inviterName} invited you to join ${m.orgName}`,
    text:
      `${m.inviterName} invited you to join ${m.orgName} as ${m.role === 'admin' ? 'an' : 'a'} ${m.role}.\n${note}\n` +
      `Accept the invitation here (the link works once, until ${m.expiresAt}):\n\n${m.url}\n\n` +
      `Accepting gives you an API key for ${m.orgName}, shown once on that page. If you did not expect this, ignore this mail.\n`,
  };
}

/** Send after commit; a failure is logged with ids only (never the address or the words) and the admin can resend. */
export function sendAfterCommit(
  deps: Deps,
  afterCommit: (fn: () => void) => void,
  mail: ReturnType<typeof invitationMail>,
  ids: { orgId: string; invitationId: string },
) {
  afterCommit(() => {
    deps.mail.send(mail).then(
      (d) => {
        if (d.status === 'failed' || d.status === 'outboxed')
          deps.log.warn({ ...ids, delivery: d.status }, 'invitation mail not delivered; invitation.resend sends it again');
      },
      (err: Error) => deps.log.error({ ...ids, err: { name: err.name } }, 'invitation mail failed'),
    );
  });
}

/**
 * Revoke every pending invitation of a member (user.deactivate: access is cut, so its links die too). Returns how
 * many. The member is left as the caller leaves it; the caller's own event counts them.
 */
export async function revokeInvitationsOf(q: Queryable, orgId: string, memberId: string): Promise<number> {
  const rows = await q.query(
    `UPDATE invitations SET status = 'revoked', revoked_at = now(), version = version + 1, updated_at = now()
      WHERE org_id = $1 AND member_id = $2 AND status = 'pending' RETURNING invitation_id`,
    [orgId, memberId],
  );
  return rows.length;
}
