import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { MAX_PINS_PER_PLACE } from '../../../../protocol/methods/file.js';
import { task, workstream } from './kit.js';
import { ok, rpc } from '../../../helpers/calls.js';

/*
 * Races (meaningful on PostgreSQL, where calls run in parallel): the same clientMsgId sent at once makes one
 * comment; two pins racing for a place's last slot leave exactly 50; the first comments on a record make one
 * discussion thread.
 */

describe('concurrency', () => {
  it('the same clientMsgId at once: one comment, the others changed:false', async ({ annotation: o }) => {
    const t = await task(o.s);
    const a = (await ok(o.s, 'annotation.create', { targetId: t, kind: 'flag' })).annotation;
    const results = await Promise.all(
      Array.from({ length: 6 }, () => rpc(o.s, 'annotation.comment', { annotationId: a.id, body: 'once', clientMsgId: 'race-1' }, o.mia.key)),
    );
    expect(results.every((r) => r.body.ok)).toBe(true);
    expect(new Set(results.map((r) => r.body.result.comment.id)).size).toBe(1);
    expect(results.filter((r) => r.body.result.changed)).toHaveLength(1);
    expect((await ok(o.s, 'annotation.getThread', { annotationId: a.id })).comments).toHaveLength(1);
  });

  it('first comments racing on a record make one discussion thread', async ({ annotation: o }) => {
    const t = await task(o.s);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => rpc(o.s, 'file.addComment', { targetId: t, body: `c${i}` }, o.mia.key)));
    expect(results.every((r) => r.body.ok)).toBe(true);
    expect(new Set(results.map((r) => r.body.result.annotationId)).size).toBe(1);
    expect((await ok(o.s, 'file.listComments', { targetId: t })).comments.map((c: any) => c.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('pins racing for the last slot of a place: exactly 50 live', async ({ annotation: o }) => {
    const ws = await workstream(o.s);
    for (let i = 0; i < MAX_PINS_PER_PLACE - 1; i++) await ok(o.s, 'file.pin', { targetId: await task(o.s), place: ws });
    const racers = await Promise.all(Array.from({ length: 4 }, () => task(o.s)));
    const results = await Promise.all(racers.map((targetId) => rpc(o.s, 'file.pin', { targetId, place: ws })));
    expect(results.filter((r) => r.body.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.body.ok).map((r) => r.body.error.code)).toEqual(['CONFLICT', 'CONFLICT', 'CONFLICT']);
    expect((await ok(o.s, 'file.listPinned', { place: ws })).pins).toHaveLength(MAX_PINS_PER_PLACE);
  });
});
