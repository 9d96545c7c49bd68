import { badRequest } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { callerOf, fileAccess, type FileAccess, type FileRole } from '../access.js';
import { activeFile, setHead } from '../model.js';
import { compose, insertRevision, loadRevision, saveSlides, type DeckState, type RevisionMeta, type SlideRef, type StoredSlide } from './store.js';

/*
 * What every deck write shares: the deck itself (a file of kind deck the caller holds a role on, checked as the doc
 * handlers check theirs), its head, and the commit of a new revision: slides stored, the revision appended, and
 * (for a handler) the files row showing the new head, all in the caller's transaction.
 */

/** The deck and the caller's role (`write`: the row FOR UPDATE, and a trashed deck refused). */
export async function deckAccess(ctx: HandlerCtx, fileId: string, need: FileRole, write: boolean): Promise<FileAccess> {
  const caller = callerOf(ctx.principal);
  const now = ctx.deps.clock.now();
  const access = write
    ? await activeFile(ctx.q, ctx.orgId, fileId, caller, need, now, true)
    : await fileAccess(ctx.q, ctx.orgId, fileId, caller, need, { now });
  if (access.file.kind !== 'deck') throw badRequest('fileId', `${fileId} is a ${access.file.kind}, not a deck`);
  return access;
}

/** The deck's head revision (every deck has one from files.create on). */
export async function headOf(q: Queryable, orgId: string, fileId: string): Promise<DeckState> {
  const head = await loadRevision(q, orgId, fileId);
  if (!head) throw new Error(`deck ${fileId} has no revision`);
  return head;
}

/** Append the next revision of `slides` (stored: every slide they hold; `added` among them the new ones). */
export async function commitRevision(
  q: Queryable,
  orgId: string,
  fileId: string,
  prev: DeckState | undefined,
  slides: readonly SlideRef[],
  stored: ReadonlyMap<string, StoredSlide>,
  added: Iterable<StoredSlide>,
  meta: RevisionMeta,
): Promise<{ state: DeckState; text: string }> {
  const composed = compose(slides, stored);
  await saveSlides(q, orgId, fileId, added);
  const state = await insertRevision(q, orgId, fileId, (prev?.revision ?? 0) + 1, slides, composed, meta);
  return { state, text: composed.text };
}

/** commitRevision for a handler: the files row then shows the new head. */
export async function commitForCall(
  ctx: HandlerCtx,
  fileId: string,
  prev: DeckState,
  slides: readonly SlideRef[],
  stored: ReadonlyMap<string, StoredSlide>,
  added: Iterable<StoredSlide>,
  meta: Omit<RevisionMeta, 'at' | 'authorId'>,
): Promise<DeckState> {
  const at = ctx.deps.clock.now().toISOString();
  const { state, text } = await commitRevision(ctx.q, ctx.orgId, fileId, prev, slides, stored, added, { ...meta, authorId: ctx.principal.id, at });
  await setHead(ctx.q, ctx.orgId, fileId, { revision: state.revision, sha256: state.contentSha256, sizeBytes: state.sizeBytes, text }, ctx.principal.id, at);
  return state;
}
