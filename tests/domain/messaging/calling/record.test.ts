import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, ok, otherOrg, refused, rpc } from '../../../helpers/calls.js';
import { callOrg, startCall, type CallOrg } from './kit.js';

/* Recording without LiveKit (a record of it) and the transcript: lines, paging, WebVTT, the 24-hour window. */

let o: CallOrg;
beforeAll(async () => {
  o = await callOrg();
});
afterAll(() => o.s.close());

describe('recording without LiveKit', () => {
  it('the host starts and stops it; the same again is changed:false; others are refused', async () => {
    const { call } = await startCall(o);
    await ok(o.s, 'calling.join', { callId: call.id }, o.mia.key);
    expect(await refused(o.s, 'calling.recordingStart', { callId: call.id }, 'CONFLICT', { key: o.mia.key })).toMatch(/only the host/);
    const started = await mutate(o.s, 'calling.recordingStart', { callId: call.id }, 'calling.recording.start');
    expect(started.result.call.recording).toMatchObject({ status: 'active', startedBy: o.owner.id, approvalId: null, fileId: null });
    expect(started.event.payload).toEqual({ callId: call.id, recordingId: started.result.call.recording.id, status: 'active' });
    const again = await mutate(o.s, 'calling.recordingStart', { callId: call.id }, 'calling.recording.start');
    expect([again.result.changed, again.event.payload.noop, again.result.call.recording.id]).toEqual([false, true, started.result.call.recording.id]);
    expect(await refused(o.s, 'calling.recordingStop', { callId: call.id }, 'CONFLICT', { key: o.mia.key })).toMatch(/only the host/);
    const stopped = await mutate(o.s, 'calling.recordingStop', { callId: call.id }, 'calling.recording.stop');
    expect(stopped.result.call.recording).toMatchObject({ status: 'stopped', id: started.result.call.recording.id });
    const none = await mutate(o.s, 'calling.recordingStop', { callId: call.id }, 'calling.recording.stop');
    expect([none.result.changed, none.event.payload.noop]).toEqual([false, true]);
    // A new recording after a stop; the end stops it.
    const second = (await ok(o.s, 'calling.recordingStart', { callId: call.id })).call.recording;
    expect(second.id).not.toBe(started.result.call.recording.id);
    const ended = await mutate(o.s, 'calling.end', { callId: call.id }, 'calling.call.end');
    expect(ended.event.payload.recordingStopped).toBe(second.id);
    expect(ended.result.call.recording).toMatchObject({ id: second.id, status: 'stopped' });
    expect(await refused(o.s, 'calling.recordingStart', { callId: call.id }, 'CONFLICT')).toMatch(/has ended/);
    expect(await refused(o.s, 'calling.recordingStart', { callId: 'call_nosuchcall0000' }, 'NOT_FOUND')).toMatch(/not found/);
    await refused(o.s, 'calling.recordingStart', { callId: call.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });

  it('an agent hosting alone, or with other agents, records without a hold', async () => {
    const { call } = await startCall(o, o.agent);
    const { result } = await mutate(o.s, 'calling.recordingStart', { callId: call.id }, 'calling.recording.start', { key: o.agent.key });
    expect(result.call.recording).toMatchObject({ status: 'active', approvalId: null });
    await ok(o.s, 'calling.end', { callId: call.id }, o.agent.key);
  });
});

describe('the transcript', () => {
  let callId: string;
  beforeAll(async () => {
    callId = (await startCall(o)).call.id;
    await ok(o.s, 'calling.join', { callId }, o.mia.key);
  });

  it('participants add lines; the same speaker and startMs again is changed:false; events carry no words', async () => {
    const { result, event } = await mutate(
      o.s,
      'calling.addTranscriptLine',
      { callId, speaker: o.mia.id, text: 'Morning all', startMs: 1000, endMs: 2500 },
      'calling.transcript.add_line',
      { key: o.mia.key },
    );
    expect(result).toMatchObject({
      changed: true,
      line: { speaker: o.mia.id, speakerLabel: null, text: 'Morning all', startMs: 1000, endMs: 2500, lineSeq: 1, addedBy: o.mia.id },
    });
    expect(result.line.id).toMatch(/^tl_/);
    expect(event.payload).toEqual({ callId, lineId: result.line.id, lineSeq: 1, speaker: o.mia.id, startMs: 1000, endMs: 2500 });
    const again = await mutate(
      o.s,
      'calling.addTranscriptLine',
      { callId, speaker: o.mia.id, text: 'Morning all!', startMs: 1000, endMs: 2600 },
      'calling.transcript.add_line',
      { key: o.owner.key },
    );
    expect([again.result.changed, again.result.line.id, again.result.line.text, again.event.payload.noop]).toEqual([
      false,
      result.line.id,
      'Morning all',
      true,
    ]);
    const guest = await ok(
      o.s,
      'calling.addTranscriptLine',
      { callId, speakerLabel: 'Guest <Acme>', text: 'Hi & thanks --> next', startMs: 200, endMs: 900 },
      o.owner.key,
    );
    expect(guest.line).toMatchObject({ speaker: null, speakerLabel: 'Guest <Acme>', lineSeq: 2 });
    expect((await ok(o.s, 'calling.getDetails', { callId })).call.transcriptLineCount).toBe(2);
  });

  it('bad lines are refused naming the field; outsiders cannot add', async () => {
    const line = { callId, text: 'x', startMs: 0, endMs: 10 };
    expect(await refused(o.s, 'calling.addTranscriptLine', line, 'BAD_REQUEST')).toMatch(/^speaker: give speaker \(a member\) or speakerLabel/);
    expect(await refused(o.s, 'calling.addTranscriptLine', { ...line, speaker: o.mia.id, speakerLabel: 'Mia' }, 'BAD_REQUEST')).toMatch(/^speaker: .*not both/);
    expect(await refused(o.s, 'calling.addTranscriptLine', { ...line, speaker: o.mia.id, startMs: 50 }, 'BAD_REQUEST')).toBe('endMs: must be >= startMs (50)');
    expect(await refused(o.s, 'calling.addTranscriptLine', { ...line, speaker: o.mia.id, text: 'x'.repeat(4001) }, 'BAD_REQUEST')).toMatch(
      /^text: must be at most 4000/,
    );
    expect(await refused(o.s, 'calling.addTranscriptLine', { ...line, speaker: o.mia.id, startMs: -1 }, 'BAD_REQUEST')).toMatch(/^startMs:/);
    expect(await refused(o.s, 'calling.addTranscriptLine', { ...line, speaker: o.mia.id, startMs: 1.5 }, 'BAD_REQUEST')).toMatch(/^startMs:/);
    expect(await refused(o.s, 'calling.addTranscriptLine', { ...line, speaker: 'usr_nosuchmember00' }, 'NOT_FOUND')).toBe(
      'member usr_nosuchmember00 not found',
    );
    expect(await refused(o.s, 'calling.addTranscriptLine', { ...line, speaker: o.mia.id }, 'CONFLICT', { key: o.max.key })).toMatch(/not been in call/);
    expect(await refused(o.s, 'calling.addTranscriptLine', { ...line, speaker: o.mia.id }, 'NOT_FOUND', { key: o.olga.key })).toMatch(/not found/);
    expect((await (await otherOrg(o.s)).rpc('calling.addTranscriptLine', { ...line, speaker: o.mia.id })).body.error.code).toBe('NOT_FOUND');
  });

  it('getTranscript pages by start time; webvtt escapes and names voices', async () => {
    for (let i = 0; i < 3; i++)
      await ok(o.s, 'calling.addTranscriptLine', {
        callId,
        speaker: o.owner.id,
        text: `Point ${i}\n\nwith a blank line`,
        startMs: 5000 + i * 1000,
        endMs: 5500 + i * 1000,
      });
    const first = await ok(o.s, 'calling.getTranscript', { callId, limit: 2 }, o.mia.key);
    expect(first).toMatchObject({ callId, format: 'json', webvtt: null });
    expect(first.lines.map((l: any) => l.startMs)).toEqual([200, 1000]);
    const second = await ok(o.s, 'calling.getTranscript', { callId, limit: 2, cursor: first.nextCursor }, o.mia.key);
    expect(second.lines.map((l: any) => l.startMs)).toEqual([5000, 6000]);
    const last = await ok(o.s, 'calling.getTranscript', { callId, limit: 2, cursor: second.nextCursor }, o.mia.key);
    expect([last.lines.length, last.nextCursor]).toEqual([1, null]);
    expect((await rpc(o.s, 'calling.getTranscript', { callId, cursor: 'garbage' })).body.error.message).toMatch(/^cursor:/);
    expect((await rpc(o.s, 'calling.getTranscript', { callId, format: 'srt' })).body.error.message).toMatch(/^format:/);
    const vtt = await ok(o.s, 'calling.getTranscript', { callId, format: 'webvtt', limit: 3 }, o.mia.key);
    expect(vtt.lines).toBeNull();
    const [l1, l2, l3] = first.lines.concat(second.lines.slice(0, 1));
    const ownerName = (await ok(o.s, 'member.get', { memberId: o.owner.id })).member.name;
    expect(vtt.webvtt).toBe(
      `WEBVTT\n\n${l1.id}\n00:00:00.200 --> 00:00:00.900\n<v Guest &lt;Acme&gt;>Hi &amp; thanks --&gt; next\n\n` +
        `${l2.id}\n00:00:01.000 --> 00:00:02.500\n<v Mia Member>Morning all\n\n` +
        `${l3.id}\n00:00:05.000 --> 00:00:05.500\n<v ${ownerName}>Point 0\nwith a blank line\n`,
    );
    expect(vtt.nextCursor).not.toBeNull();
  });

  it('lines are taken until 24 hours after the end, then CONFLICT', async () => {
    await ok(o.s, 'calling.end', { callId });
    o.clock.advance(23 * 3_600_000);
    expect((await ok(o.s, 'calling.addTranscriptLine', { callId, speaker: o.mia.id, text: 'Late line', startMs: 9000, endMs: 9100 }, o.mia.key)).changed).toBe(
      true,
    );
    o.clock.advance(2 * 3_600_000);
    expect(
      await refused(o.s, 'calling.addTranscriptLine', { callId, speaker: o.mia.id, text: 'Too late', startMs: 9500, endMs: 9600 }, 'CONFLICT', {
        key: o.mia.key,
      }),
    ).toMatch(/ended more than 24 hours ago/);
    o.clock.offsetMs = 0;
  });
});
