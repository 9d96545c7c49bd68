import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { annOrg, channel, folder, team, tinyWav, type AnnOrg, upload, workstream } from './kit.js';
import { ok, refused } from '../../../helpers/calls.js';

/*
 * domain/refs.ts through annotation.create, getThread and file.pin: each prefix's own family decides who reads
 * the record, so a thread or pin on a private record never shows to someone who cannot read it (NOT_FOUND), and a
 * key without the record's read scope is FORBIDDEN_SCOPE naming it. Selectors fit their targets.
 */

let o: AnnOrg;
beforeAll(async () => {
  o = await annOrg();
});
afterAll(() => o.s.close());

const flag = (targetId: string, key?: string) => ok(o.s, 'annotation.create', { targetId, kind: 'flag' }, key);

describe('references', () => {
  it('messages and channels: a private channel and its messages are NOT_FOUND to non-members; messaging.read is needed', async () => {
    const priv = await channel(o.s, o.mia.key, true, [o.agent.id]);
    const msg = (await ok(o.s, 'messaging.send', { channelId: priv, idempotencyId: 'm-1', text: 'inside' }, o.mia.key)).message.id;
    const onMsg = (await flag(msg, o.agent.key)).annotation;
    expect(onMsg).toMatchObject({ targetType: 'message' });
    expect((await flag(priv, o.mia.key)).annotation.targetType).toBe('channel');
    for (const id of [priv, msg])
      expect(await refused(o.s, 'annotation.create', { targetId: id, kind: 'flag' }, 'NOT_FOUND', { key: o.max.key })).toBe(`${id} not found`);
    expect(await refused(o.s, 'annotation.getThread', { annotationId: onMsg.id }, 'NOT_FOUND', { key: o.max.key })).toBe(`annotation ${onMsg.id} not found`);
    expect((await ok(o.s, 'annotation.list', {}, o.max.key)).annotations.map((a: any) => a.id)).not.toContain(onMsg.id);
    expect(await refused(o.s, 'annotation.create', { targetId: msg, kind: 'flag' }, 'FORBIDDEN_SCOPE', { key: o.orgOnly.key })).toMatch(
      /scope messaging\.read/,
    );
    // The author dismisses any thread on their message; another member of the channel who is not an editor of it cannot.
    const byAgent = (await flag(msg, o.agent.key)).annotation;
    expect((await ok(o.s, 'annotation.dismiss', { annotationId: byAgent.id }, o.mia.key)).changed).toBe(true);
  });

  it("decisions, teams, workstreams and calls; a transcript line must be the call's", async () => {
    await ok(o.s, 'governance.set_decision_rights', { rights: [{ area: 'ops', decidedBy: o.owner.id }] });
    const dec = (await ok(o.s, 'decision.propose', { title: 'Adopt X', area: 'ops', decision: 'We adopt X.' }, o.mia.key)).decision.id;
    expect((await flag(dec)).annotation.targetType).toBe('decision');
    expect((await flag(await team(o.s))).annotation.targetType).toBe('team');
    expect((await flag(await workstream(o.s))).annotation.targetType).toBe('workstream');

    const ch = await channel(o.s, o.mia.key, false, [o.max.id]);
    const call = (await ok(o.s, 'calling.start', { channelId: ch }, o.mia.key)).call.id;
    const line = (await ok(o.s, 'calling.addTranscriptLine', { callId: call, speaker: o.mia.id, text: 'we ship friday', startMs: 0, endMs: 900 }, o.mia.key))
      .line.id;
    const onLine = (await ok(o.s, 'annotation.create', { targetId: call, kind: 'highlight', selector: { type: 'line', lineId: line } }, o.max.key)).annotation;
    expect(onLine).toMatchObject({ targetType: 'call', selector: { type: 'line', lineId: line } });
    const onTime = (await ok(o.s, 'annotation.create', { targetId: call, kind: 'flag', selector: { type: 'time', startMs: 0, endMs: 500 } }, o.max.key))
      .annotation;
    expect(onTime.selector).toEqual({ type: 'time', startMs: 0, endMs: 500 });
    expect(
      await refused(o.s, 'annotation.create', { targetId: call, kind: 'flag', selector: { type: 'line', lineId: 'tl_0123456789abcdef' } }, 'BAD_REQUEST', {
        key: o.max.key,
      }),
    ).toMatch(/^selector\.lineId: no transcript line tl_0123456789abcdef in call_/);
    expect(
      await refused(o.s, 'annotation.create', { targetId: call, kind: 'flag', selector: { type: 'slide', slideId: 'sld_1' } }, 'BAD_REQUEST', {
        key: o.max.key,
      }),
    ).toMatch(/^selector\.type: a call \(call_\w+\) takes line or time selectors, not slide/);
    // Someone outside the channel and not invited cannot see the call.
    expect(await refused(o.s, 'annotation.getThread', { annotationId: onLine.id }, 'NOT_FOUND', { key: o.agent.key })).toMatch(/not found/);
  });

  it('files: a restricted folder is NOT_FOUND to others; files.read is needed; a folder takes no selector, an audio upload a time', async () => {
    const secret = await folder(o.s, o.mia.key, { restricted: true });
    expect((await flag(secret.id, o.mia.key)).annotation.targetType).toBe('file');
    expect(await refused(o.s, 'annotation.create', { targetId: secret.id, kind: 'flag' }, 'NOT_FOUND', { key: o.max.key })).toBe(`${secret.id} not found`);
    expect(await refused(o.s, 'annotation.create', { targetId: secret.id, kind: 'flag' }, 'FORBIDDEN_SCOPE', { key: o.orgOnly.key })).toMatch(
      /scope files\.read/,
    );
    expect(
      await refused(o.s, 'annotation.create', { targetId: secret.id, kind: 'flag', selector: { type: 'time', startMs: 0, endMs: 1 } }, 'BAD_REQUEST', {
        key: o.mia.key,
      }),
    ).toMatch(/^selector\.type: a folder \(fil_\w+\) takes no selector/);
    // A WAV sniffs as audio: it takes time selectors, not cells.
    const audio = await upload(o.s, o.mia.key, tinyWav());
    expect(audio.contentType).toBe('audio/wav');
    const t = (await ok(o.s, 'annotation.create', { targetId: audio.id, kind: 'highlight', selector: { type: 'time', startMs: 1000, endMs: 4000 } }))
      .annotation;
    expect(t.selector).toEqual({ type: 'time', startMs: 1000, endMs: 4000 });
    expect(
      await refused(o.s, 'annotation.create', { targetId: audio.id, kind: 'flag', selector: { type: 'cell', tabId: 'tab_1', a1: 'A1' } }, 'BAD_REQUEST'),
    ).toMatch(/^selector\.type: an upload \(fil_\w+\) takes time selectors, not cell/);
    const text = await upload(o.s, o.mia.key, 'plain words');
    expect(
      await refused(o.s, 'annotation.create', { targetId: text.id, kind: 'flag', selector: { type: 'time', startMs: 0, endMs: 1 } }, 'BAD_REQUEST'),
    ).toMatch(/takes no selector/);
  });
});
