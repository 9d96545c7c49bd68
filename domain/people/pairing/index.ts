import { randomInt } from 'node:crypto';
import { ApiError, notFound } from '../../../protocol/errors.js';
import { pairing } from '../../../protocol/methods/pairing.js';
import { hashApiKey } from '../../core/auth.js';
import { family, type Family } from '../../core/family.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { newId, newSecret } from '../../core/ids.js';
import { one, type Queryable } from '../../../db/types.js';
import { mintKey } from '../org/keys.js';
import { requireSeat } from '../billing/index.js';
import { laneHold } from '../member/lane.js';
import { newMemberHandle } from '../member/model.js';
import { findOrgBySlug } from '../org/service.js';
import { decoyExpiry, decoyPairingId, decoyPollSecret } from './decoy.js';
import { checkPendingCap, limitPairingCall, PAIRING_TTL_MS } from './limits.js';
import { DEFAULT_PAIRING_LIMITS } from './config.js';

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

type Org = { orgId: string; slug: string };

// Known and unknown orgs answer in the same words: only the slug asked for differs, and it is the caller's.
const askAdmin = (slug: string, pairingId: string, code: string) =>
  `Ask an admin of ${slug} to approve pairing ${pairingId} with code ${code} (pairing.approve); then call pairing.request again with pairingId and pollSecret to receive your API key.`;
const waiting = (pairingId: string, expiresAt: string, expired: boolean) => ({
  pairingId,
  status: expired ? ('expired' as const) : ('pending' as const),
  expiresAt,
  message: expired
    ? 'This pairing expired before an admin approved it; start again with agentName.'
    : 'Not approved yet: an admin must call pairing.approve with your code. Poll again in a few seconds.',
});
// A wrong secret, a pairing of another org and one that never existed look exactly alike: the caller learns nothing.
const noSuchPairing = (pairingId: string) => notFound(`pairing ${pairingId}`);

async function begin(ctx: HandlerCtx, org: Org, agentName: string) {
  ctx.bindOrg(org.orgId);
  await checkPendingCap(ctx.q, org, ctx.deps.config.pairing.pendingMax);
  const pairingId = newId('pair');
  const code = pairingCode();
  const pollSecret = newSecret('pps', 40);
  const row = one(
    await ctx.q.query<{ expires_at: string }>(
      `INSERT INTO pairings (org_id, pairing_id, agent_name, code, poll_secret_hash, status, expires_at)
     VALUES ($1, $2, $3, $4, $5, 'pending', now() + make_interval(secs => $6::double precision / 1000)) RETURNING expires_at`,
      [org.orgId, pairingId, agentName, code, hashApiKey(pollSecret), PAIRING_TTL_MS],
    ),
  );
  await ctx.emit('pairing.request.create', pairingId, { pairingId, agentName });
  return { pairingId, status: 'pending' as const, expiresAt: row.expires_at, code, pollSecret, message: askAdmin(org.slug, pairingId, code) };
}

/** No org has this slug: answer a pairing the server can recognise later (decoy.ts), storing and ledgering nothing. */
function beginDecoy(ctx: HandlerCtx, slug: string) {
  const expiresAtMs = Date.now() + PAIRING_TTL_MS;
  const pairingId = decoyPairingId(ctx.deps.signingKey, slug, expiresAtMs);
  const code = pairingCode();
  const pollSecret = decoyPollSecret(ctx.deps.signingKey, slug, pairingId);
  return { pairingId, status: 'pending' as const, expiresAt: new Date(expiresAtMs).toISOString(), code, pollSecret, message: askAdmin(slug, pairingId, code) };
}

/** Only a change of state is ledgered (requested, approved, claimed): a poll that finds none appends nothing. */
async function poll(ctx: HandlerCtx, org: Org, pairingId: string, pollSecret: string) {
  const [row] = await ctx.q.query<PairingRow>(
    `SELECT agent_name, status, tier, expires_at, expires_at < now() AS expired, agent_id
       FROM pairings WHERE org_id = $1 AND pairing_id = $2 AND poll_secret_hash = $3 FOR UPDATE`,
    [org.orgId, pairingId, hashApiKey(pollSecret)],
  );
  if (!row) throw noSuchPairing(pairingId);
  if (row.status === 'claimed') throw new ApiError('CONFLICT', `the key for pairing ${pairingId} was already delivered; ask an admin to pair again`);
  if (row.status === 'pending') return waiting(pairingId, row.expires_at, row.expired);
  ctx.bindOrg(org.orgId);
  const minted = await mintKey(ctx.q, org.orgId, { name: row.agent_name, tier: row.tier, principalId: row.agent_id ?? undefined, createdBy: 'pairing' });
  await ctx.q.query(`UPDATE pairings SET status = 'claimed', key_id = $3 WHERE org_id = $1 AND pairing_id = $2`, [org.orgId, pairingId, minted.keyId]);
  await ctx.emit('pairing.request.claim', pairingId, { pairingId, agentId: minted.principal.id, keyId: minted.keyId });
  return {
    pairingId,
    status: 'claimed' as const,
    expiresAt: row.expires_at,
    agentId: minted.principal.id,
    keyId: minted.keyId,
    apiKey: minted.apiKey,
    scopes: minted.scopes,
    message: `Paired with ${org.slug} as ${minted.principal.id}. Store apiKey now: it is not shown again.`,
  };
}

/** A decoy is pending until its expiry, then expired, like a real pairing no admin approves. */
function pollDecoy(ctx: HandlerCtx, slug: string, pairingId: string, pollSecret: string) {
  const expiresAtMs = decoyExpiry(ctx.deps.signingKey, slug, pairingId, pollSecret);
  if (expiresAtMs === undefined) throw noSuchPairing(pairingId);
  return waiting(pairingId, new Date(expiresAtMs).toISOString(), expiresAtMs <= Date.now());
}

/**
 * Pre-auth: anyone may call it, so it is bounded (limits.ts: per address and per slug across processes, a cap
 * of pending pairings per org), answers alike for known and unknown slugs (decoy.ts) after the same floor of
 * time, and appends only when a pairing changes state.
 */
export const request = handler(
  pairing.request,
  async (ctx, p) => {
    const org = await findOrgBySlug(ctx.q, p.orgSlug);
    if (p.pairingId === undefined) return org ? begin(ctx, org, p.agentName!) : beginDecoy(ctx, p.orgSlug);
    return org ? poll(ctx, org, p.pairingId, p.pollSecret!) : pollDecoy(ctx, p.orgSlug, p.pairingId, p.pollSecret!);
  },
  { limit: limitPairingCall, appendsOnChange: true, minDurationMs: (deps) => deps.config.pairing.answerFloorMs },
);

/**
 * pairing.approve {agentId}: the agent must be an active agent member with no live key and no other approved
 * pairing waiting to be claimed (CONFLICT naming the state; unknown or another org's: NOT_FOUND).
 */
async function requireKeylessAgent(q: Queryable, orgId: string, agentId: string): Promise<void> {
  const [row] = await q.query<{ status: string; keys: number; waiting: string | null }>(
    `SELECT p.status,
            (SELECT count(*)::int FROM api_keys k WHERE k.org_id = p.org_id AND k.principal_id = p.principal_id AND k.revoked_at IS NULL) AS keys,
            (SELECT min(w.pairing_id) FROM pairings w WHERE w.org_id = p.org_id AND w.agent_id = p.principal_id AND w.status = 'approved') AS waiting
       FROM principals p WHERE p.org_id = $1 AND p.principal_id = $2 AND p.kind = 'agent' FOR UPDATE OF p`,
    [orgId, agentId],
  );
  if (!row) throw notFound(`agent ${agentId}`);
  if (row.status !== 'active') throw new ApiError('CONFLICT', `agentId: ${agentId} is ${row.status}; reactivate it (admin.reactivate) before pairing it`);
  if (Number(row.keys) > 0)
    throw new ApiError('CONFLICT', `agentId: ${agentId} already has ${row.keys} live API key(s); revoke them (settings.revokeApiKey) to pair it again`);
  if (row.waiting) throw new ApiError('CONFLICT', `agentId: ${agentId} is already bound to approved pairing ${row.waiting}, whose key is not claimed yet`);
}

export const approve = handler(pairing.approve, async (ctx, p) => {
  // Pairing is a human admin's act: an agent never approves one (the agent lane, domain/people/member/lane.ts).
  laneHold(ctx.principal, 'pairing.approve');
  const [row] = await ctx.q.query<PairingRow & { code: string }>(
    `SELECT agent_name, status, tier, expires_at, expires_at < now() AS expired, agent_id, code
       FROM pairings WHERE org_id = $1 AND pairing_id = $2 FOR UPDATE`,
    [ctx.orgId, p.pairingId],
  );
  if (!row) throw notFound(`pairing ${p.pairingId}`);
  if (row.status !== 'pending') throw new ApiError('CONFLICT', `pairing ${p.pairingId} is already ${row.status}`);
  if (row.expired) throw new ApiError('CONFLICT', `pairing ${p.pairingId} expired at ${row.expires_at}; the agent must start again`);
  if (row.code !== p.code) throw new ApiError('CONFLICT', `code: does not match pairing ${p.pairingId}; check it with the agent`);
  // With agentId the key goes to an existing agent (persona.generateAgentId made it); else a new agent is created.
  const agentId = p.agentId ?? newId('agt');
  if (p.agentId !== undefined) await requireKeylessAgent(ctx.q, ctx.orgId, p.agentId);
  else {
    const handle = await newMemberHandle(ctx.q, ctx.orgId, row.agent_name);
    await ctx.q.query('INSERT INTO principals (org_id, principal_id, kind, name, handle) VALUES ($1, $2, $3, $4, $5)', [
      ctx.orgId,
      agentId,
      'agent',
      row.agent_name,
      handle,
    ]);
  }
  // A free agent seat now, so an admin learns at approval, not the agent at its claim (after the people lock, as everywhere).
  await requireSeat(ctx.q, ctx.orgId, 'agent', 'pairingId');
  await ctx.q.query(`UPDATE pairings SET status = 'approved', tier = $3, agent_id = $4, approved_by = $5 WHERE org_id = $1 AND pairing_id = $2`, [
    ctx.orgId,
    p.pairingId,
    p.tier,
    agentId,
    ctx.principal.id,
  ]);
  await ctx.emit('pairing.request.approve', p.pairingId, { pairingId: p.pairingId, agentId, tier: p.tier });
  return { pairingId: p.pairingId, status: 'approved' as const, agentId, tier: p.tier };
});

export const pairingHandlers = family('pairing', { request, approve });

/** The pairing family, as domain/deployed.ts lists it. */
export const pairingFamily: Family = { name: 'pairing', methods: pairingHandlers, config: { pairing: DEFAULT_PAIRING_LIMITS } };

export { DEFAULT_PAIRING_LIMITS, type PairingLimits } from './config.js';
