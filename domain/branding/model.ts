import { z } from 'zod';
import { one, type Queryable } from '../../db/types.js';
import { ApiError, badRequest, conflict } from '../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import { FoundationDoc, type Foundation } from '../../protocol/methods/branding/index.js';
import { checkTokens } from './tokens.js';
import { contrastsOf } from './contrast.js';

/*
 * The foundation's rows: brand_heads (the history's last version, and the version whose foundation is live; locked
 * by every commit), brand_foundations (one immutable document per foundation version), brand_versions (the history).
 */

export type Doc = z.infer<typeof Foundation>;

export const EMPTY: Doc = { name: '', logos: {}, tokens: {}, usage: [], voice: { tone: '', rules: [], examples: [] } };

export interface Heads {
  version: number;
  foundationVersion: number;
}

/** The org's heads; `lock` takes the row for this transaction (every commit does, so commits run one at a time). */
export async function heads(q: Queryable, orgId: string, lock = false): Promise<Heads> {
  if (lock) await q.query('INSERT INTO brand_heads (org_id) VALUES ($1) ON CONFLICT (org_id) DO NOTHING', [orgId]);
  const [row] = await q.query<{ version: number; foundation_version: number }>(
    `SELECT version, foundation_version FROM brand_heads WHERE org_id = $1${lock ? ' FOR UPDATE' : ''}`,
    [orgId],
  );
  return { version: Number(row?.version ?? 0), foundationVersion: Number(row?.foundation_version ?? 0) };
}

export interface StoredFoundation {
  version: number;
  doc: Doc;
  sha256: string;
  savedAt: string | null;
  savedBy: string | null;
}

/** The foundation as at `version` (the last foundation saved at or before it); version 0 is the empty one. */
export async function foundationAt(q: Queryable, orgId: string, version: number): Promise<StoredFoundation> {
  const [row] = await q.query<{ version: number; doc: Doc; sha256: string; saved_at: string; saved_by: string }>(
    `SELECT version, doc, sha256, saved_at, saved_by FROM brand_foundations WHERE org_id = $1 AND version <= $2 ORDER BY version DESC LIMIT 1`,
    [orgId, version],
  );
  if (!row) return { version: 0, doc: EMPTY, sha256: hashOf(EMPTY), savedAt: null, savedBy: null };
  return { version: Number(row.version), doc: row.doc, sha256: row.sha256, savedAt: new Date(row.saved_at).toISOString(), savedBy: row.saved_by };
}

/** A foundation version that exists (restore, getFoundation {version}). */
export async function foundationOf(q: Queryable, orgId: string, version: number, h: Heads): Promise<StoredFoundation> {
  if (version > h.version) throw new ApiError('NOT_FOUND', `brand version ${version} not found: the latest is ${h.version} (branding.listVersions)`);
  return foundationAt(q, orgId, version);
}

export const hashOf = (doc: Doc): string => sha256Hex(canonicalJson(doc));

/** A voice rule's id follows from its text when not given, so a held save and its retry name the same rules. */
const ruleId = (text: string) => `vr_${sha256Hex(text).slice(0, 16)}`;

/**
 * Check a whole foundation (a merge patch's result): its shape, its tokens (DTCG), its pairs (WCAG AA). Returns the
 * document as stored (defaults filled, rule ids given) with its tokens and contrasts. Every refusal is BAD_REQUEST
 * naming the document's field.
 */
export function checkFoundation(raw: unknown) {
  const parsed = FoundationDoc.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue.path.map(String).join('.') || 'patch';
    const reason = issue.code === 'unrecognized_keys' ? `unknown field(s) ${issue.keys.join(', ')}` : issue.message;
    throw badRequest(issue.code === 'unrecognized_keys' && path === 'patch' ? 'patch' : path, reason);
  }
  const d = parsed.data;
  const seen = new Set<string>();
  const rules = d.voice.rules.map((r, i) => {
    const id = r.id ?? ruleId(r.text);
    if (seen.has(id)) throw badRequest(`voice.rules.${i}.id`, `${id} is used twice`);
    seen.add(id);
    return r.prefer ? { id, text: r.text, avoid: r.avoid, prefer: r.prefer } : { id, text: r.text, avoid: r.avoid };
  });
  const logos = Object.fromEntries(Object.entries(d.logos).filter((e): e is [string, string] => typeof e[1] === 'string'));
  const doc: Doc = { name: d.name, logos, tokens: d.tokens, usage: d.usage, voice: { tone: d.voice.tone, rules, examples: d.voice.examples } };
  const tokens = checkTokens(doc.tokens);
  const contrasts = contrastsOf(doc.usage, tokens, true);
  return { doc, tokens, contrasts };
}

/** Contrasts of a stored (already valid) foundation, for reads. */
export function contrastsOfStored(doc: Doc) {
  return contrastsOf(doc.usage, checkTokens(doc.tokens), false);
}

export function staleBase(base: number, current: number, what = 'baseVersion'): Error {
  return conflict(`the brand foundation is at version ${current}, not ${base}: read it (branding.getFoundation) and retry with ${what} ${current}`);
}

export async function writeVersion(
  q: Queryable,
  orgId: string,
  v: {
    version: number;
    kind: string;
    actor: string;
    at: string;
    ledgerSeq: number;
    fromVersion?: number | null;
    proposalId?: string | null;
    approvalId?: string | null;
  },
): Promise<void> {
  await q.query(
    `INSERT INTO brand_versions (org_id, version, kind, scope, actor, item_ids, ledger_seq, design_seq, from_version, proposal_id, approval_id, at)
     VALUES ($1, $2, $3, 'foundation', $4, '[]', $5, NULL, $6, $7, $8, $9)`,
    [orgId, v.version, v.kind, v.actor, v.ledgerSeq, v.fromVersion ?? null, v.proposalId ?? null, v.approvalId ?? null, v.at],
  );
}

export async function writeFoundation(q: Queryable, orgId: string, version: number, doc: Doc, by: string, at: string): Promise<string> {
  const sha256 = hashOf(doc);
  await q.query('INSERT INTO brand_foundations (org_id, version, doc, sha256, saved_by, saved_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    orgId,
    version,
    JSON.stringify(doc),
    sha256,
    by,
    at,
  ]);
  one(await q.query('UPDATE brand_heads SET version = $2, foundation_version = $2 WHERE org_id = $1 RETURNING 1', [orgId, version]));
  return sha256;
}
