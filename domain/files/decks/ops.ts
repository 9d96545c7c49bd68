import { badRequest, conflict } from '../../../protocol/errors.js';
import { MAX_SLIDES, type DeckOpInput, type SlideInputValue } from '../../../protocol/methods/files/decks.js';
import { newId } from '../../core/ids.js';
import { slideRecord, type DeckState, type Element, type SlideRef, type SlideValue, type StoredSlide } from './store.js';

/*
 * Slide ops (files.deckWriteSlides): insert, update, delete and move by slide id, applied in order to a copy of the
 * head. Positions count in the deck as the earlier ops left it. Concurrency is by slide, as docs' is by block: an op
 * whose slide changed (or went) between the caller's base revision and the head is a conflict (all named at once);
 * every other slide merges.
 */

/** Elements with ids settled: the caller's kept when free on the slide, else new. */
function settleElements(input: NonNullable<SlideInputValue['elements']>): Element[] {
  const ids = new Set<string>();
  return input.map((e) => {
    const id = e.id && !ids.has(e.id) ? e.id : newId('el');
    ids.add(id);
    const out: Element = { id, type: e.type, x: e.x, y: e.y, w: e.w, h: e.h };
    if (e.type === 'image') out.blobSha256 = e.blobSha256;
    else if (e.text !== undefined) out.text = e.text;
    return out;
  });
}

/** A slide from given fields over `prev` (an update) or the defaults (a new slide). */
export function buildSlide(id: string, input: SlideInputValue, prev?: SlideValue, layout: SlideValue['layout'] = 'titleAndBody'): SlideValue {
  return {
    id,
    layout: input.layout ?? prev?.layout ?? layout,
    title: input.title ?? prev?.title ?? '',
    body: input.body ?? prev?.body ?? '',
    notes: input.notes ?? prev?.notes ?? '',
    elements: input.elements ? settleElements(input.elements) : (prev?.elements ?? []),
  };
}

export interface Applied {
  slides: SlideRef[];
  /** Slides the result holds that were not stored before. */
  added: StoredSlide[];
  /** Slides the ops wrote, with the field naming each (their images must be held). */
  written: { slide: SlideValue; field: string }[];
  /** Per op: the slide it acted on. */
  results: { slideId: string }[];
  /** Added, changed, moved or removed relative to the head. */
  changedSlides: string[];
}

export interface ApplyInput {
  head: DeckState;
  /** The caller's base revision (the head itself when they are the same). */
  base: DeckState;
  /** Every head slide (and any other known slide) by hash; new ones are added. */
  stored: Map<string, StoredSlide>;
}

/** Apply ops to the head. BAD_REQUEST naming params.ops[i] for an op that cannot apply; CONFLICT naming stale slides. */
export function applyOps(ops: readonly DeckOpInput[], input: ApplyInput): Applied {
  const slides: SlideRef[] = input.head.slides.map((s) => ({ ...s }));
  const headHash = new Map(input.head.slides.map((s): [string, string] => [s.id, s.hash]));
  const baseHash = new Map(input.base.slides.map((s): [string, string] => [s.id, s.hash]));
  const removedBy = new Map<string, number>();
  const moved = new Set<string>();
  const conflicts: { index: number; id: string }[] = [];
  const added = new Map<string, StoredSlide>();
  const written: Applied['written'] = [];
  const results: Applied['results'] = [];

  const record = (slide: SlideValue, field: string): SlideRef => {
    const s = slideRecord(slide, field);
    if (!input.stored.has(s.hash)) added.set(s.hash, s);
    input.stored.set(s.hash, s);
    written.push({ slide, field });
    return { id: slide.id, hash: s.hash };
  };
  /** The op's slide's index now, or undefined after recording a conflict. */
  const target = (index: number, id: string, field: string): number | undefined => {
    const atBase = baseHash.get(id);
    if (atBase === undefined) {
      if (headHash.has(id)) return void conflicts.push({ index, id });
      throw badRequest(field, `no slide ${id} in this deck (deckRead lists slide ids)`);
    }
    if (headHash.get(id) !== atBase) return void conflicts.push({ index, id });
    const i = slides.findIndex((s) => s.id === id);
    if (i === -1) throw badRequest(field, `slide ${id} was deleted by ops.${removedBy.get(id)} of this call`);
    return i;
  };

  ops.forEach((op, index) => {
    const at = `ops.${index}`;
    switch (op.op) {
      case 'insert': {
        if (slides.length >= MAX_SLIDES) throw badRequest(at, `the deck would hold more than ${MAX_SLIDES} slides: delete some first`);
        const pos = op.position ?? slides.length;
        if (pos > slides.length) throw badRequest(`${at}.position`, `the deck holds ${slides.length} slides at this op: 0 to ${slides.length}`);
        const ref = record(buildSlide(newId('sld'), op.slide), `${at}.slide`);
        slides.splice(pos, 0, ref);
        results.push({ slideId: ref.id });
        return;
      }
      case 'update': {
        results.push({ slideId: op.slideId });
        const i = target(index, op.slideId, `${at}.slideId`);
        if (i === undefined) return;
        const prev = JSON.parse(input.stored.get(slides[i].hash)!.body) as SlideValue;
        slides[i] = record(buildSlide(op.slideId, op.fields, prev), `${at}.fields`);
        return;
      }
      case 'delete': {
        results.push({ slideId: op.slideId });
        const i = target(index, op.slideId, `${at}.slideId`);
        if (i === undefined) return;
        if (slides.length === 1) throw badRequest(at, 'a deck keeps at least one slide: insert another first, or update this one');
        slides.splice(i, 1);
        removedBy.set(op.slideId, index);
        return;
      }
      case 'move': {
        results.push({ slideId: op.slideId });
        const i = target(index, op.slideId, `${at}.slideId`);
        if (i === undefined) return;
        if (op.position >= slides.length) throw badRequest(`${at}.position`, `the deck holds ${slides.length} slides at this op: 0 to ${slides.length - 1}`);
        const [ref] = slides.splice(i, 1);
        slides.splice(op.position, 0, ref);
        moved.add(op.slideId);
        return;
      }
    }
  });

  if (conflicts.length > 0) {
    const named = [...new Set(conflicts.map((c) => c.id))];
    const opsNamed = [...new Set(conflicts.map((c) => `ops.${c.index}`))];
    throw conflict(
      `${named.slice(0, 20).join(', ')}${named.length > 20 ? ` and ${named.length - 20} more` : ''} changed since revision ${input.base.revision} (the head is ${input.head.revision}): ` +
        `${opsNamed.slice(0, 20).join(', ')} cannot apply. Read the head (files.deckRead), redo those ops against it, and send them with baseRevision ${input.head.revision}`,
    );
  }
  const headIndex = new Map(input.head.slides.map((s, i) => [s.id, i]));
  const finalHash = new Map(slides.map((s): [string, string] => [s.id, s.hash]));
  const changedSlides = [...new Set([...headHash.keys(), ...finalHash.keys()])].filter(
    (id) => headHash.get(id) !== finalHash.get(id) || (moved.has(id) && headIndex.get(id) !== slides.findIndex((s) => s.id === id)),
  );
  return { slides, added: [...added.values()], written, results, changedSlides };
}
