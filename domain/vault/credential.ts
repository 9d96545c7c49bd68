import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { credential as c } from '../../protocol/methods/credential.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { actionClassOf } from '../approval/index.js';
import { requireKeyring } from './keys.js';
import { requireTasks } from '../board/index.js';
import { CREDENTIAL_SELECT, iso, loadCredential, openSealed, revokeLeases, toCredential, type CredentialRow, type VersionRow } from './store.js';
import { grantedSecret, putAnswer, writeSecret } from './secrets.js';

/*
 * credential: put, lease, list, revoke. A lease opens the current version for a caller granted it and records who,
 * why and until when; its event names ids and the version only. credential.lease is M without I: the pipeline
 * keeps no idempotency frame of it, so its value is never stored outside the sealed version.
 */

export const put = handler(c.put, async (ctx, p) => {
  const { payload, result } = putAnswer(ctx, await writeSecret(ctx, p));
  await ctx.emit('credential.secret.put', payload.credentialId, payload);
  return result;
});

export interface LeaseRow {
  lease_id: string;
  credential_id: string;
  version: number;
  principal_id: string;
  purpose: string;
  task_id: string | null;
  approval_id: string | null;
  issued_at: string;
  expires_at: string;
  revoked_at: string | null;
  current_version: number;
}

export function toLease(r: LeaseRow, now: Date) {
  const status = r.revoked_at
    ? 'revoked'
    : iso(r.expires_at) <= now.toISOString()
      ? 'expired'
      : Number(r.version) < Number(r.current_version)
        ? 'stale'
        : 'active';
  return {
    id: r.lease_id,
    credentialId: r.credential_id,
    version: Number(r.version),
    principalId: r.principal_id,
    purpose: r.purpose,
    taskId: r.task_id,
    approvalId: r.approval_id,
    issuedAt: iso(r.issued_at),
    expiresAt: iso(r.expires_at),
    status: status,
  };
}

export const lease = handler(c.lease, async (ctx, p) => {
  if ((p.credentialId === undefined) === (p.name === undefined)) throw badRequest('credentialId', 'give exactly one of credentialId or name');
  const row = await grantedSecret(ctx, p);
  if (row.state !== 'active') {
    throw conflict(
      `secret ${row.credential_id} is ${row.state}: nothing was leased; ask an admin to ${row.state === 'disabled' ? 'put a value again (credential.put)' : 'create a new secret'}`,
    );
  }
  const ttl = p.ttlSeconds ?? Number(row.default_ttl_seconds);
  if (ttl > Number(row.max_ttl_seconds)) throw badRequest('ttlSeconds', `must be at most ${row.max_ttl_seconds} for this secret`);
  if (p.taskId !== undefined) await requireTasks(ctx.q, ctx.orgId, [{ field: 'taskId', taskId: p.taskId }]);
  let approvalId: string | null = null;
  if (row.approval === 'each_lease') {
    // Break-glass: a human approves each use; the proof is consumed, so it opens one lease only.
    const proof = await ctx.requireSignature({
      actionClass: actionClassOf(ctx.method.name),
      subjectId: row.credential_id,
      summary: `${ctx.principal.id} leases break-glass secret ${row.credential_id} (${row.name}) for ${ttl} s`,
      params: p,
    });
    approvalId = proof.approvalId;
  }
  if (row.sealed === null) throw conflict(`secret ${row.credential_id} has no value kept: ask an admin to put one (credential.put)`);
  const value = openSealed(await requireKeyring(ctx.deps), ctx.orgId, row.credential_id, Number(row.current_version), row as VersionRow);
  const now = ctx.deps.clock.now();
  const leaseId = newId('crl');
  const [saved] = await ctx.q.query<LeaseRow>(
    `INSERT INTO credential_leases (org_id, lease_id, credential_id, version, principal_id, purpose, task_id, approval_id, issued_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9::timestamptz + make_interval(secs => $10))
     RETURNING lease_id, credential_id, version, principal_id, purpose, task_id, approval_id, issued_at, expires_at, revoked_at, version AS current_version`,
    [ctx.orgId, leaseId, row.credential_id, row.current_version, ctx.principal.id, p.purpose, p.taskId ?? null, approvalId, now.toISOString(), ttl],
  );
  await ctx.emit('credential.lease.issue', leaseId, {
    leaseId,
    credentialId: row.credential_id,
    version: Number(row.current_version),
    ttlSeconds: ttl,
    approvalId,
  });
  return { lease: toLease(saved!, now), value };
});

export const LEASE_SELECT = `l.lease_id, l.credential_id, l.version, l.principal_id, l.purpose, l.task_id, l.approval_id, l.issued_at, l.expires_at, l.revoked_at,
  c.current_version`;

export const list = handler(c.list, async (ctx, p) => {
  const now = ctx.deps.clock.now();
  const states = p.state ? [p.state] : ['active', 'disabled'];
  const rows = await ctx.q.query<CredentialRow>(
    `SELECT ${CREDENTIAL_SELECT} FROM credentials c
      WHERE c.org_id = $1 AND c.state = ANY($2::text[]) AND ($3::text IS NULL OR starts_with(c.name, $3)) AND ($4::text IS NULL OR c.name > $4)
      ORDER BY c.name LIMIT $5`,
    [ctx.orgId, states, p.prefix ?? null, p.cursor ?? null, p.limit + 1],
  );
  const page = rows.slice(0, p.limit);
  const ids = page.map((r) => r.credential_id);
  const leases = await ctx.q.query<LeaseRow>(
    `SELECT ${LEASE_SELECT} FROM credential_leases l JOIN credentials c ON c.org_id = l.org_id AND c.credential_id = l.credential_id
      WHERE l.org_id = $1 AND l.credential_id = ANY($2::text[]) AND l.revoked_at IS NULL AND l.expires_at > $3 ORDER BY l.issued_at`,
    [ctx.orgId, ids, now.toISOString()],
  );
  const users = await ctx.q.query<{ credential_id: string; integration_id: string }>(
    `SELECT credential_id, integration_id FROM integrations WHERE org_id = $1 AND credential_id = ANY($2::text[]) AND state = 'active' ORDER BY integration_id`,
    [ctx.orgId, ids],
  );
  return {
    credentials: page.map((r) => ({
      ...toCredential(r, now),
      leases: leases.filter((l) => l.credential_id === r.credential_id).map((l) => toLease(l, now)),
      usedBy: users.filter((u) => u.credential_id === r.credential_id).map((u) => u.integration_id),
    })),
    nextCursor: rows.length > p.limit ? page[page.length - 1].name : null,
  };
});

export const revoke = handler(c.revoke, async (ctx, p) => {
  const targets = (['leaseId', 'credentialId', 'principalId'] as const).filter((k) => p[k] !== undefined);
  if (targets.length !== 1) {
    throw badRequest(
      targets[1] ?? 'leaseId',
      `give exactly one of leaseId, credentialId or principalId (got ${targets.length ? targets.join(' and ') : 'none'})`,
    );
  }
  if (p.disable !== undefined && !p.credentialId) throw badRequest('disable', 'only with credentialId');
  const at = ctx.deps.clock.now().toISOString();
  let revoked = 0;
  let disabled = false;
  const targetId = p.leaseId ?? p.credentialId ?? p.principalId!;
  if (p.leaseId) {
    const [found] = await ctx.q.query('SELECT 1 FROM credential_leases WHERE org_id = $1 AND lease_id = $2', [ctx.orgId, p.leaseId]);
    if (!found) throw notFound(`credential lease ${p.leaseId}`);
    revoked = await revokeLeases(ctx.q, ctx.orgId, 'l.lease_id = $4', [p.leaseId], ctx.principal.id, at);
  } else if (p.credentialId) {
    const row = await loadCredential(ctx.q, ctx.orgId, p.credentialId, 'FOR UPDATE');
    revoked = await revokeLeases(ctx.q, ctx.orgId, 'l.credential_id = $4', [p.credentialId], ctx.principal.id, at);
    if (p.disable && row.state === 'active') {
      await ctx.q.query(`UPDATE credentials SET state = 'disabled', updated_at = $3 WHERE org_id = $1 AND credential_id = $2`, [ctx.orgId, p.credentialId, at]);
      disabled = true;
    }
  } else {
    revoked = await revokeLeases(ctx.q, ctx.orgId, 'l.principal_id = $4', [p.principalId], ctx.principal.id, at);
  }
  const changed = revoked > 0 || disabled;
  await ctx.emit('credential.lease.revoke', targetId, { targetId, leasesRevoked: revoked, disabled, ...(changed ? {} : { noop: true }) });
  return { revoked, disabled, changed };
});
