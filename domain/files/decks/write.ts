import { badRequest } from '../../../protocol/errors.js';
import { decks as c } from '../../../protocol/methods/files/decks.js';
import { handler } from '../../core/handler.js';
import { orphanSlideThreads } from '../annotation/anchor.js';
import { applyOps } from './ops.js';
import { commitForCall, deckAccess, headOf } from './revise.js';
import { heldImages, holdImages, imagesOf, loadRevision, loadSlides } from './store.js';

/*
 * files.deckWriteSlides: ops by slide id against the revision the caller read (editors). Slides changed since the
 * base are CONFLICT naming them; untouched ones merge onto the head. The event carries ids, counts and hashes only.
 */

export const deckWriteSlides = handler(c.deckWriteSlides, async (ctx, p) => {
  await deckAccess(ctx, p.fileId, 'editor', true);
  const head = await headOf(ctx.q, ctx.orgId, p.fileId);
  if (p.baseRevision > head.revision)
    throw badRequest('baseRevision', `revision ${p.baseRevision} is ahead of the head (${head.revision}): read the deck again`);
  const base = p.baseRevision === head.revision ? head : (await loadRevision(ctx.q, ctx.orgId, p.fileId, p.baseRevision))!;
  const stored = await loadSlides(
    ctx.q,
    ctx.orgId,
    p.fileId,
    head.slides.map((s) => s.hash),
  );
  const held = heldImages(stored.values());
  const applied = applyOps(p.ops, { head, base, stored });
  const ids = { fileId: p.fileId, baseRevision: p.baseRevision, ops: p.ops.length };
  const same = applied.slides.length === head.slides.length && applied.slides.every((s, i) => s.id === head.slides[i].id && s.hash === head.slides[i].hash);

  if (same) {
    await ctx.emit('files.deck.revise', p.fileId, { ...ids, revision: head.revision, contentSha256: head.contentSha256, slides: 0, noop: true });
    return { outcome: 'unchanged', revision: head.revision, contentSha256: head.contentSha256, changedSlides: [], results: applied.results, changed: false };
  }
  // New images must be the caller's own uploads; those the head shows are held already.
  await holdImages(ctx.q, ctx.orgId, p.fileId, imagesOf(applied.written), held, ctx.principal.id);
  const state = await commitForCall(ctx, p.fileId, head, applied.slides, stored, applied.added, {
    source: 'edit',
    baseRevision: p.baseRevision,
    ops: p.ops.length,
  });
  // Threads on slides the ops deleted are orphaned, in this transaction.
  const kept = new Set(applied.slides.map((s) => s.id));
  await orphanSlideThreads(
    ctx.q,
    ctx.orgId,
    p.fileId,
    head.slides.filter((s) => !kept.has(s.id)).map((s) => s.id),
  );
  await ctx.emit('files.deck.revise', p.fileId, {
    ...ids,
    revision: state.revision,
    contentSha256: state.contentSha256,
    sizeBytes: state.sizeBytes,
    slides: applied.changedSlides.length,
    slideCount: state.slides.length,
  });
  return {
    outcome: 'revised',
    revision: state.revision,
    contentSha256: state.contentSha256,
    changedSlides: applied.changedSlides,
    results: applied.results,
    changed: true,
  };
});
