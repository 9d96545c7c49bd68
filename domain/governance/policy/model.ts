import type { z } from 'zod';
import type { Policy, PolicySummary } from '../../../protocol/methods/policy.js';
import type { Queryable } from '../../../db/types.js';

/* Policies as rows: the current version on policies, every version on policy_versions. */

export interface PolicyRow {
  policy_id: string;
  key: string;
  title: string;
  body: string;
  status: 'published' | 'retired';
  effective_from: string;
  settings: Record<string, number> | string | null;
  content_hash: string;
  version: number;
  published_by: string;
  published_at: string;
}

export const POLICY_COLUMNS = 'policy_id, key, title, body, status, effective_from, settings, content_hash, version, published_by, published_at';
const SUMMARY_COLUMNS = 'policy_id, key, title, status, effective_from, settings, content_hash, version, published_by, published_at';

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

export const toSummary = (r: Omit<PolicyRow, 'body'>): z.output<typeof PolicySummary> => ({
  id: r.policy_id,
  key: r.key,
  title: r.title,
  status: r.status,
  version: Number(r.version),
  effectiveFrom: r.effective_from,
  settings: r.settings === null ? null : json(r.settings),
  contentHash: r.content_hash,
  publishedBy: r.published_by,
  publishedAt: new Date(r.published_at).toISOString(),
});

export const toPolicy = (r: PolicyRow): z.output<typeof Policy> => ({ ...toSummary(r), body: r.body });

export async function policyRow(q: Queryable, orgId: string, key: string, lock: '' | 'FOR UPDATE' = ''): Promise<PolicyRow | null> {
  const [row] = await q.query<PolicyRow>(`SELECT ${POLICY_COLUMNS} FROM policies WHERE org_id = $1 AND key = $2 ${lock}`, [orgId, key]);
  return row ?? null;
}

/** Every policy of the org by key, without bodies. */
export async function policySummaries(q: Queryable, orgId: string): Promise<z.output<typeof PolicySummary>[]> {
  return (await q.query<Omit<PolicyRow, 'body'>>(`SELECT ${SUMMARY_COLUMNS} FROM policies WHERE org_id = $1 ORDER BY key`, [orgId])).map(toSummary);
}

export interface PolicyVersionRow {
  version: number;
  title: string;
  status: 'published' | 'retired';
  effective_from: string;
  settings: Record<string, number> | string | null;
  content_hash: string;
  approval_id: string | null;
  published_by: string;
  published_at: string;
}

/** A policy's versions, newest first, without bodies. */
export async function policyHistory(q: Queryable, orgId: string, policyId: string) {
  const rows = await q.query<PolicyVersionRow>(
    `SELECT version, title, status, effective_from, settings, content_hash, approval_id, published_by, published_at
       FROM policy_versions WHERE org_id = $1 AND policy_id = $2 ORDER BY version DESC`,
    [orgId, policyId],
  );
  return rows.map((r) => ({
    version: Number(r.version),
    title: r.title,
    status: r.status,
    effectiveFrom: r.effective_from,
    settings: r.settings === null ? null : json(r.settings),
    contentHash: r.content_hash,
    approvalId: r.approval_id,
    publishedBy: r.published_by,
    publishedAt: new Date(r.published_at).toISOString(),
  }));
}
