import type { z } from 'zod';
import { badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import type { Amendment, Comment, Decision, Link, Signature } from '../../../protocol/methods/decision.js';
import type { Queryable } from '../../../db/types.js';

/* The decision rows (migration 032) and how decision.* and GET /decision.list show them. */

export interface DecisionRow {
  decision_id: string;
  number: number;
  title: string;
  area: string;
  context: string | null;
  decision: string;
  consequences: string | null;
  amendment: z.output<typeof Amendment> | string | null;
  amendment_applied_version: number | null;
  amendment_applied_at: string | null;
  links: z.output<typeof Link>[] | string;
  version: number;
  content_hash: string;
  status: z.output<typeof Decision>['status'];
  driver: string;
  outcome: string | null;
  review_on: string | null;
  supersedes: string[];
  superseded_by: string | null;
  adopted_version: number | null;
  adopted_hash: string | null;
  adopted_by: string | null;
  adopted_at: string | null;
  adopted_override: boolean | null;
  adopted_approval: string | null;
  closed_by: string | null;
  closed_at: string | null;
  closed_reason: string | null;
  created_at: string;
  updated_at: string;
}

export const DECISION_COLUMNS = `decision_id, number, title, area, context, decision, consequences, amendment, amendment_applied_version,
  amendment_applied_at, links, version, content_hash, status, driver, outcome, review_on, supersedes, superseded_by, adopted_version,
  adopted_hash, adopted_by, adopted_at, adopted_override, adopted_approval, closed_by, closed_at, closed_reason, created_at, updated_at`;

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);

/** What a version is: the fields a driver proposes. Its hash is the contentHash a signature binds. */
export interface Content {
  title: string;
  area: string;
  context: string | null;
  decision: string;
  consequences: string | null;
  amendment: z.output<typeof Amendment> | null;
  links: z.output<typeof Link>[];
}

export const contentOf = (r: DecisionRow): Content => ({
  title: r.title,
  area: r.area,
  context: r.context,
  decision: r.decision,
  consequences: r.consequences,
  amendment: r.amendment === null ? null : json(r.amendment),
  links: json(r.links),
});

export const contentHash = (c: Content): string => sha256Hex(canonicalJson(c));

export const OPEN: ReadonlySet<string> = new Set(['proposed', 'adjustment_requested']);
export const isOpen = (r: DecisionRow): boolean => OPEN.has(r.status);

/** How messages name a decision: `D-12 (dec_…)`. */
export const ref = (r: DecisionRow): string => `D-${r.number} (${r.decision_id})`;

export function toDecision(r: DecisionRow): z.output<typeof Decision> {
  return {
    id: r.decision_id,
    number: Number(r.number),
    ...contentOf(r),
    amendmentApplied:
      r.amendment_applied_version === null || r.amendment_applied_at === null
        ? null
        : { charterVersion: Number(r.amendment_applied_version), at: r.amendment_applied_at },
    version: Number(r.version),
    contentHash: r.content_hash,
    status: r.status,
    driver: r.driver,
    outcome: r.outcome,
    reviewOn: r.review_on,
    supersedes: r.supersedes ?? [],
    supersededBy: r.superseded_by,
    adopted:
      r.adopted_version === null || r.adopted_at === null
        ? null
        : {
            version: Number(r.adopted_version),
            contentHash: r.adopted_hash ?? '',
            by: r.adopted_by ?? '',
            at: r.adopted_at,
            override: Boolean(r.adopted_override),
            approvalId: r.adopted_approval,
          },
    closed: r.closed_at === null ? null : { by: r.closed_by ?? '', at: r.closed_at, reason: r.closed_reason },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The decision, or NOT_FOUND (another org's id looks exactly like one that never existed). */
export async function getDecision(q: Queryable, orgId: string, decisionId: string, lock: '' | 'FOR UPDATE' = ''): Promise<DecisionRow> {
  const [row] = await q.query<DecisionRow>(`SELECT ${DECISION_COLUMNS} FROM decisions WHERE org_id = $1 AND decision_id = $2 ${lock}`, [orgId, decisionId]);
  if (!row) throw notFound(`decision ${decisionId}`);
  return row;
}

/** Several decisions locked in id order (two supersedes over the same records cannot deadlock); NOT_FOUND names the first missing. */
export async function lockDecisions(q: Queryable, orgId: string, ids: readonly string[]): Promise<Map<string, DecisionRow>> {
  const rows = await q.query<DecisionRow>(
    `SELECT ${DECISION_COLUMNS} FROM decisions WHERE org_id = $1 AND decision_id = ANY($2::text[]) ORDER BY decision_id FOR UPDATE`,
    [orgId, [...ids]],
  );
  const byId = new Map(rows.map((r) => [r.decision_id, r]));
  const missing = ids.find((id) => !byId.has(id));
  if (missing) throw notFound(`decision ${missing}`);
  return byId;
}

/** A closed decision refuses what only an open one takes, naming the way forward. */
export function refuseClosed(r: DecisionRow, act: string): never {
  if (r.status === 'adopted') {
    throw conflict(
      `decision ${ref(r)} is adopted, so it is closed to ${act}: revisit it with a new decision that supersedes it (decision.propose, then decision.supersede)`,
    );
  }
  if (r.status === 'superseded') throw conflict(`decision ${ref(r)} is superseded by ${r.superseded_by}: it is closed; work on ${r.superseded_by} instead`);
  throw conflict(`decision ${ref(r)} is ${r.status}: closed is final; propose a new decision instead`);
}

/** The version acted on must be the current one. */
export function refuseStale(r: DecisionRow, version: number): void {
  if (version === Number(r.version)) return;
  throw conflict(
    `version ${version} of decision ${ref(r)} is ${version < Number(r.version) ? 'stale' : 'not proposed yet'}: it is at version ${r.version}; ` +
      `read it (GET /api/v1/decision.list?id=${r.decision_id}) and act on version ${r.version}`,
  );
}

/** Links to decisions must name decisions of this org. */
export async function checkLinks(q: Queryable, orgId: string, links: readonly z.output<typeof Link>[]): Promise<void> {
  const ids = links.map((l) => l.target).filter((t) => /^dec_[A-Za-z0-9]+$/.test(t));
  if (ids.length === 0) return;
  const found = new Set(
    (await q.query<{ decision_id: string }>('SELECT decision_id FROM decisions WHERE org_id = $1 AND decision_id = ANY($2::text[])', [orgId, ids])).map(
      (r) => r.decision_id,
    ),
  );
  const i = links.findIndex((l) => ids.includes(l.target) && !found.has(l.target));
  if (i >= 0) throw badRequest(`links.${i}.target`, `no decision ${links[i].target} in this org`);
}

export interface SignatureRow {
  signature_id: string;
  decision_id: string;
  version: number;
  content_hash: string;
  signer: string;
  signer_kind: 'human' | 'agent';
  relayed_by: string | null;
  approval_id: string | null;
  signed_at: string;
}

export const SIGNATURE_COLUMNS = 'signature_id, decision_id, version, content_hash, signer, signer_kind, relayed_by, approval_id, signed_at';

export const toSignature = (s: SignatureRow, currentVersion: number): z.output<typeof Signature> => ({
  id: s.signature_id,
  decisionId: s.decision_id,
  version: Number(s.version),
  contentHash: s.content_hash,
  signer: s.signer,
  signerKind: s.signer_kind,
  relayedBy: s.relayed_by,
  approvalId: s.approval_id,
  current: Number(s.version) === Number(currentVersion),
  signedAt: s.signed_at,
});

export async function signaturesOn(q: Queryable, orgId: string, decisionId: string, version: number): Promise<SignatureRow[]> {
  return q.query<SignatureRow>(
    `SELECT ${SIGNATURE_COLUMNS} FROM decision_signatures WHERE org_id = $1 AND decision_id = $2 AND version = $3 ORDER BY signed_at, signature_id`,
    [orgId, decisionId, version],
  );
}

export interface CommentRow {
  comment_id: string;
  decision_id: string;
  version: number;
  kind: 'comment' | 'adjustment';
  body: string;
  author: string;
  created_at: string;
  resolved_at: string | null;
}

export const COMMENT_COLUMNS = 'comment_id, decision_id, version, kind, body, author, created_at, resolved_at';

export const toComment = (c: CommentRow): z.output<typeof Comment> => ({
  id: c.comment_id,
  decisionId: c.decision_id,
  version: Number(c.version),
  kind: c.kind,
  body: c.body,
  author: c.author,
  createdAt: c.created_at,
  resolvedAt: c.resolved_at,
});

/** Adjustment requests still blocking the version. */
export async function openAdjustments(q: Queryable, orgId: string, decisionId: string, version: number): Promise<number> {
  const [row] = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM decision_comments
      WHERE org_id = $1 AND decision_id = $2 AND version = $3 AND kind = 'adjustment' AND resolved_at IS NULL`,
    [orgId, decisionId, version],
  );
  return Number(row?.n ?? 0);
}

/** An open decision is adjustment_requested while an adjustment request blocks its current version, else proposed. */
export async function refreshOpenStatus(q: Queryable, orgId: string, decisionId: string): Promise<void> {
  await q.query(
    `UPDATE decisions d SET status = CASE WHEN EXISTS (
         SELECT 1 FROM decision_comments c WHERE c.org_id = d.org_id AND c.decision_id = d.decision_id AND c.version = d.version
            AND c.kind = 'adjustment' AND c.resolved_at IS NULL) THEN 'adjustment_requested' ELSE 'proposed' END,
       updated_at = now()
      WHERE d.org_id = $1 AND d.decision_id = $2 AND d.status IN ('proposed', 'adjustment_requested')`,
    [orgId, decisionId],
  );
}
