import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approved, eventsAfter, head, held, ok, otherOrg, refused, rpc } from '../../../helpers/calls.js';
import { mediaSettled } from '../../../../domain/messaging/calling/media.js';
import { callOrg, channel, participant, startCall, type CallOrg } from './kit.js';
import { fakeLivekit, type FakeLivekit } from './livekit-fake.js';

/* Messaging's acceptance scenario 4 (a call) end to end, with LiveKit; scenario 6's bad inputs for calling. */

let lk: FakeLivekit;
let o: CallOrg;
beforeAll(async () => {
  lk = await fakeLivekit();
  o = await callOrg({ livekit: lk.config });
});
afterAll(async () => {
  await mediaSettled();
  await o.s.close();
  await lk.close();
});

describe('scenario 4: a call', () => {
  it("a lock refuses an uninvited join; the host cannot unmute anyone; an agent's recording holds until approved; the transcript reads as WebVTT", async () => {
    // The agent hosts; mia (a human) joins; the host locks the call.
    const { call } = await startCall(o, o.agent, o.channelId, 'Weekly ops');
    await ok(o.s, 'calling.join', { callId: call.id }, o.mia.key);
    lk.seat(call.id, o.mia.id);
    await ok(o.s, 'calling.setLock', { callId: call.id, locked: true }, o.agent.key);
    const refusedJoin = await rpc(o.s, 'calling.join', { callId: call.id }, o.max.key);
    expect(refusedJoin.body.error).toMatchObject({ code: 'CONFLICT' });
    expect(refusedJoin.body.error.message).toMatch(/locked: only invitees may join/);
    await ok(o.s, 'calling.invite', { callId: call.id, principalIds: [o.max.id] }, o.agent.key);
    expect((await ok(o.s, 'calling.join', { callId: call.id }, o.max.key)).changed).toBe(true);

    // The host mutes mia (her microphone, on the media server too) but cannot unmute her; she unmutes herself.
    await ok(o.s, 'calling.setMute', { callId: call.id, principalId: o.mia.id, muted: true }, o.agent.key);
    expect(await refused(o.s, 'calling.setMute', { callId: call.id, principalId: o.mia.id, muted: false }, 'CONFLICT', { key: o.agent.key })).toMatch(
      /no remote unmute/,
    );
    expect(await refused(o.s, 'calling.setMute', { callId: call.id, principalId: 'all', muted: false }, 'CONFLICT', { key: o.agent.key })).toMatch(
      /no remote unmute/,
    );
    expect(participant((await ok(o.s, 'calling.setMute', { callId: call.id, muted: false }, o.mia.key)).call, o.mia.id).muted).toBe(false);
    await mediaSettled();
    expect(
      lk
        .of('MutePublishedTrack')
        .filter((c) => c.body.room === call.id)
        .map((c) => c.body.muted),
    ).toEqual([true]);

    // The agent's recording, with humans present, holds: nothing is recorded until a human approves.
    const before = await head(o.s.client);
    const approval = await held(o.s, 'calling.recordingStart', { callId: call.id }, { key: o.agent.key });
    expect(approval).toMatchObject({ actionClass: 'calling.recording_start', subject: { kind: 'calling.signature', subjectId: call.id } });
    expect((await eventsAfter(o.s.client, before)).map((e) => e.kind)).toEqual(['calling.signature.hold']);
    await mediaSettled();
    expect(lk.of('StartRoomCompositeEgress').filter((c) => c.body.roomName === call.id)).toHaveLength(0);
    expect((await ok(o.s, 'calling.getDetails', { callId: call.id }, o.mia.key)).call.recording).toBeNull();
    const approvalId = await approved(o.s, approval, o.agent.key, o.owner.key);
    const recorded = await ok(o.s, 'calling.recordingStart', { callId: call.id, approvalId }, o.agent.key);
    expect(recorded.call.recording).toMatchObject({ status: 'starting', approvalId, startedBy: o.agent.id });
    await mediaSettled();
    expect(lk.of('StartRoomCompositeEgress').filter((c) => c.body.roomName === call.id)).toHaveLength(1);
    expect((await ok(o.s, 'calling.getDetails', { callId: call.id }, o.mia.key)).call.recording.status).toBe('active');

    // The transcript, with what WebVTT must escape, reads as WebVTT.
    await ok(
      o.s,
      'calling.addTranscriptLine',
      { callId: call.id, speaker: o.mia.id, text: 'Revenue is < plan & costs --> up', startMs: 0, endMs: 2000 },
      o.agent.key,
    );
    await ok(o.s, 'calling.addTranscriptLine', { callId: call.id, speakerLabel: 'Dial-in guest', text: 'Agreed.', startMs: 2000, endMs: 3250 }, o.agent.key);
    await ok(o.s, 'calling.end', { callId: call.id }, o.agent.key);
    const { webvtt } = await ok(o.s, 'calling.getTranscript', { callId: call.id, format: 'webvtt' }, o.max.key);
    const cues = webvtt.trimEnd().split('\n\n');
    expect(cues[0]).toBe('WEBVTT');
    expect(cues[1].split('\n').slice(1)).toEqual(['00:00:00.000 --> 00:00:02.000', '<v Mia Member>Revenue is &lt; plan &amp; costs --&gt; up']);
    expect(cues[2].split('\n').slice(1)).toEqual(['00:00:02.000 --> 00:00:03.250', '<v Dial-in guest>Agreed.']);
    await mediaSettled();
    expect(lk.of('StopEgress')).not.toHaveLength(0);
    expect(lk.of('DeleteRoom').map((c) => c.body.room)).toContain(call.id);
  });
});

describe('scenario 6: bad inputs change nothing and append no event', () => {
  it("unknown fields and too long text: BAD_REQUEST naming the field; another org's call: NOT_FOUND; a missing scope: FORBIDDEN_SCOPE", async () => {
    const { call } = await startCall(o, o.owner, await channel(o, [o.mia]));
    await ok(o.s, 'calling.join', { callId: call.id }, o.mia.key);
    const state = async () => JSON.stringify({ ...(await ok(o.s, 'calling.getDetails', { callId: call.id })).call, durationMs: 0 });
    const was = await state();
    const bad: [string, Record<string, unknown>, RegExp][] = [
      ['calling.chat', { callId: call.id, text: 'x'.repeat(16_001) }, /^text: must be at most 16000 characters$/],
      ['calling.chat', { callId: call.id, text: 'hi', idempotencyId: '' }, /^idempotencyId:/],
      [
        'calling.addTranscriptLine',
        { callId: call.id, speaker: o.mia.id, text: 'y'.repeat(4001), startMs: 0, endMs: 1 },
        /^text: must be at most 4000 characters$/,
      ],
      ['calling.start', { channelId: o.channelId, title: 't'.repeat(201) }, /^title:/],
      ['calling.setLock', { callId: call.id, locked: true, reason: 'x' }, /^reason: unknown field$/],
      ['calling.setLock', { callId: call.id, locked: 'yes' }, /^locked: expected boolean/],
      ['calling.invite', { callId: call.id, principalIds: ['someone'] }, /^principalIds\.0:|^principalIds\[0\]:/],
      ['calling.react', { callId: call.id, emoji: 'lol' }, /^emoji:/],
      ['calling.getTranscript', { callId: call.id, limit: 1001 }, /^limit: must be at most 1000$/],
      ['calling.join', {}, /^callId: required$/],
    ];
    for (const [method, params, message] of bad) expect(await refused(o.s, method, params, 'BAD_REQUEST')).toMatch(message);
    const other = await otherOrg(o.s);
    const before = await head(o.s.client);
    for (const method of ['calling.join', 'calling.end', 'calling.setLock', 'calling.getDetails', 'calling.getTranscript', 'calling.recordingStart']) {
      const res = await other.rpc(method, { callId: call.id, ...(method === 'calling.setLock' ? { locked: true } : {}) });
      expect(res.body.error.code, method).toBe('NOT_FOUND');
    }
    expect(await head(o.s.client)).toBe(before);
    for (const method of ['calling.start', 'calling.join', 'calling.chat', 'calling.end']) {
      const params = method === 'calling.start' ? { channelId: o.channelId } : { callId: call.id, text: 'hi' };
      await refused(o.s, method, method === 'calling.chat' ? params : { ...params, text: undefined }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    }
    expect(await state()).toBe(was);
    await ok(o.s, 'calling.end', { callId: call.id });
  });
});
