import type { z } from 'zod';
import { ApiError, badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { policy as c, type Settings } from '../../../protocol/methods/policy.js';
import { one } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { family, type Family } from '../../core/family.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { activeHumansWithRole } from '../../people/index.js';
import { booksPolicy, formatCents, setMaterialityFloor, setPromiseGraceDays, today } from '../../books/index.js';
import { crmPolicyMoves, setCrmPolicy, type CrmMove, type CrmPolicy } from '../../crm/index.js';
import { POLICY_COLUMNS, policyRow, toPolicy, type PolicyRow } from './model.js';
import { policyReads } from './read.js';

/*
 * policy.publish: versions of the org's published policies. Settings apply to the books and the CRM deal desk in
 * publish's own transaction (each keeps one read path: books_settings, crm_settings). An agent's publish holds for a human; raising the
 * materiality floor holds for a human other than the caller, whoever calls. Events carry ids, versions, statuses,
 * dates, hashes and the settings' numbers: never a key's title or body.
 */

export { policyReads } from './read.js';

type SettingsDoc = z.output<typeof Settings>;
type Move = CrmMove;

/** What publishing would change in the books and the CRM: each setting whose value differs from the family's own. */
async function movesOf(ctx: HandlerCtx, settings: SettingsDoc | null): Promise<{ moves: Record<string, Move>; crm: CrmPolicy | null }> {
  if (!settings) return { moves: {}, crm: null };
  const books = await booksPolicy(ctx.q, ctx.orgId, { forUpdate: true });
  const moves: Record<string, Move> = {};
  const floor = settings['books.materialityFloorCents'];
  if (floor !== undefined && floor !== books.materialityFloorCents) moves['books.materialityFloorCents'] = { from: books.materialityFloorCents, to: floor };
  const grace = settings['books.promiseGraceDays'];
  if (grace !== undefined && grace !== books.promiseGraceDays) moves['books.promiseGraceDays'] = { from: books.promiseGraceDays, to: grace };
  if (!Object.keys(settings).some((k) => k.startsWith('crm.'))) return { moves, crm: null };
  const crm = await crmPolicyMoves(ctx.q, ctx.orgId, settings);
  return { moves: { ...moves, ...crm.moves }, crm: Object.keys(crm.moves).length ? crm.next : null };
}

const describeMoves = (moves: Record<string, Move>): string =>
  Object.entries(moves)
    .map(([k, m]) =>
      k === 'books.materialityFloorCents'
        ? `the materiality floor from ${formatCents(m.from ?? 0)} to ${formatCents(m.to)}`
        : k === 'books.promiseGraceDays'
          ? `the promise grace from ${m.from} to ${m.to} days`
          : `${k} from ${m.from ?? 'none'} to ${m.to}`,
    )
    .join(' and ');

/** Who must decide it, when someone must: any human for an agent's publish, another human for a raised floor. */
async function decidersFor(ctx: HandlerCtx, raising: boolean): Promise<string[] | undefined | null> {
  if (raising) {
    const others = (await activeHumansWithRole(ctx.q, ctx.orgId, ['admin', 'approver'])).filter((id) => id !== ctx.principal.id);
    if (others.length === 0) {
      throw new ApiError(
        'GOVERNANCE_NOT_READY',
        `raising the materiality floor needs a second human, and no active human other than ${ctx.principal.id} may decide approvals (role admin or approver): add one first`,
      );
    }
    return others;
  }
  return ctx.principal.kind === 'agent' ? undefined : null;
}

export const publish = handler(c.publish, async (ctx, p) => {
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('policy:' || $1 || ':' || $2))`, [ctx.orgId, p.key]);
  const row = await policyRow(ctx.q, ctx.orgId, p.key, 'FOR UPDATE');
  const current = row ? Number(row.version) : 0;
  if (p.baseVersion !== undefined && p.baseVersion !== current) {
    throw conflict(
      row
        ? `policy ${row.policy_id} ("${p.key}") is at version ${current}, not ${p.baseVersion}: read it (GET /api/v1/policy?key=${p.key}) and retry with baseVersion ${current}`
        : `no policy "${p.key}" exists yet (version 0), not version ${p.baseVersion}: retry with baseVersion 0`,
    );
  }
  if (!row) {
    if (p.retire) throw notFound(`policy ${p.key}`);
    for (const f of ['title', 'body'] as const) if (p[f] === undefined) throw badRequest(f, 'required for a new policy');
  }
  const settings = p.settings && Object.keys(p.settings).length > 0 ? p.settings : null;
  if (settings && p.retire) throw badRequest('settings', 'a retiring version sets nothing; publish settings in a published version');
  const now = today(ctx.deps);
  const effectiveFrom = p.effectiveFrom ?? row?.effective_from ?? now;
  if (settings && effectiveFrom > now) {
    throw badRequest(
      'effectiveFrom',
      `settings apply at publish, so a version effective from ${effectiveFrom} (after today, ${now}) cannot carry them: publish the settings on the day they apply`,
    );
  }
  const content = { title: p.title ?? row!.title, body: p.body ?? row!.body, status: p.retire ? 'retired' : 'published', effectiveFrom, settings };
  const hash = sha256Hex(canonicalJson(content));
  const { moves, crm } = await movesOf(ctx, settings);
  const floor = moves['books.materialityFloorCents'];
  const raising = floor !== undefined && floor.to > (floor.from ?? 0);
  const version = current + 1;
  const hold = {
    actionClass: 'policy.publish',
    subjectId: row?.policy_id ?? p.key,
    summary:
      `${p.retire ? 'Retire' : 'Publish'} policy "${p.key}" as version ${version} (content ${hash.slice(0, 12)}, effective from ${effectiveFrom})` +
      (Object.keys(moves).length ? `, moving ${describeMoves(moves)}` : ''),
    params: p,
  };
  const deciders = await decidersFor(ctx, raising);
  const base = { status: content.status, effectiveFrom };
  if (row && row.content_hash === hash && Object.keys(moves).length === 0) {
    if (deciders !== null) await ctx.verifyProof(hold);
    await ctx.emit('policy.version.publish', row.policy_id, { ...base, policyId: row.policy_id, version: current, contentHash: hash, noop: true });
    return { policy: toPolicy(row), changed: false };
  }
  const proof = deciders === null ? null : await ctx.requireSignature({ ...hold, ...(deciders ? { deciders } : {}) });
  if (floor) await setMaterialityFloor(ctx.q, ctx.orgId, floor.to);
  const grace = moves['books.promiseGraceDays'];
  if (grace) await setPromiseGraceDays(ctx.q, ctx.orgId, grace.to);
  if (crm) await setCrmPolicy(ctx.q, ctx.orgId, crm, ctx.deps.clock.now().toISOString());
  const policyId = row?.policy_id ?? newId('pol');
  const values = [
    ctx.orgId,
    policyId,
    p.key,
    content.title,
    content.body,
    content.status,
    effectiveFrom,
    settings && JSON.stringify(settings),
    hash,
    version,
    ctx.principal.id,
  ];
  const saved = one(
    row
      ? await ctx.q.query<PolicyRow>(
          `UPDATE policies SET title = $4, body = $5, status = $6, effective_from = $7, settings = $8::jsonb, content_hash = $9, version = $10,
                  published_by = $11, published_at = now()
            WHERE org_id = $1 AND policy_id = $2 AND key = $3 RETURNING ${POLICY_COLUMNS}`,
          values,
        )
      : await ctx.q.query<PolicyRow>(
          `INSERT INTO policies (org_id, policy_id, key, title, body, status, effective_from, settings, content_hash, version, published_by)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11) RETURNING ${POLICY_COLUMNS}`,
          values,
        ),
  );
  await ctx.q.query(
    `INSERT INTO policy_versions (org_id, policy_id, version, title, body, status, effective_from, settings, content_hash, approval_id, published_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11)`,
    [
      ctx.orgId,
      policyId,
      version,
      content.title,
      content.body,
      content.status,
      effectiveFrom,
      settings && JSON.stringify(settings),
      hash,
      proof?.approvalId ?? null,
      ctx.principal.id,
    ],
  );
  await ctx.emit('policy.version.publish', policyId, { ...base, policyId, version, contentHash: hash, settings: moves, approvalId: proof?.approvalId ?? null });
  return { policy: toPolicy(saved), changed: true };
});

export const policyHandlers = family('policy', { publish });

/** The policy family, as domain/deployed.ts lists it. */
export const policyFamily: Family = { name: 'policy', methods: policyHandlers, reads: policyReads };
