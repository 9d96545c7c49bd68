import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TokenVerifier } from 'livekit-server-sdk';
import { eventsAfter, head, mutate, ok } from '../../../helpers/calls.js';
import { mediaSettled } from '../../../../domain/messaging/calling/media.js';
import { LIVEKIT_WEBHOOK_PATH } from '../../../../gateway/livekit-webhook.js';
import { callOrg, channel, participant, startCall, type CallOrg } from './kit.js';
import { fakeLivekit, type FakeLivekit } from './livekit-fake.js';

/*
 * With LiveKit: join tokens (checked with the SDK's TokenVerifier), the room and egress calls made after commit
 * (against a loopback Twirp endpoint, the one stand-in), and LiveKit's signed webhook marking a recording ready.
 */

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

const verify = (token: string) => new TokenVerifier(lk.config.apiKey, lk.config.apiSecret).verify(token);

async function webhook(event: Record<string, unknown>, secret?: string) {
  const signed = await lk.signWebhook(event, secret);
  const res = await o.s.app.inject({
    method: 'POST',
    url: LIVEKIT_WEBHOOK_PATH,
    headers: { 'content-type': 'application/webhook+json', authorization: signed.authorization },
    payload: signed.body,
  });
  return { status: res.statusCode, body: res.json() };
}

describe('join tokens', () => {
  it('identity is the principal, room the call; observers may not publish; a repeat join gets a token again', async () => {
    const ch = await channel(o, [o.mia]);
    await ok(o.s, 'channel.addMember', { channelId: ch, principalId: o.max.id, role: 'observer' });
    const started = await startCall(o, o.mia, ch);
    expect(started.media).toMatchObject({ url: lk.config.url, room: started.call.id, canPublish: true });
    const host = await verify(started.media.token);
    expect(host.sub).toBe(o.mia.id);
    expect(host.video).toMatchObject({ roomJoin: true, room: started.call.id, canPublish: true, canSubscribe: true });
    const observer = await ok(o.s, 'calling.join', { callId: started.call.id }, o.max.key);
    expect(observer.media.canPublish).toBe(false);
    expect((await verify(observer.media.token)).video).toMatchObject({ room: started.call.id, canPublish: false, canPublishData: false, canSubscribe: true });
    const again = await ok(o.s, 'calling.join', { callId: started.call.id }, o.max.key);
    expect(again.changed).toBe(false);
    expect((await verify(again.media.token)).sub).toBe(o.max.id);
    await expect(new TokenVerifier(lk.config.apiKey, 'another secret').verify(again.media.token)).rejects.toThrow();
    await ok(o.s, 'calling.end', { callId: started.call.id }, o.mia.key);
  });
});

describe('room calls after commit', () => {
  it("the host's mute mutes microphones only; a removal removes; the end deletes the room", async () => {
    const { call } = await startCall(o);
    for (const p of [o.mia, o.max]) {
      await ok(o.s, 'calling.join', { callId: call.id }, p.key);
      lk.seat(call.id, p.id);
    }
    await ok(o.s, 'calling.setMute', { callId: call.id, principalId: o.mia.id, muted: true });
    await mediaSettled();
    const mutes = lk.of('MutePublishedTrack');
    expect(mutes.map((c) => c.body)).toEqual([{ room: call.id, identity: o.mia.id, trackSid: `TR_mic_${o.mia.id}`, muted: true }]);
    expect(mutes[0].grant).toMatchObject({ roomAdmin: true, room: call.id });
    // Muting oneself is the client's: nothing reaches the server.
    await ok(o.s, 'calling.setMute', { callId: call.id, muted: true }, o.max.key);
    await ok(o.s, 'calling.setMute', { callId: call.id, muted: false }, o.max.key);
    await mediaSettled();
    expect(lk.of('MutePublishedTrack')).toHaveLength(1);
    await ok(o.s, 'calling.removeParticipant', { callId: call.id, principalId: o.max.id });
    await mediaSettled();
    expect(lk.of('RemoveParticipant').map((c) => c.body)).toEqual([{ room: call.id, identity: o.max.id }]);
    await ok(o.s, 'calling.end', { callId: call.id });
    await mediaSettled();
    expect(lk.of('DeleteRoom').map((c) => c.body)).toContainEqual({ room: call.id });
  });
});

describe('recording through egress', () => {
  it('starting -> active once LiveKit answers; the webhook marks it ready; stop and end stop the egress', async () => {
    const { call } = await startCall(o);
    const before = await head(o.s.client);
    const started = await mutate(o.s, 'calling.recordingStart', { callId: call.id }, 'calling.recording.start');
    expect(started.result.call.recording.status).toBe('starting');
    const recordingId = started.result.call.recording.id;
    await mediaSettled();
    const egress = lk.of('StartRoomCompositeEgress').at(-1)!;
    expect(egress.body).toMatchObject({ roomName: call.id, layout: 'grid', fileOutputs: [{ filepath: `${o.s.org.orgId}/${call.id}/${recordingId}.mp4` }] });
    expect(egress.grant).toMatchObject({ roomRecord: true });
    const activated = (await eventsAfter(o.s.client, before)).slice(1);
    expect(activated.map((e) => [e.kind, e.actor, e.payload.status])).toEqual([['calling.recording.activate', '', 'active']]);
    expect((await ok(o.s, 'calling.getDetails', { callId: call.id })).call.recording).toMatchObject({ id: recordingId, status: 'active' });

    await ok(o.s, 'calling.recordingStop', { callId: call.id });
    await mediaSettled();
    const egressId = lk.of('StopEgress').at(-1)!.body.egressId;
    expect(egressId).toMatch(/^EG_/);

    const ended = {
      event: 'egress_ended',
      id: 'EV_1',
      egressInfo: {
        egressId,
        roomName: call.id,
        status: 'EGRESS_COMPLETE',
        fileResults: [{ filename: 'r.mp4', location: 's3://bucket/r.mp4', size: '1048576', duration: '61000000000' }],
      },
    };
    const atReady = await head(o.s.client);
    expect(await webhook(ended)).toEqual({ status: 200, body: { ok: true, result: { outcome: 'applied' } } });
    const ready = (await ok(o.s, 'calling.getDetails', { callId: call.id })).call.recording;
    expect(ready).toMatchObject({ id: recordingId, status: 'ready', sizeBytes: 1048576, durationMs: 61000 });
    const events = await eventsAfter(o.s.client, atReady);
    expect(events.map((e) => [e.kind, e.actor])).toEqual([['calling.recording.complete', '']]);
    expect(JSON.stringify(events)).not.toContain('s3://');
    // A repeat, a forged signature, a room that is no call: nothing changes.
    expect((await webhook(ended)).body.result.outcome).toBe('ignored');
    expect((await webhook({ ...ended, id: 'EV_2' }, 'a forged secret')).status).toBe(401);
    expect((await webhook({ ...ended, egressInfo: { ...ended.egressInfo, roomName: 'call_unknownroom000' } })).body.result.outcome).toBe('ignored');
    expect(await head(o.s.client)).toBe(atReady + 1);

    // Recording again, then ending the call: the egress is stopped with the room.
    await ok(o.s, 'calling.recordingStart', { callId: call.id });
    await mediaSettled();
    const stops = lk.of('StopEgress').length;
    await ok(o.s, 'calling.end', { callId: call.id });
    await mediaSettled();
    expect(lk.of('StopEgress')).toHaveLength(stops + 1);
    expect(lk.of('DeleteRoom').map((c) => c.body.room)).toContain(call.id);
  });

  it("an egress LiveKit refuses fails the recording; the webhook's failure does too", async () => {
    const { call } = await startCall(o);
    lk.refuseNextEgress(400);
    await ok(o.s, 'calling.recordingStart', { callId: call.id });
    await mediaSettled();
    const failed = (await ok(o.s, 'calling.getDetails', { callId: call.id })).call.recording;
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed.failure).toMatch(/egress did not start/);
    const second = (await ok(o.s, 'calling.recordingStart', { callId: call.id })).call.recording;
    await mediaSettled();
    const res = await webhook({
      event: 'egress_ended',
      id: 'EV_9',
      egressInfo: { egressId: lk.egressIds.at(-1), roomName: call.id, status: 'EGRESS_FAILED', error: 'disk full' },
    });
    expect(res.body.result.outcome).toBe('applied');
    expect((await ok(o.s, 'calling.getDetails', { callId: call.id })).call.recording).toMatchObject({ id: second.id, status: 'failed', failure: 'disk full' });
    await ok(o.s, 'calling.end', { callId: call.id });
  });

  it('a LiveKit server error is retried (after a second) until it answers', async () => {
    const { call } = await startCall(o);
    lk.refuseNextEgress(503);
    await ok(o.s, 'calling.recordingStart', { callId: call.id });
    await mediaSettled();
    expect(lk.of('StartRoomCompositeEgress').filter((c) => c.body.roomName === call.id)).toHaveLength(2);
    expect((await ok(o.s, 'calling.getDetails', { callId: call.id })).call.recording.status).toBe('active');
    await ok(o.s, 'calling.end', { callId: call.id });
  });
});

describe('without LiveKit', () => {
  it('the webhook route answers NOT_FOUND', async () => {
    const plain = await callOrg();
    try {
      const res = await plain.s.app.inject({
        method: 'POST',
        url: LIVEKIT_WEBHOOK_PATH,
        headers: { 'content-type': 'application/webhook+json' },
        payload: '{}',
      });
      expect([res.statusCode, res.json().error.code]).toEqual([404, 'NOT_FOUND']);
      expect(participant((await startCall(plain)).call, plain.owner.id).canPublish).toBe(true);
    } finally {
      await plain.s.close();
    }
  });
});
