import { badRequest } from '../../../protocol/errors.js';
import { decks as c } from '../../../protocol/methods/files/decks.js';
import { handler } from '../../core/handler.js';
import { deckAccess, headOf } from './revise.js';
import { loadRevision, loadSlides, slideValue } from './store.js';

/*
 * files.deckRead: a revision (default the head) of a deck: every slide id in order, and the slides (all, or those
 * named, in deck order). Viewers read; a trashed deck reads too. A whole read's {slides} hashes to contentSha256.
 */

export const deckRead = handler(c.deckRead, async (ctx, p) => {
  await deckAccess(ctx, p.fileId, 'viewer', false);
  const head = await headOf(ctx.q, ctx.orgId, p.fileId);
  if (p.revision !== undefined && p.revision > head.revision) throw badRequest('revision', `the head is revision ${head.revision}`);
  const state = p.revision === undefined || p.revision === head.revision ? head : await loadRevision(ctx.q, ctx.orgId, p.fileId, p.revision);
  if (!state) throw badRequest('revision', `no revision ${p.revision} (revisions run 1 to ${head.revision})`);

  let refs = state.slides;
  if (p.slideIds !== undefined) {
    const want = new Set(p.slideIds);
    const have = new Set(refs.map((s) => s.id));
    const i = p.slideIds.findIndex((id) => !have.has(id));
    if (i !== -1) throw badRequest(`slideIds.${i}`, `no slide ${p.slideIds[i]} in revision ${state.revision}`);
    refs = refs.filter((s) => want.has(s.id));
  }
  const stored = await loadSlides(
    ctx.q,
    ctx.orgId,
    p.fileId,
    refs.map((s) => s.hash),
  );
  return {
    fileId: p.fileId,
    revision: state.revision,
    head: head.revision,
    contentSha256: state.contentSha256,
    slideIds: state.slides.map((s) => s.id),
    slides: refs.map((s) => slideValue(stored.get(s.hash)!)),
  };
});
