import { createHash } from 'node:crypto';
import { badRequest, notFound } from '../../protocol/errors.js';
import { drive as c, EMAIL_GRANT_DEFAULT_DAYS, EMAIL_GRANT_MAX_DAYS } from '../../protocol/methods/files/drive.js';
import { one } from '../../db/types.js';
import type { Deps } from '../core/deps.js';
import { handler } from '../core/handler.js';
import { newId, newSecret } from '../core/ids.js';
import { checkTeams, requireNamableMember } from '../people/index.js';
import { callerOf, fileAccess } from './access.js';
import { emailDomain, GRANT_COLUMNS, toGrant, type GrantRow } from './grants.js';
import { activeFile } from './model.js';

/*
 * Sharing: managers grant roles to a member, a team, the org, or an outside email. An email grant is a viewer-only
 * capability for the file (and its subtree), not an account: it expires (default 14 days, at most 90), its link's
 * token is shown once and only its hash kept, and revoking it ends the link at once (GET /share/<token>,
 * gateway/share.ts). From an agent an email share holds for a human (files.share_grant): data leaves the org.
 * Events name grantee ids, or an email's domain only; never the address or the link.
 */

const DAY_MS = 24 * 60 * 60 * 1000;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** A guest link token `<orgId>.<secret>`: the org scopes the lookup, the secret's hash finds the grant. */
export function newGuestToken(orgId: string): { token: string; hash: string } {
  const secret = newSecret('wsh', 40);
  return { token: `${orgId}.${secret}`, hash: sha256(secret) };
}

const TOKEN = /^(org_[0-9a-z]{1,64})\.(wsh_[0-9a-z]{40})$/;

export function parseGuestToken(token: string): { orgId: string; hash: string } | undefined {
  const m = TOKEN.exec(token);
  return m ? { orgId: m[1], hash: sha256(m[2]) } : undefined;
}

export const guestUrl = (deps: Deps, token: string) => `${deps.config.publicUrl}/share/${token}`;

function shareMail(deps: Deps, m: { to: string; sharer: string; fileName: string; url: string; expiresAt: string }) {
  const host = new URL(deps.config.publicUrl).hostname;
  const domain = /\./.test(host) ? host : `${host}.localdomain`;
  return {
    from: { name: m.sharer, address: `no-reply@${domain}` },
    to: [{ address: m.to }],
    subject: `${m.sharer} shared “${m.fileName}” with you`,
    text: `${m.sharer} shared “${m.fileName}” with you (view only).\n\nOpen it here until ${m.expiresAt}:\n\n${m.url}\n\nThe link is yours alone: anyone holding it can view the file until it expires or is revoked.\n`,
  };
}

type Grantee = { kind: GrantRow['grantee_kind']; id: string };

export const shareGrant = handler(c.shareGrant, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const at = now.toISOString();
  const caller = callerOf(ctx.principal);
  const { file } = await activeFile(ctx.q, ctx.orgId, p.fileId, caller, 'manager', now);
  const g = p.grantee;
  const grantee: Grantee =
    'principalId' in g
      ? { kind: 'principal', id: g.principalId }
      : 'teamId' in g
        ? { kind: 'team', id: g.teamId }
        : 'org' in g
          ? { kind: 'org', id: '' }
          : { kind: 'email', id: g.email.toLowerCase() };
  if (grantee.kind === 'principal') await requireNamableMember(ctx.q, ctx.orgId, grantee.id, 'grantee.principalId');
  if (grantee.kind === 'team') await checkTeams(ctx.q, ctx.orgId, [grantee.id], 'grantee.teamId');
  const email = grantee.kind === 'email';
  if (email && p.role !== 'viewer') throw badRequest('role', 'an outside email is granted viewer only (share the file with a member for more)');
  if (!email && p.notify) throw badRequest('notify', 'only email grants are mailed; members see it under view shared');
  let expiresAt: string | null = p.expiresAt === undefined ? null : new Date(p.expiresAt).toISOString();
  if (expiresAt !== null && Date.parse(expiresAt) <= now.getTime()) throw badRequest('expiresAt', 'must be in the future');
  if (email) {
    if (expiresAt !== null && Date.parse(expiresAt) > now.getTime() + EMAIL_GRANT_MAX_DAYS * DAY_MS)
      throw badRequest('expiresAt', `an email grant lasts at most ${EMAIL_GRANT_MAX_DAYS} days`);
    expiresAt ??= new Date(now.getTime() + EMAIL_GRANT_DEFAULT_DAYS * DAY_MS).toISOString();
  }
  const [live] = await ctx.q.query<GrantRow>(
    `SELECT ${GRANT_COLUMNS} FROM file_grants WHERE org_id = $1 AND file_id = $2 AND grantee_kind = $3 AND grantee = $4 AND revoked_at IS NULL FOR UPDATE`,
    [ctx.orgId, p.fileId, grantee.kind, grantee.id],
  );
  const ids = { fileId: p.fileId, granteeKind: grantee.kind, grantee: email ? emailDomain(grantee.id) : grantee.id || null, role: p.role, expiresAt };
  const sameExpiry = (live?.expires_at == null ? null : new Date(live.expires_at).toISOString()) === expiresAt;
  // Granting again what is already so changes nothing (an email grant always gets a new link: its old one dies).
  if (live && !email && live.role === p.role && sameExpiry) {
    await ctx.emit('files.share.grant', live.grant_id, { grantId: live.grant_id, ...ids, noop: true });
    return { grant: toGrant(live, { forFileId: p.fileId, manager: true, now }), changed: false };
  }
  if (email && ctx.principal.kind === 'agent') {
    await ctx.requireSignature({
      actionClass: 'files.share_grant',
      subjectId: p.fileId,
      summary: `Share ${file.kind} ${p.fileId} outside the org with an address at ${emailDomain(grantee.id)} (view only, ${p.expiresAt === undefined ? `${EMAIL_GRANT_DEFAULT_DAYS} days` : `until ${expiresAt}`}${p.notify ? ', link mailed' : ''})`,
      params: p,
    });
  }
  const link = email ? newGuestToken(ctx.orgId) : null;
  const row = one(
    live
      ? await ctx.q.query<GrantRow>(
          `UPDATE file_grants SET role = $3, expires_at = $4, token_hash = coalesce($5, token_hash) WHERE org_id = $1 AND grant_id = $2 RETURNING ${GRANT_COLUMNS}`,
          [ctx.orgId, live.grant_id, p.role, expiresAt, link?.hash ?? null],
        )
      : await ctx.q.query<GrantRow>(
          `INSERT INTO file_grants (org_id, grant_id, file_id, grantee_kind, grantee, role, expires_at, token_hash, created_by, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${GRANT_COLUMNS}`,
          [ctx.orgId, newId('shr'), p.fileId, grantee.kind, grantee.id, p.role, expiresAt, link?.hash ?? null, caller.id, at],
        ),
  );
  const url = link ? guestUrl(ctx.deps, link.token) : null;
  if (url && p.notify) {
    const mail = shareMail(ctx.deps, { to: grantee.id, sharer: ctx.principal.name, fileName: file.name, url, expiresAt: expiresAt! });
    const logIds = { orgId: ctx.orgId, grantId: row.grant_id };
    ctx.afterCommit(() => {
      ctx.deps.mail.send(mail).then(
        (d) => {
          if (d.status === 'failed' || d.status === 'outboxed')
            ctx.deps.log.warn({ ...logIds, delivery: d.status }, 'share mail not delivered; grant again for a new link');
        },
        (err: Error) => ctx.deps.log.error({ ...logIds, err: { name: err.name } }, 'share mail failed'),
      );
    });
  }
  await ctx.emit('files.share.grant', row.grant_id, {
    grantId: row.grant_id,
    ...ids,
    ...(live ? { previousRole: live.role } : {}),
    ...(email ? { notify: p.notify === true } : {}),
  });
  return { grant: toGrant(row, { forFileId: p.fileId, manager: true, now }), ...(url ? { guestUrl: url } : {}), changed: true };
});

export const shareRevoke = handler(c.shareRevoke, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const caller = callerOf(ctx.principal);
  const { file } = await fileAccess(ctx.q, ctx.orgId, p.fileId, caller, 'manager', { lock: true, now });
  const [g] = await ctx.q.query<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM file_grants WHERE org_id = $1 AND grant_id = $2 FOR UPDATE`, [ctx.orgId, p.grantId]);
  if (!g || (g.file_id !== p.fileId && !file.access_path.includes(g.file_id))) throw notFound(`grant ${p.grantId} on file ${p.fileId}`);
  if (g.file_id !== p.fileId)
    throw badRequest(
      'grantId',
      `${p.grantId} is inherited from ${g.file_id}: revoke it there (files.shareRevoke with fileId ${g.file_id}), or restrict a folder to stop inheritance`,
    );
  const ids = { grantId: g.grant_id, fileId: g.file_id, granteeKind: g.grantee_kind, role: g.role };
  if (g.revoked_at !== null) {
    await ctx.emit('files.share.revoke', g.grant_id, { ...ids, noop: true });
    return { grant: toGrant(g, { forFileId: p.fileId, manager: true, now }), changed: false };
  }
  const row = one(
    await ctx.q.query<GrantRow>(`UPDATE file_grants SET revoked_at = $3, revoked_by = $4 WHERE org_id = $1 AND grant_id = $2 RETURNING ${GRANT_COLUMNS}`, [
      ctx.orgId,
      g.grant_id,
      now.toISOString(),
      caller.id,
    ]),
  );
  await ctx.emit('files.share.revoke', g.grant_id, ids);
  return { grant: toGrant(row, { forFileId: p.fileId, manager: true, now }), changed: true };
});
