import { ApiError, badRequest } from '../../../protocol/errors.js';
import { fieldName } from '../../../protocol/json-bounds.js';
import { formatIssue, PARSE_CONTEXT } from '../../../protocol/schema.js';
import { DeckContent } from '../../../protocol/methods/files/decks.js';
import type { Queryable } from '../../../db/types.js';
import { newId } from '../../core/ids.js';
import type { ContentResult, KindContent } from '../kinds.js';
import { DECK_EXPORT_FORMATS, deckGuestHtml, exportDeck } from './export.js';
import { buildSlide } from './ops.js';
import { commitRevision } from './revise.js';
import { eraseDeck, heldImages, holdImages, imagesOf, loadRevision, loadSlides, slideRecord, slideValue, type DeckState, type SlideValue } from './store.js';

/*
 * The deck kind's content module (domain/files/kinds.ts): what the drive calls to create, duplicate, restore and
 * export a deck without reading deck tables. files.create's content is {slides:[{layout?, title?, body?, notes?,
 * elements?}]}; absent, the deck starts with one empty title slide.
 */

const FIELD = 'content';

/** `slides.0.title` as the docs name fields: `content.slides[0].title`. */
const fieldOf = (path: readonly PropertyKey[]) => FIELD + path.map((p) => `.${typeof p === 'number' ? p : fieldName(p)}`).join('');

/** files.create's content as slides; BAD_REQUEST names params.content…. */
function slidesFromContent(content: unknown): SlideValue[] {
  if (content === undefined || content === null) return [buildSlide(newId('sld'), {}, undefined, 'title')];
  if (typeof content !== 'object' || Array.isArray(content) || !('slides' in content)) {
    throw badRequest(FIELD, 'must be {slides:[{layout?, title?, body?, notes?, elements?}, …]}');
  }
  const parsed = DeckContent.safeParse(content, PARSE_CONTEXT);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue.code === 'unrecognized_keys')
      throw badRequest(fieldOf(issue.path), `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.slice(0, 10).map(fieldName).join(', ')}`);
    throw new ApiError('BAD_REQUEST', formatIssue({ ...issue, path: [] }, fieldOf(issue.path)));
  }
  return parsed.data.slides.map((s, i) => buildSlide(newId('sld'), s, undefined, i === 0 ? 'title' : 'titleAndBody'));
}

const result = (state: DeckState, text: string): ContentResult => ({ revision: state.revision, sha256: state.contentSha256, sizeBytes: state.sizeBytes, text });

async function revisionOrRefuse(q: Queryable, orgId: string, fileId: string, revision: number | undefined, field: string): Promise<DeckState> {
  const state = await loadRevision(q, orgId, fileId, revision);
  if (!state) throw badRequest(field, revision === undefined ? `${fileId} has no content yet` : `${fileId} has no revision ${revision}`);
  return state;
}

export const deckContent: KindContent = {
  exportFormats: DECK_EXPORT_FORMATS,

  async create(q, orgId, fileId, authorId, content, now) {
    const slides = slidesFromContent(content);
    const written = slides.map((slide, i) => ({ slide, field: `${FIELD}.slides.${i}` }));
    const records = written.map(({ slide, field }) => slideRecord(slide, field));
    const stored = new Map(records.map((s) => [s.hash, s]));
    const refs = slides.map((s, i) => ({ id: s.id, hash: records[i].hash }));
    // The creator claims images as its own uploads.
    await holdImages(q, orgId, fileId, imagesOf(written), new Set(), authorId);
    const { state, text } = await commitRevision(q, orgId, fileId, undefined, refs, stored, stored.values(), {
      source: 'create',
      authorId,
      at: now.toISOString(),
    });
    return result(state, text);
  },

  async duplicate(q, orgId, fromId, toId, authorId, now) {
    const from = await revisionOrRefuse(q, orgId, fromId, undefined, 'fileId');
    const stored = await loadSlides(
      q,
      orgId,
      fromId,
      from.slides.map((s) => s.hash),
    );
    // Same slide and element ids: a copy reads as the original does (comments stay with the original). The caller
    // reads the original, so the copy holds its images without an uploader check.
    const images = new Map([...heldImages(stored.values())].map((h) => [h, 'fileId']));
    await holdImages(q, orgId, toId, images, new Set(), authorId, true);
    const { state, text } = await commitRevision(q, orgId, toId, undefined, from.slides, stored, stored.values(), {
      source: 'duplicate',
      authorId,
      at: now.toISOString(),
    });
    return result(state, text);
  },

  async restoreRevision(q, orgId, fileId, revision, authorId, now) {
    const head = await revisionOrRefuse(q, orgId, fileId, undefined, 'toRevision');
    const old = revision === head.revision ? head : await revisionOrRefuse(q, orgId, fileId, revision, 'toRevision');
    // Its slides are stored, and their images held (a deck releases none before its purge).
    const stored = await loadSlides(
      q,
      orgId,
      fileId,
      old.slides.map((s) => s.hash),
    );
    const { state, text } = await commitRevision(q, orgId, fileId, head, old.slides, stored, [], {
      source: 'restore',
      authorId,
      at: now.toISOString(),
      baseRevision: revision,
    });
    return result(state, text);
  },

  // files.delete permanent: the text goes for good; the drive releases the blobs held by fil_….
  purge: eraseDeck,

  // pdf and pptx show the images the deck holds (env.blob): holdImages keeps every revision's images held.
  async exportAs(q, orgId, fileId, format, revision, env) {
    const state = await revisionOrRefuse(q, orgId, fileId, revision, 'revision');
    const stored = await loadSlides(
      q,
      orgId,
      fileId,
      state.slides.map((s) => s.hash),
    );
    return exportDeck(
      state.slides.map((s) => slideValue(stored.get(s.hash)!)),
      format,
      env,
    );
  },

  async guestHtml(q, orgId, fileId) {
    const state = await revisionOrRefuse(q, orgId, fileId, undefined, 'fileId');
    const stored = await loadSlides(
      q,
      orgId,
      fileId,
      state.slides.map((s) => s.hash),
    );
    return deckGuestHtml(state.slides.map((s) => slideValue(stored.get(s.hash)!)));
  },
};
