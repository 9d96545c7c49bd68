import type { z } from 'zod';
import { badRequest, notFound } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { METHODS } from '../../protocol/registry.js';
import type { Sop, Step, sop as contracts } from '../../protocol/methods/sop.js';
import { one, type Queryable } from '../../db/types.js';

/* SOPs as rows: the current version on sops, every version in sop_versions; steps keep their stp_ ids across versions. */

export type StepOut = z.output<typeof Step>;
type StepIn = z.output<typeof contracts.create.params>['steps'][number];

export interface SopRow {
  sop_id: string;
  slug: string;
  title: string;
  purpose: string;
  trigger: string;
  owner_id: string;
  status: 'draft' | 'active' | 'archived';
  version: number;
  sha256: string;
  steps: StepOut[] | string;
  updated_at: string | Date;
  updated_by: string;
}

export const SOP_COLUMNS = 'sop_id, slug, title, purpose, trigger, owner_id, status, version, sha256, steps, updated_at, updated_by';

export const stepsOf = (r: SopRow): StepOut[] => (typeof r.steps === 'string' ? (JSON.parse(r.steps) as StepOut[]) : r.steps);

export const toSop = (r: SopRow): z.output<typeof Sop> => ({
  id: r.sop_id,
  slug: r.slug,
  title: r.title,
  purpose: r.purpose,
  trigger: r.trigger,
  ownerId: r.owner_id,
  status: r.status,
  version: Number(r.version),
  sha256: r.sha256,
  steps: stepsOf(r),
  updatedAt: new Date(r.updated_at).toISOString(),
  updatedBy: r.updated_by,
});

/** The slug a title names: lowercase ASCII words joined by dashes. */
export function slugOf(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  if (!slug) throw badRequest('title', 'needs a letter or digit (its slug names the SOP)');
  return slug;
}

/** SHA-256 of what agents are told: title, purpose, trigger and steps, canonical JSON. */
export const contentHash = (c: { title: string; purpose: string; trigger: string; steps: readonly StepOut[] }): string =>
  sha256Hex(canonicalJson({ title: c.title, purpose: c.purpose, trigger: c.trigger, steps: c.steps }));

/** Steps checked (methods against the registry, ids kept from `current`) and given ids. */
export function buildSteps(input: readonly StepIn[], current: readonly StepOut[] | null, sopId: string, version: number): StepOut[] {
  const known = new Set((current ?? []).map((s) => s.id));
  const seen = new Set<string>();
  return input.map((s, i) => {
    if (s.method !== undefined && !METHODS.has(s.method)) throw badRequest(`steps.${i}.method`, 'unknown method (a registry method such as board.createTask)');
    if (s.id !== undefined) {
      if (!current) throw badRequest(`steps.${i}.id`, 'a new SOP’s steps get new ids: leave id out');
      if (!known.has(s.id)) throw badRequest(`steps.${i}.id`, `not a step of ${sopId}`);
      if (seen.has(s.id)) throw badRequest(`steps.${i}.id`, 'listed twice');
      seen.add(s.id);
    }
    // New steps' ids follow from the SOP, version and place, so a held act and its retry hash the same.
    return {
      id: s.id ?? `stp_${sha256Hex(`${sopId}\n${version}\n${i}`).slice(0, 20)}`,
      text: s.text,
      kind: s.kind,
      method: s.method ?? null,
      requiresHuman: s.requiresHuman,
    };
  });
}

export async function loadSop(q: Queryable, orgId: string, sopId: string, lock: '' | 'FOR UPDATE' = ''): Promise<SopRow> {
  const [row] = await q.query<SopRow>(`SELECT ${SOP_COLUMNS} FROM sops WHERE org_id = $1 AND sop_id = $2 ${lock}`, [orgId, sopId]);
  if (!row) throw notFound(`SOP ${sopId}`);
  return row;
}

export interface Version {
  sopId: string;
  version: number;
  title: string;
  purpose: string;
  trigger: string;
  status: string;
  steps: readonly StepOut[];
  sha256: string;
  by: string;
  at: string;
  approvalId: string | null;
}

/** The row's current version, and the same version in sop_versions. */
export async function writeVersion(q: Queryable, orgId: string, v: Version, create: { slug: string } | null): Promise<SopRow> {
  const text = v.steps.map((s) => s.text).join('\n');
  const methods = [...new Set(v.steps.flatMap((s) => (s.method ? [s.method] : [])))];
  const values = [orgId, v.sopId, v.title, v.purpose, v.trigger, v.status, v.version, v.sha256, JSON.stringify(v.steps), text, methods, v.at, v.by];
  const row = one(
    create
      ? await q.query<SopRow>(
          `INSERT INTO sops (org_id, sop_id, title, purpose, trigger, status, version, sha256, steps, steps_text, methods, created_at, updated_at, updated_by,
                           owner_id, slug)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11, $12, $12, $13, $13, $14) RETURNING ${SOP_COLUMNS}`,
          [...values, create.slug],
        )
      : await q.query<SopRow>(
          `UPDATE sops SET title = $3, purpose = $4, trigger = $5, status = $6, version = $7, sha256 = $8, steps = $9::jsonb, steps_text = $10, methods = $11,
                updated_at = $12, updated_by = $13
          WHERE org_id = $1 AND sop_id = $2 RETURNING ${SOP_COLUMNS}`,
          values,
        ),
  );
  await q.query(
    `INSERT INTO sop_versions (org_id, sop_id, version, title, purpose, trigger, status, steps, sha256, written_by, written_at, approval_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12)`,
    [orgId, v.sopId, v.version, v.title, v.purpose, v.trigger, v.status, JSON.stringify(v.steps), v.sha256, v.by, v.at, v.approvalId],
  );
  return row;
}

/** What changed between two versions' steps: ids added, removed, changed, and whether kept ones moved. */
export function stepDiff(before: readonly StepOut[], after: readonly StepOut[]) {
  const old = new Map(before.map((s) => [s.id, s]));
  const now = new Set(after.map((s) => s.id));
  const kept = after.filter((s) => old.has(s.id)).map((s) => s.id);
  return {
    added: after.filter((s) => !old.has(s.id)).map((s) => s.id),
    removed: before.filter((s) => !now.has(s.id)).map((s) => s.id),
    changed: after.filter((s) => old.has(s.id) && canonicalJson(old.get(s.id)) !== canonicalJson(s)).map((s) => s.id),
    moved:
      kept.join(',') !==
      before
        .filter((s) => now.has(s.id))
        .map((s) => s.id)
        .join(','),
  };
}
