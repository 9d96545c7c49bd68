import type { Node } from 'prosemirror-model';
import { badRequest } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { blockText, docSchema } from '../../../protocol/doc-schema.js';
import type { Queryable } from '../../../db/types.js';
import { loadRevisionRow, saveParts } from '../content-store.js';

/*
 * Doc revisions and blocks (db/migrations/044_docs.sql). A block is stored once per file under the SHA-256 of its
 * canonical JSON; a revision lists its tabs' blocks as (id, hash). The hashes a doc is known by are built from the
 * stored canonical bytes by concatenation, never re-serialised:
 *   tab sha256     = SHA-256 of `{"content":[<block>,…],"type":"doc"}` (the tab's ProseMirror doc, canonical);
 *   contentSha256  = SHA-256 of `{"tabs":[{"content":<tab doc>,"id":…,"parentTabId":…,"title":…},…]}`,
 * which is the canonical JSON (RFC 8785) of what files.docRead returns as `doc` for a whole read.
 */

/** Largest tab, as canonical JSON bytes. */
export const MAX_TAB_BYTES = 2 * 1024 * 1024;
/** Most tabs a doc has. */
export const MAX_TABS = 100;

export interface BlockRef {
  id: string;
  hash: string;
}

export interface TabState {
  id: string;
  title: string;
  parentTabId: string | null;
  sha256: string;
  blocks: BlockRef[];
}

/** A tab being built: its sha256 comes when the revision is composed. */
export type TabDraft = Omit<TabState, 'sha256'>;

export interface DocState {
  revision: number;
  contentSha256: string;
  sizeBytes: number;
  tabs: TabState[];
}

export interface StoredBlock {
  hash: string;
  body: string;
  plain: string;
}

/** A block ready to store: its canonical bytes, hash and plain text. */
export function blockRecord(node: Node): StoredBlock {
  const body = canonicalJson(node.toJSON());
  return { hash: sha256Hex(body), body, plain: blockText(node) };
}

/** The node a stored block holds (stored JSON was checked when written). */
export const blockNode = (b: StoredBlock): Node => docSchema.nodeFromJSON(JSON.parse(b.body));

/*
 * Blocks are immutable under their hash, so a process-wide cache of them is never stale: a write to a large doc
 * then reads only the blocks it has not seen (1k-block edits stay well under 100 ms). Keyed by org and file, as
 * the table is; bounded by bytes, oldest first out.
 */
const CACHE_BYTES = 64 * 1024 * 1024;
const cache = new Map<string, StoredBlock>();
let cached = 0;
const cacheKey = (orgId: string, fileId: string, hash: string) => `${orgId}/${fileId}/${hash}`;
function remember(orgId: string, fileId: string, b: StoredBlock): void {
  const key = cacheKey(orgId, fileId, b.hash);
  if (cache.has(key)) return;
  cache.set(key, b);
  cached += b.body.length + b.plain.length;
  for (const [k, v] of cache) {
    if (cached <= CACHE_BYTES) break;
    cache.delete(k);
    cached -= v.body.length + v.plain.length;
  }
}

/** Erase a purged doc: its suggestions, revisions and blocks (and what the cache holds of them). */
export async function eraseDoc(q: Queryable, orgId: string, fileId: string): Promise<void> {
  for (const table of ['doc_suggestions', 'doc_revisions', 'doc_blocks']) await q.query(`DELETE FROM ${table} WHERE org_id = $1 AND file_id = $2`, [orgId, fileId]);
  const prefix = cacheKey(orgId, fileId, '');
  for (const [k, v] of cache) {
    if (!k.startsWith(prefix)) continue;
    cache.delete(k);
    cached -= v.body.length + v.plain.length;
  }
}

/** The stored blocks of these hashes (every one must exist). */
export async function loadBlocks(q: Queryable, orgId: string, fileId: string, hashes: Iterable<string>): Promise<Map<string, StoredBlock>> {
  const out = new Map<string, StoredBlock>();
  const missing: string[] = [];
  for (const h of new Set(hashes)) {
    const hit = cache.get(cacheKey(orgId, fileId, h));
    if (hit) out.set(h, hit);
    else missing.push(h);
  }
  if (missing.length > 0) {
    const rows = await q.query<StoredBlock>('SELECT hash, body, plain FROM doc_blocks WHERE org_id = $1 AND file_id = $2 AND hash = ANY($3::text[])', [orgId, fileId, missing]);
    for (const r of rows) {
      out.set(r.hash, r);
      remember(orgId, fileId, r);
    }
  }
  return out;
}

/** Store blocks (those already stored are left as they are: same hash, same bytes). */
export const saveBlocks = (q: Queryable, orgId: string, fileId: string, blocks: Iterable<StoredBlock>): Promise<void> =>
  saveParts(q, 'doc_blocks', orgId, fileId, blocks);

type StoredTab = { id: string; title: string; parentTabId: string | null; sha256: string; blocks: [string, string][] };

/** A revision of the doc (default its latest), or undefined when there is none such. */
export async function loadRevision(q: Queryable, orgId: string, fileId: string, revision?: number): Promise<DocState | undefined> {
  const row = await loadRevisionRow<StoredTab[]>(q, 'doc_revisions', 'tabs', orgId, fileId, revision);
  if (!row) return undefined;
  const { parts, ...head } = row;
  return {
    ...head,
    tabs: parts.map((t) => ({ id: t.id, title: t.title, parentTabId: t.parentTabId, sha256: t.sha256, blocks: t.blocks.map(([id, hash]) => ({ id, hash })) })),
  };
}

/** `{"content":[…],"type":"doc"}` from stored canonical block bytes: a tab's doc, canonical. */
export const tabDocText = (bodies: readonly string[]): string => `{"content":[${bodies.join(',')}],"type":"doc"}`;

const tabEntryText = (t: TabDraft, doc: string): string =>
  `{"content":${doc},"id":${canonicalJson(t.id)},"parentTabId":${canonicalJson(t.parentTabId)},"title":${canonicalJson(t.title)}}`;

export interface Composed {
  tabs: TabState[];
  contentSha256: string;
  sizeBytes: number;
  /** The doc's plain text (tabs and blocks on their own lines), for search. */
  text: string;
}

/**
 * Hashes and size of a doc made of these tabs, from the blocks' stored bytes. A tab past MAX_TAB_BYTES is a
 * BAD_REQUEST naming `field`.
 */
export function compose(tabs: readonly TabDraft[], blocks: ReadonlyMap<string, StoredBlock>, field: string): Composed {
  const entries: string[] = [];
  const texts: string[] = [];
  const out: TabState[] = tabs.map((t) => {
    const bodies = t.blocks.map((b) => blocks.get(b.hash)!.body);
    const doc = tabDocText(bodies);
    const bytes = doc.length > MAX_TAB_BYTES / 4 ? Buffer.byteLength(doc) : doc.length;
    if (bytes > MAX_TAB_BYTES) throw badRequest(field, `tab ${t.id} would be ${bytes} bytes of JSON, past the ${MAX_TAB_BYTES} limit of a tab: split it into tabs`);
    entries.push(tabEntryText(t, doc));
    texts.push(t.title, ...t.blocks.map((b) => blocks.get(b.hash)!.plain));
    return { ...t, blocks: [...t.blocks], sha256: sha256Hex(doc) };
  });
  const whole = `{"tabs":[${entries.join(',')}]}`;
  return { tabs: out, contentSha256: sha256Hex(whole), sizeBytes: Buffer.byteLength(whole), text: texts.join('\n') };
}

export interface RevisionMeta {
  source: 'create' | 'duplicate' | 'edit' | 'tab' | 'accept' | 'restore';
  authorId: string;
  at: string;
  baseRevision?: number;
  ops?: number;
  suggestionId?: string;
  acceptedBy?: string;
}

/** Append revision `revision` with these composed tabs. */
export async function insertRevision(q: Queryable, orgId: string, fileId: string, revision: number, doc: Composed, meta: RevisionMeta): Promise<DocState> {
  const tabs = doc.tabs.map((t) => ({ id: t.id, title: t.title, parentTabId: t.parentTabId, sha256: t.sha256, blocks: t.blocks.map((b) => [b.id, b.hash]) }));
  await q.query(
    `INSERT INTO doc_revisions (org_id, file_id, revision, tabs, content_sha256, size_bytes, source, base_revision, ops, suggestion_id, author_id, accepted_by, created_at)
     VALUES ($1, $2, $3, $4::json, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [orgId, fileId, revision, JSON.stringify(tabs), doc.contentSha256, doc.sizeBytes, meta.source, meta.baseRevision ?? null, meta.ops ?? 0, meta.suggestionId ?? null,
      meta.authorId, meta.acceptedBy ?? null, meta.at],
  );
  return { revision, contentSha256: doc.contentSha256, sizeBytes: doc.sizeBytes, tabs: doc.tabs };
}

/** Every block hash of a doc state. */
export const hashesOf = (tabs: readonly { blocks: readonly BlockRef[] }[]): string[] => tabs.flatMap((t) => t.blocks.map((b) => b.hash));
