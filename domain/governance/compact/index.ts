import type { z } from 'zod';
import { ApiError, badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { compact as c } from '../../../protocol/methods/compact.js';
import { one } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { getMembers, sponsorOf } from '../../people/index.js';
import { enforceRights, verifyGivenProof, type HoldSpec } from '../rights.js';
import { COMPACT_COLUMNS, compactRow, toCompact, type CompactRow, type TermsDoc } from './model.js';

/*
 * compact.upsert: terms (humans under the decision rights compact, *; an agent's always hold for the sponsor) or
 * the agent's acknowledgement of its own compact. Events carry ids, versions, the terms hash, limits (amounts and
 * counts) and commitment counts: never a commitment's text.
 */

export { compactLimitsOf, compactsFor, maxOpenHandoffsOf, type EffectiveLimits } from './model.js';

type Params = z.output<typeof c.upsert.params>;

const lockScope = (ctx: HandlerCtx, scope: string) => ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('compact:' || $1 || ':' || $2))`, [ctx.orgId, scope]);

const counts = (t: TermsDoc['commitments']) => ({ agent: t.agent.length, sponsor: t.sponsor.length });

async function acknowledge(ctx: HandlerCtx, p: Params, row: CompactRow | null) {
  for (const f of ['sponsorId', 'baseVersion'] as const)
    if (p[f] !== undefined) throw badRequest(f, 'not with acknowledgeVersion (an acknowledgement changes no terms)');
  if (p.scope === 'org') throw badRequest('acknowledgeVersion', 'only an agent acknowledges its own compact; the org compact has no acknowledgement');
  if (ctx.principal.id !== p.scope)
    throw new ApiError(
      'CONFLICT',
      `only ${p.scope} acknowledges its own compact (its side of it), with its own key; ${ctx.principal.id} may not, and nothing changed`,
    );
  if (!row) throw notFound(`compact of ${p.scope}`);
  const version = Number(row.version);
  if (p.acknowledgeVersion !== version) {
    throw conflict(
      `compact ${row.compact_id} is at version ${version}, not ${p.acknowledgeVersion}: read it (GET /api/v1/policy) and acknowledge version ${version}`,
    );
  }
  const base = { compactId: row.compact_id, scope: p.scope, mode: 'acknowledge', version, termsHash: row.terms_hash, acknowledgedVersion: version };
  if (Number(row.acknowledged_version) === version) {
    await ctx.emit('compact.terms.upsert', row.compact_id, { ...base, noop: true });
    return { compact: toCompact(row), changed: false };
  }
  const updated = one(
    await ctx.q.query<CompactRow>(
      `UPDATE compacts SET acknowledged_version = version, acknowledged_at = now(), updated_at = now() WHERE org_id = $1 AND compact_id = $2 RETURNING ${COMPACT_COLUMNS}`,
      [ctx.orgId, row.compact_id],
    ),
  );
  await ctx.emit('compact.terms.upsert', row.compact_id, base);
  return { compact: toCompact(updated), changed: true };
}

/** The sponsor: given, else the compact's, else the agent's member sponsor; a human member, active. */
async function sponsorFor(ctx: HandlerCtx, p: Params, row: CompactRow | null): Promise<string | null> {
  const sponsor = p.sponsorId ?? row?.sponsor_id ?? (p.scope === 'org' ? null : await sponsorOf(ctx.q, ctx.orgId, p.scope));
  if (sponsor === null) {
    if (p.scope !== 'org') throw badRequest('sponsorId', `${p.scope} has no sponsor: name the sponsoring human`);
    return null;
  }
  if (!sponsor.startsWith('usr_')) throw badRequest('sponsorId', 'must be a human');
  const [m] = await getMembers(ctx.q, ctx.orgId, [sponsor]);
  if (!m || m.kind !== 'human' || m.status !== 'active') throw badRequest('sponsorId', `no active human member ${sponsor} in this org`);
  return sponsor;
}

async function writeTerms(ctx: HandlerCtx, p: Params, row: CompactRow | null) {
  const current = row ? Number(row.version) : 0;
  if (p.baseVersion !== undefined && p.baseVersion !== current) {
    throw conflict(
      row
        ? `compact ${row.compact_id} is at version ${current}, not ${p.baseVersion}: read it (GET /api/v1/policy) and retry with baseVersion ${current}`
        : `${p.scope} has no compact yet (version 0), not version ${p.baseVersion}: retry with baseVersion 0`,
    );
  }
  const sponsor = await sponsorFor(ctx, p, row);
  const terms = p.terms!;
  const termsHash = sha256Hex(canonicalJson({ sponsorId: sponsor, terms }));
  const version = current + 1;
  const hold: HoldSpec = {
    subjectId: p.scope === 'org' ? ctx.orgId : p.scope,
    summary:
      `Set the terms of ${p.scope === 'org' ? 'the org compact' : `the compact of ${p.scope}`} to version ${version} (terms ${termsHash.slice(0, 12)}, sponsor ${sponsor ?? 'none'}): ` +
      `${terms.commitments.agent.length} agent and ${terms.commitments.sponsor.length} sponsor commitment(s), limits ${canonicalJson(terms.limits)}`,
    params: p,
    ...(sponsor ? { preferDeciders: [sponsor] } : {}),
    ...(ctx.principal.kind === 'agent' ? { alwaysHold: 'an agent never sets compact terms alone' } : {}),
  };
  const base = { scope: p.scope, mode: 'terms', sponsorId: sponsor, limits: terms.limits, commitments: counts(terms.commitments) };
  if (row && row.terms_hash === termsHash) {
    await verifyGivenProof(ctx, hold);
    await ctx.emit('compact.terms.upsert', row.compact_id, { ...base, compactId: row.compact_id, version: current, termsHash, noop: true });
    return { compact: toCompact(row), changed: false };
  }
  const how = await enforceRights(ctx, { kind: 'compact', owner: sponsor }, hold);
  const compactId = row?.compact_id ?? newId('cpt');
  const values = [
    ctx.orgId,
    compactId,
    p.scope,
    sponsor,
    JSON.stringify(terms.commitments),
    JSON.stringify(terms.limits),
    termsHash,
    version,
    ctx.principal.id,
  ];
  const saved = one(
    row
      ? await ctx.q.query<CompactRow>(
          `UPDATE compacts SET sponsor_id = $4, commitments = $5::jsonb, limits = $6::jsonb, terms_hash = $7, version = $8, updated_by = $9, updated_at = now()
          WHERE org_id = $1 AND compact_id = $2 AND scope = $3 RETURNING ${COMPACT_COLUMNS}`,
          values,
        )
      : await ctx.q.query<CompactRow>(
          `INSERT INTO compacts (org_id, compact_id, scope, sponsor_id, commitments, limits, terms_hash, version, updated_by)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9) RETURNING ${COMPACT_COLUMNS}`,
          values,
        ),
  );
  await ctx.q.query(
    `INSERT INTO compact_versions (org_id, compact_id, version, sponsor_id, commitments, limits, terms_hash, approval_id, created_by)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8, $9)`,
    [ctx.orgId, compactId, version, sponsor, JSON.stringify(terms.commitments), JSON.stringify(terms.limits), termsHash, how.approvalId, ctx.principal.id],
  );
  await ctx.emit('compact.terms.upsert', compactId, {
    ...base,
    compactId,
    version,
    termsHash,
    acknowledgedVersion: saved.acknowledged_version === null ? null : Number(saved.acknowledged_version),
    override: how.override,
    approvalId: how.approvalId,
  });
  return { compact: toCompact(saved), changed: true };
}

export const upsert = handler(c.upsert, async (ctx, p) => {
  if ((p.terms === undefined) === (p.acknowledgeVersion === undefined)) {
    throw badRequest('terms', 'give the terms to write, or acknowledgeVersion to acknowledge them (one of the two)');
  }
  if (p.scope !== 'org') {
    const [agent] = await getMembers(ctx.q, ctx.orgId, [p.scope]);
    if (!agent || agent.kind !== 'agent') throw notFound(`agent ${p.scope}`);
  }
  await lockScope(ctx, p.scope);
  const row = await compactRow(ctx.q, ctx.orgId, p.scope, 'FOR UPDATE');
  return p.acknowledgeVersion !== undefined ? acknowledge(ctx, p, row) : writeTerms(ctx, p, row);
});

export const compactHandlers = family('compact', { upsert });

/** The compact family, as domain/deployed.ts lists it. */
export const compactFamily: Family = { name: 'compact', methods: compactHandlers };
