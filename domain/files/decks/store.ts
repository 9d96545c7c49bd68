import { badRequest } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import type { SLIDE_LAYOUTS } from '../../../protocol/methods/files/decks.js';
import { referenceBlob } from '../../../blobs/index.js';
import type { Queryable, TxQueryable } from '../../../db/types.js';
import { MAX_BODY_TEXT_CHARS } from '../model.js';
import { loadRevisionRow, saveParts } from '../content-store.js';

/*
 * Deck revisions and slides (db/migrations/050_decks.sql). As docs keep blocks, a slide is stored once per file
 * under the SHA-256 of its canonical JSON, and a revision lists the deck's slides in order as (id, hash). The hashes
 * come from the stored canonical bytes by concatenation, never re-serialised:
 *   contentSha256 = SHA-256 of `{"slides":[<slide>,…]}`,
 * which is the canonical JSON (RFC 8785) of what files.deckRead returns for a whole read.
 */

/** Largest slide, as canonical JSON bytes (2 MiB, as a doc tab). */
export const MAX_SLIDE_BYTES = 2 * 1024 * 1024;

export interface Element {
  id: string;
  type: 'text' | 'image' | 'shape';
  x: number;
  y: number;
  w: number;
  h: number;
  text?: string;
  blobSha256?: string;
}

/** A slide as stored and read: every field present (elements back to front). */
export interface SlideValue {
  id: string;
  layout: (typeof SLIDE_LAYOUTS)[number];
  title: string;
  body: string;
  notes: string;
  elements: Element[];
}

export interface SlideRef {
  id: string;
  hash: string;
}

export interface StoredSlide {
  hash: string;
  body: string;
  plain: string;
}

export interface DeckState {
  revision: number;
  contentSha256: string;
  sizeBytes: number;
  slides: SlideRef[];
}

/** A slide ready to store: its canonical bytes, hash and text. Past MAX_SLIDE_BYTES is BAD_REQUEST naming `field`. */
export function slideRecord(slide: SlideValue, field: string): StoredSlide {
  const body = canonicalJson(slide);
  const bytes = body.length > MAX_SLIDE_BYTES / 4 ? Buffer.byteLength(body) : body.length;
  if (bytes > MAX_SLIDE_BYTES)
    throw badRequest(field, `slide ${slide.id} would be ${bytes} bytes of JSON, past the ${MAX_SLIDE_BYTES} limit of a slide: split it`);
  const plain = [slide.title, slide.body, slide.notes, ...slide.elements.map((e) => e.text ?? '')].filter((t) => t !== '').join('\n');
  return { hash: sha256Hex(body), body, plain };
}

export const slideValue = (s: StoredSlide): SlideValue => JSON.parse(s.body) as SlideValue;

/** The stored slides of these hashes (every one must exist). */
export async function loadSlides(q: Queryable, orgId: string, fileId: string, hashes: Iterable<string>): Promise<Map<string, StoredSlide>> {
  const want = [...new Set(hashes)];
  const out = new Map<string, StoredSlide>();
  if (want.length === 0) return out;
  const rows = await q.query<StoredSlide>('SELECT hash, body, plain FROM deck_slides WHERE org_id = $1 AND file_id = $2 AND hash = ANY($3::text[])', [
    orgId,
    fileId,
    want,
  ]);
  for (const r of rows) out.set(r.hash, r);
  return out;
}

/** Store slides (those already stored are left as they are: same hash, same bytes). */
export const saveSlides = (q: Queryable, orgId: string, fileId: string, slides: Iterable<StoredSlide>): Promise<void> =>
  saveParts(q, 'deck_slides', orgId, fileId, slides);

/** A revision of the deck (default its latest), or undefined when there is none such. */
export async function loadRevision(q: Queryable, orgId: string, fileId: string, revision?: number): Promise<DeckState | undefined> {
  const row = await loadRevisionRow<[string, string][]>(q, 'deck_revisions', 'slides', orgId, fileId, revision);
  if (!row) return undefined;
  const { parts, ...head } = row;
  return { ...head, slides: parts.map(([id, hash]) => ({ id, hash })) };
}

export interface Composed {
  contentSha256: string;
  sizeBytes: number;
  /** Titles, bodies, notes and element text, slide by slide, for search. */
  text: string;
}

/** Hashes, size and text of a deck of these slides, from their stored bytes. */
export function compose(slides: readonly SlideRef[], stored: ReadonlyMap<string, StoredSlide>): Composed {
  const whole = `{"slides":[${slides.map((s) => stored.get(s.hash)!.body).join(',')}]}`;
  // Bounded here as the drive bounds it (boundText), so a large deck never builds more text than search keeps.
  let text = '';
  for (const s of slides) {
    if (text.length >= MAX_BODY_TEXT_CHARS) break;
    const plain = stored.get(s.hash)!.plain;
    if (plain !== '') text += (text === '' ? '' : '\n') + plain.slice(0, MAX_BODY_TEXT_CHARS - text.length);
  }
  return { contentSha256: sha256Hex(whole), sizeBytes: Buffer.byteLength(whole), text };
}

export interface RevisionMeta {
  source: 'create' | 'duplicate' | 'edit' | 'restore';
  authorId: string;
  at: string;
  baseRevision?: number;
  ops?: number;
}

/** Append revision `revision` of these slides. */
export async function insertRevision(
  q: Queryable,
  orgId: string,
  fileId: string,
  revision: number,
  slides: readonly SlideRef[],
  deck: Composed,
  meta: RevisionMeta,
): Promise<DeckState> {
  await q.query(
    `INSERT INTO deck_revisions (org_id, file_id, revision, slides, content_sha256, size_bytes, source, base_revision, ops, author_id, created_at)
     VALUES ($1, $2, $3, $4::json, $5, $6, $7, $8, $9, $10, $11)`,
    [
      orgId,
      fileId,
      revision,
      JSON.stringify(slides.map((s) => [s.id, s.hash])),
      deck.contentSha256,
      deck.sizeBytes,
      meta.source,
      meta.baseRevision ?? null,
      meta.ops ?? 0,
      meta.authorId,
      meta.at,
    ],
  );
  return { revision, contentSha256: deck.contentSha256, sizeBytes: deck.sizeBytes, slides: [...slides] };
}

/** Image blobs of these slides, each with the field that names it (BAD_REQUEST). */
export function imagesOf(slides: Iterable<{ slide: SlideValue; field: string }>): Map<string, string> {
  const out = new Map<string, string>();
  for (const { slide, field } of slides) {
    slide.elements.forEach((e, j) => {
      if (e.blobSha256 && !out.has(e.blobSha256)) out.set(e.blobSha256, `${field}.elements.${j}.blobSha256`);
    });
  }
  return out;
}

/**
 * The deck (holder `fil_…`, which the drive releases on purge) holds these images (sha256 → the field naming it).
 * One not among `held` (what the deck holds already) must be the caller's own upload unless `copy` (the caller
 * reads a record holding it): a hash is not a permission. Revisions are immutable and restorable, so a deck
 * releases nothing before its purge.
 */
export async function holdImages(
  q: Queryable,
  orgId: string,
  fileId: string,
  images: ReadonlyMap<string, string>,
  held: ReadonlySet<string>,
  by: string,
  copy = false,
): Promise<void> {
  for (const [sha256, field] of images) {
    if (held.has(sha256)) continue;
    await referenceBlob(q as TxQueryable, { orgId, sha256, holder: fileId, by, field, ...(copy ? {} : { uploadedBy: by }) });
  }
}

/** Image blobs the stored slides hold. */
export const heldImages = (slides: Iterable<StoredSlide>): Set<string> =>
  new Set([...slides].flatMap((s) => slideValue(s).elements.flatMap((e) => (e.blobSha256 ? [e.blobSha256] : []))));

/** Erase a purged deck: its revisions and slides (its blobs go with holder fil_…, released by the drive). */
export async function eraseDeck(q: Queryable, orgId: string, fileId: string): Promise<void> {
  for (const table of ['deck_revisions', 'deck_slides']) await q.query(`DELETE FROM ${table} WHERE org_id = $1 AND file_id = $2`, [orgId, fileId]);
}
