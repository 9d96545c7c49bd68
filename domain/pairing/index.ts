import { randomInt } from 'node:crypto';
import { ApiError, notFound } from '../../protocol/errors.js';
import { pairing } from '../../protocol/methods/pairing.js';
import { hashApiKey } from '../auth.js';
import { family } from '../family.js';
import { handler } from '../handler.js';
import { newId, newSecret } from '../ids.js';
import { mintKey } from '../org/keys.js';
import { findOrgBySlug } from '../org/service.js';

const PAIRING_TTL_MS = 60 * 60 * 1000;
const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const pairingCode = () => {
  const c = () => Array.from({ length: 4 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join('');
  return `${c()}-${c()}`;
};

interface PairingRow {
  agent_name: string;
  status: 'pending' | 'approved' | 'claimed';
  tier: string;
  expires_at: string;
  expired: boolean;
  agent_id: string | null;
}

export const request = handler(pairing.request, async (ctx, p) => {
  const org = await findOrgBySlug(ctx.q, p.orgSlug);
  if (!org) throw notFound(`org ${p.orgSlug}`);
  ctx.bindOrg(org.orgId);

  if (!p.pairingId) {
    const pairingId = newId('pair');
    const code = pairingCode();
    const pollSecret = newSecret('pps', 40);
    const [row] = await ctx.q.query<{ expires_at: string }>(
      `INSERT INTO pairings (org_id, pairing_id, agent_name, code, poll_secret_hash, status, expires_at)
       VALUES ($1, $2, $3, $4, $5, 'pending', now() + make_interval(secs => $6::double precision / 1000)) RETURNING expires_at`,
      [org.orgId, pairingId, p.agentName, code, hashApiKey(pollSecret), PAIRING_TTL_MS],
    );
    await ctx.emit('pairing.requested', pairingId, { pairingId, agentName: p.agentName });
    return {
      pairingId,
      status: 'pending' as const,
      expiresAt: row.expires_at,
      code,
      pollSecret,
      message: `Ask an admin of ${org.slug} to approve pairing ${pairingId} with code ${code} (pairing.approve); then call pairing.request again with pairingId and pollSecret to receive your API key.`,
    };
  }

  const [row] = await ctx.q.query<PairingRow>(
    `SELECT agent_name, status, tier, expires_at, expires_at < now() AS expired, agent_id
       FROM pairings WHERE org_id = $1 AND pairing_id = $2 AND poll_secret_hash = $3 FOR UPDATE`,
    [org.orgId, p.pairingId, hashApiKey(p.pollSecret ?? '')],
  );
  // A wrong secret looks exactly like a missing pairing: the caller learns nothing.
  if (!row) throw notFound(`pairing ${p.pairingId}`);
  if (row.status === 'claimed') throw new ApiError('CONFLICT', `the key for pairing ${p.pairingId} was already delivered; ask an admin to pair again`);
  if (row.status === 'pending') {
    await ctx.emit('pairing.polled', p.pairingId, { pairingId: p.pairingId, status: row.expired ? 'expired' : 'pending' });
    return {
      pairingId: p.pairingId,
      status: row.expired ? ('expired' as const) : ('pending' as const),
      expiresAt: row.expires_at,
      message: row.expired
        ? 'This pairing expired before an admin approved it; start again with agentName.'
        : 'Not approved yet: an admin must call pairing.approve with your code. Poll again in a few seconds.',
    };
  }
  const minted = await mintKey(ctx.q, org.orgId, { name: row.agent_name, tier: row.tier, principalId: row.agent_id ?? undefined, createdBy: 'pairing' });
  await ctx.q.query(`UPDATE pairings SET status = 'claimed', key_id = $3 WHERE org_id = $1 AND pairing_id = $2`, [org.orgId, p.pairingId, minted.keyId]);
  await ctx.emit('pairing.claimed', p.pairingId, { pairingId: p.pairingId, agentId: minted.principal.id, keyId: minted.keyId });
  return {
    pairingId: p.pairingId,
    status: 'claimed' as const,
    expiresAt: row.expires_at,
    agentId: minted.principal.id,
    keyId: minted.keyId,
    apiKey: minted.apiKey,
    scopes: minted.scopes,
    message: `Paired with ${org.slug} as ${minted.principal.id}. Store apiKey now: it is not shown again.`,
  };
});

export const approve = handler(pairing.approve, async (ctx, p) => {
  const [row] = await ctx.q.query<PairingRow & { code: string }>(
    `SELECT agent_name, status, tier, expires_at, expires_at < now() AS expired, agent_id, code
       FROM pairings WHERE org_id = $1 AND pairing_id = $2 FOR UPDATE`,
    [ctx.orgId, p.pairingId],
  );
  if (!row) throw notFound(`pairing ${p.pairingId}`);
  if (row.status !== 'pending') throw new ApiError('CONFLICT', `pairing ${p.pairingId} is already ${row.status}`);
  if (row.expired) throw new ApiError('CONFLICT', `pairing ${p.pairingId} expired at ${row.expires_at}; the agent must start again`);
  if (row.code !== p.code) throw new ApiError('CONFLICT', `code: does not match pairing ${p.pairingId}; check it with the agent`);
  const agentId = newId('agt');
  await ctx.q.query('INSERT INTO principals (org_id, principal_id, kind, name) VALUES ($1, $2, $3, $4)', [ctx.orgId, agentId, 'agent', row.agent_name]);
  await ctx.q.query(
    `UPDATE pairings SET status = 'approved', tier = $3, agent_id = $4, approved_by = $5 WHERE org_id = $1 AND pairing_id = $2`,
    [ctx.orgId, p.pairingId, p.tier, agentId, ctx.principal.id],
  );
  await ctx.emit('pairing.approved', p.pairingId, { pairingId: p.pairingId, agentId, tier: p.tier });
  return { pairingId: p.pairingId, status: 'approved' as const, agentId, tier: p.tier };
});

export const pairingHandlers = family('pairing', { request, approve });
