import type { z } from 'zod';
import type { Compact, Limits, Terms } from '../../../protocol/methods/compact.js';
import type { Queryable } from '../../../db/types.js';

/*
 * Compacts as rows and as other families read them: an agent's limits come from its own compact, field by field
 * falling back on the org's, and are null (no limit) where neither sets one.
 */

export type TermsDoc = z.output<typeof Terms>;
export type LimitsDoc = z.output<typeof Limits>;

export interface CompactRow {
  compact_id: string;
  scope: string;
  sponsor_id: string | null;
  commitments: TermsDoc['commitments'] | string;
  limits: LimitsDoc | string;
  terms_hash: string;
  version: number;
  acknowledged_version: number | null;
  acknowledged_at: string | Date | null;
  updated_by: string;
  created_at: string | Date;
  updated_at: string | Date;
}

export const COMPACT_COLUMNS =
  'compact_id, scope, sponsor_id, commitments, limits, terms_hash, version, acknowledged_version, acknowledged_at, updated_by, created_at, updated_at';

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
const iso = (v: string | Date) => new Date(v).toISOString();

export const toCompact = (r: CompactRow): z.output<typeof Compact> => ({
  id: r.compact_id,
  scope: r.scope,
  sponsorId: r.sponsor_id,
  terms: { commitments: json(r.commitments), limits: json(r.limits) },
  termsHash: r.terms_hash,
  version: Number(r.version),
  acknowledgedVersion: r.acknowledged_version === null ? null : Number(r.acknowledged_version),
  acknowledgedAt: r.acknowledged_at === null ? null : iso(r.acknowledged_at),
  updatedBy: r.updated_by,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
});

/** The compact of a scope (org or agt_…), if any; `lock` for a write. */
export async function compactRow(q: Queryable, orgId: string, scope: string, lock: '' | 'FOR UPDATE' = ''): Promise<CompactRow | null> {
  const [row] = await q.query<CompactRow>(`SELECT ${COMPACT_COLUMNS} FROM compacts WHERE org_id = $1 AND scope = $2 ${lock}`, [orgId, scope]);
  return row ?? null;
}

/** The org's compact and an agent's own (GET /policy). */
export async function compactsFor(
  q: Queryable,
  orgId: string,
  agentId: string | null,
): Promise<{ org: z.output<typeof Compact> | null; agent: z.output<typeof Compact> | null }> {
  const org = await compactRow(q, orgId, 'org');
  const agent = agentId ? await compactRow(q, orgId, agentId) : null;
  return { org: org && toCompact(org), agent: agent && toCompact(agent) };
}

export interface EffectiveLimits {
  /** null: no limit. */
  monthlySpendCents: number | null;
  maxOpenHandoffs: number | null;
  escalationResponseMinutes: number | null;
  /** Where each came from: the agent's own compact, the org's, or neither. */
  sources: Record<'monthlySpendCents' | 'maxOpenHandoffs' | 'escalationResponseMinutes', 'agent' | 'org' | 'none'>;
}

/**
 * The limits an agent works within, in the caller's transaction: its own compact's, each omitted one the org
 * compact's, else none. For other families (handoff.offer checks maxOpenHandoffs).
 */
export async function compactLimitsOf(q: Queryable, orgId: string, agentId: string): Promise<EffectiveLimits> {
  const rows = await q.query<{ scope: string; limits: LimitsDoc | string }>("SELECT scope, limits FROM compacts WHERE org_id = $1 AND scope IN ('org', $2)", [
    orgId,
    agentId,
  ]);
  const own = json<LimitsDoc>(rows.find((r) => r.scope === agentId)?.limits ?? {});
  const org = json<LimitsDoc>(rows.find((r) => r.scope === 'org')?.limits ?? {});
  const out = { sources: {} } as EffectiveLimits;
  for (const k of ['monthlySpendCents', 'maxOpenHandoffs', 'escalationResponseMinutes'] as const) {
    const [value, source] = own[k] !== undefined ? [own[k], 'agent' as const] : org[k] !== undefined ? [org[k], 'org' as const] : [null, 'none' as const];
    out[k] = value ?? null;
    out.sources[k] = source;
  }
  return out;
}

/** How many handoffs an agent may have open at once (null: no limit). */
export async function maxOpenHandoffsOf(q: Queryable, orgId: string, agentId: string): Promise<number | null> {
  return (await compactLimitsOf(q, orgId, agentId)).maxOpenHandoffs;
}
