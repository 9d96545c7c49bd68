import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../helpers/calls.js';
import { openOrgStream } from '../../helpers/org-stream.js';
import { artOrg, draft, idem, postedForm, type ArtOrg } from './kit.js';

/*
 * Artifact changes reach the org stream as `artifact` frames with no ledger id (the registry keeps artifact R),
 * only for those who see the artifact: a draft's patch reaches nobody but its author; ids and counts, never content.
 */

let o: ArtOrg;
let base: string;
beforeAll(async () => {
  o = await artOrg();
  base = await o.s.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => o.s.close());

describe('artifact stream frames', () => {
  it('a patch and a response are pushed live to viewers as frames without an id; a draft reaches its author only', async () => {
    const a = await postedForm(o);
    const mia = await openOrgStream(base, o.mia.key);
    const agent = await openOrgStream(base, o.agent.key);
    try {
      await mia.until(() => mia.comments.some((c) => c.startsWith('live after')), 'live');
      await agent.until(() => agent.comments.some((c) => c.startsWith('live after')), 'live');
      const d = await draft(o);
      await ok(o.s, 'artifact.patch', { artifactId: d.id, baseRevision: 1, idempotencyId: idem('p'), set: [{ path: '/x', value: 'secret' }] }, o.agent.key);
      await ok(o.s, 'artifact.patch', { artifactId: a.id, baseRevision: 1, idempotencyId: idem('p'), set: [{ path: '/status', value: 'paid' }] }, o.agent.key);
      const artifactFrames = <F extends { data: any }>(frames: F[]) => frames.filter((f) => f.data.kind === 'artifact.changed');
      await mia.until(() => artifactFrames(mia.frames).length >= 1, 'the patch frame');
      await agent.until(() => artifactFrames(agent.frames).length >= 2, 'both patch frames');
      const frame = artifactFrames(mia.frames)[0];
      expect(Number.isNaN(frame.id)).toBe(true);
      expect(frame.data).toEqual({ kind: 'artifact.changed', artifactId: a.id, revision: 2, state: 'posted', responses: 0, channelId: o.channelId });
      expect(artifactFrames(mia.frames).map((f) => f.data.artifactId)).not.toContain(d.id);
      expect(JSON.stringify(mia.frames)).not.toContain('paid');
    } finally {
      mia.close();
      agent.close();
    }
  });
});
