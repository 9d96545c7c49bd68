import { describe, expect } from 'vitest';
import { it } from '../../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused, rpc } from '../../../helpers/calls.js';
import { channel, participant, startCall } from './kit.js';

/* Starting, joining, inviting, locking, leaving and ending a call, without LiveKit (control plane and record only). */

describe('calling.start', () => {
  it('the host joins, a root message of kind call is posted, media is null without LiveKit; one event without the title', async ({ calling: o }) => {
    const ch = await channel(o, [o.mia]);
    const { result, event } = await mutate(o.s, 'calling.start', { channelId: ch, title: 'Incident sync' }, 'calling.call.start', { key: o.mia.key });
    expect(result).toMatchObject({
      changed: true,
      media: null,
      call: { status: 'live', hostId: o.mia.id, title: 'Incident sync', joinedCount: 1, locked: false },
    });
    expect(participant(result.call, o.mia.id)).toMatchObject({ role: 'host', state: 'joined', canPublish: true, muted: false });
    expect(event.payload).toMatchObject({ callId: result.call.id, channelId: ch, rootMessageId: result.call.rootMessageId });
    expect(JSON.stringify(event)).not.toContain('Incident sync');
    const history = await ok(o.s, 'messaging.history', { channelId: ch }, o.mia.key);
    expect(history.messages.find((m: any) => m.id === result.call.rootMessageId)).toMatchObject({ kind: 'call', text: 'Incident sync', authorId: o.mia.id });
  });

  it('a live call in the channel is CONFLICT naming it; outsiders and bad input are refused, appending nothing', async ({ calling: o }) => {
    const ch = await channel(o, [o.mia]);
    const first = await startCall(o, o.owner, ch);
    expect(await refused(o.s, 'calling.start', { channelId: ch }, 'CONFLICT', { key: o.mia.key })).toContain(first.call.id);
    expect(await refused(o.s, 'calling.start', { channelId: ch }, 'CONFLICT', { key: o.olga.key })).toMatch(/not a member of ch_/);
    const secret = await channel(o, [o.mia], { private: true });
    expect(await refused(o.s, 'calling.start', { channelId: secret }, 'NOT_FOUND', { key: o.olga.key })).toMatch(/not found/);
    expect(await refused(o.s, 'calling.start', { channelId: 'ch_doesnotexist0000' }, 'NOT_FOUND')).toMatch(/not found/);
    await refused(o.s, 'calling.start', { channelId: ch }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    expect(await refused(o.s, 'calling.start', { channelId: secret, title: 'x'.repeat(201) }, 'BAD_REQUEST')).toMatch(/^title:/);
    expect(await refused(o.s, 'calling.start', { channelId: secret, colour: 'red' }, 'BAD_REQUEST')).toMatch(/colour: unknown field/);
    expect(await refused(o.s, 'calling.start', { channelId: 'c1' }, 'BAD_REQUEST')).toMatch(/^channelId:/);
    const other = await otherOrg(o.s);
    const theirs = (await other.ok('channel.create', { name: 'theirs' })).channel.id;
    expect(await refused(o.s, 'calling.start', { channelId: theirs }, 'NOT_FOUND')).toMatch(/not found/);
  });

  it('an observer of the channel may not start a call, but joins one without publishing', async ({ calling: o }) => {
    const ch = await channel(o, [o.mia]);
    await ok(o.s, 'channel.addMember', { channelId: ch, principalId: o.max.id, role: 'observer' });
    expect(await refused(o.s, 'calling.start', { channelId: ch }, 'CONFLICT', { key: o.max.key })).toMatch(/observer/);
    const started = await startCall(o, o.mia, ch);
    const joined = await ok(o.s, 'calling.join', { callId: started.call.id }, o.max.key);
    expect(participant(joined.call, o.max.id)).toMatchObject({ state: 'joined', canPublish: false });
  });
});

describe('calling.join and invite', () => {
  it('members join; joining again is changed:false with a noop event; outsiders are CONFLICT (public) or NOT_FOUND (private)', async ({ calling: o }) => {
    const { call } = await startCall(o);
    const { result, event } = await mutate(o.s, 'calling.join', { callId: call.id }, 'calling.participant.join', { key: o.mia.key });
    expect(result).toMatchObject({ changed: true, media: null, call: { joinedCount: 2 } });
    expect(event.payload).toMatchObject({ callId: call.id, principalId: o.mia.id, joinedCount: 2 });
    const again = await mutate(o.s, 'calling.join', { callId: call.id }, 'calling.participant.join', { key: o.mia.key });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload.noop).toBe(true);
    expect(await refused(o.s, 'calling.join', { callId: call.id }, 'CONFLICT', { key: o.olga.key })).toMatch(/not a member of ch_.*invite/);
    const secret = await channel(o, [o.mia], { private: true });
    const hidden = await startCall(o, o.mia, secret);
    expect(await refused(o.s, 'calling.join', { callId: hidden.call.id }, 'NOT_FOUND', { key: o.olga.key })).toBe(`call ${hidden.call.id} not found`);
    const other = await otherOrg(o.s);
    expect((await other.rpc('calling.join', { callId: call.id })).body.error.code).toBe('NOT_FOUND');
    await ok(o.s, 'calling.end', { callId: call.id });
    await ok(o.s, 'calling.end', { callId: hidden.call.id }, o.mia.key);
  });

  it("an invitation lets a non-member into a private channel's call; inviting those invited or in it is changed:false", async ({ calling: o }) => {
    const secret = await channel(o, [o.mia], { private: true });
    const { call } = await startCall(o, o.mia, secret);
    const { result, event } = await mutate(
      o.s,
      'calling.invite',
      { callId: call.id, principalIds: [o.olga.id, o.owner.id, o.olga.id] },
      'calling.participant.invite',
      { key: o.mia.key },
    );
    expect(event.payload).toMatchObject({ callId: call.id, principalIds: [o.olga.id, o.owner.id].sort(), invitedCount: 2 });
    expect(participant(result.call, o.olga.id)).toMatchObject({ state: 'invited', invitedBy: o.mia.id });
    const again = await mutate(o.s, 'calling.invite', { callId: call.id, principalIds: [o.olga.id, o.mia.id] }, 'calling.participant.invite', {
      key: o.mia.key,
    });
    expect(again.result.changed).toBe(false);
    expect(again.event.payload).toMatchObject({ noop: true, invitedCount: 0 });
    // The invitee sees the call and joins it, though the channel stays hidden from her.
    expect((await ok(o.s, 'calling.getDetails', { callId: call.id }, o.olga.key)).call.id).toBe(call.id);
    const joined = await ok(o.s, 'calling.join', { callId: call.id }, o.olga.key);
    expect(participant(joined.call, o.olga.id)).toMatchObject({ state: 'joined', role: 'attendee' });
    expect((await rpc(o.s, 'messaging.history', { channelId: secret }, o.olga.key)).body.error.code).toBe('NOT_FOUND');
    // Bad input: an unknown member, none or too many, someone not in the call inviting.
    expect(await refused(o.s, 'calling.invite', { callId: call.id, principalIds: ['usr_nosuchmember00'] }, 'NOT_FOUND', { key: o.mia.key })).toBe(
      'member usr_nosuchmember00 not found',
    );
    expect(await refused(o.s, 'calling.invite', { callId: call.id, principalIds: [] }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^principalIds:/);
    const many = Array.from({ length: 51 }, (_, i) => `usr_x${i}`);
    expect(await refused(o.s, 'calling.invite', { callId: call.id, principalIds: many }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^principalIds: must name at most 50/,
    );
    expect(await refused(o.s, 'calling.invite', { callId: call.id, principalIds: [o.max.id] }, 'CONFLICT', { key: o.owner.key })).toMatch(/join it first/);
  });

  it('a locked call refuses an uninvited join; only the host locks and, while locked, invites', async ({ calling: o }) => {
    const { call } = await startCall(o);
    await ok(o.s, 'calling.join', { callId: call.id }, o.mia.key);
    expect(await refused(o.s, 'calling.setLock', { callId: call.id, locked: true }, 'CONFLICT', { key: o.mia.key })).toMatch(/only the host/);
    const { result, event } = await mutate(o.s, 'calling.setLock', { callId: call.id, locked: true }, 'calling.call.set_lock');
    expect(result).toMatchObject({ changed: true, call: { locked: true } });
    expect(event.payload).toEqual({ callId: call.id, locked: true });
    const same = await mutate(o.s, 'calling.setLock', { callId: call.id, locked: true }, 'calling.call.set_lock');
    expect([same.result.changed, same.event.payload.noop]).toEqual([false, true]);
    expect(await refused(o.s, 'calling.join', { callId: call.id }, 'CONFLICT', { key: o.max.key })).toMatch(/is locked: only invitees may join/);
    expect(await refused(o.s, 'calling.invite', { callId: call.id, principalIds: [o.max.id] }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /locked: only the host/,
    );
    await ok(o.s, 'calling.invite', { callId: call.id, principalIds: [o.max.id] });
    expect((await ok(o.s, 'calling.join', { callId: call.id }, o.max.key)).changed).toBe(true);
    await ok(o.s, 'calling.end', { callId: call.id });
  });
});

describe('calling.removeParticipant and end', () => {
  it('the host removes someone, who then needs an invitation; a leaving host passes the host on; the last one out ends the call', async ({ calling: o }) => {
    const { call } = await startCall(o);
    for (const p of [o.mia, o.max]) await ok(o.s, 'calling.join', { callId: call.id }, p.key);
    expect(await refused(o.s, 'calling.removeParticipant', { callId: call.id, principalId: o.max.id }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /only the host/,
    );
    const removed = await mutate(o.s, 'calling.removeParticipant', { callId: call.id, principalId: o.max.id }, 'calling.participant.remove');
    expect(participant(removed.result.call, o.max.id).state).toBe('removed');
    expect(removed.event.payload).toMatchObject({ callId: call.id, principalId: o.max.id, state: 'removed', joinedCount: 2, ended: false });
    expect(await refused(o.s, 'calling.join', { callId: call.id }, 'CONFLICT', { key: o.max.key })).toMatch(/removed from call .* by .*invitation/);
    const again = await mutate(o.s, 'calling.removeParticipant', { callId: call.id, principalId: o.max.id }, 'calling.participant.remove');
    expect([again.result.changed, again.event.payload.noop]).toEqual([false, true]);
    expect(await refused(o.s, 'calling.removeParticipant', { callId: call.id, principalId: o.olga.id }, 'NOT_FOUND')).toMatch(/participant .* not found/);
    await ok(o.s, 'calling.invite', { callId: call.id, principalIds: [o.max.id] }, o.mia.key);
    await ok(o.s, 'calling.join', { callId: call.id }, o.max.key);
    // The host leaves: mia joined first after the host, so she hosts now.
    const left = await mutate(o.s, 'calling.removeParticipant', { callId: call.id }, 'calling.participant.remove');
    expect(left.result.call).toMatchObject({ hostId: o.mia.id, status: 'live', joinedCount: 2 });
    expect(participant(left.result.call, o.owner.id)).toMatchObject({ state: 'left', role: 'attendee' });
    await ok(o.s, 'calling.setLock', { callId: call.id, locked: true }, o.mia.key);
    await ok(o.s, 'calling.removeParticipant', { callId: call.id }, o.max.key);
    const last = await mutate(o.s, 'calling.removeParticipant', { callId: call.id }, 'calling.participant.remove', { key: o.mia.key });
    expect(last.result.call).toMatchObject({ status: 'ended', joinedCount: 0 });
    expect(last.event.payload).toMatchObject({ ended: true, joinedCount: 0 });
    const root = (await ok(o.s, 'messaging.history', { channelId: o.channelId }, o.mia.key)).messages.find((m: any) => m.id === call.rootMessageId);
    expect(root.text).toMatch(/^Call ended after .* with 3 participants$/);
  });

  it('end: host only; everyone leaves, the root message becomes a summary without names; again is changed:false', async ({ calling: o }) => {
    const { call } = await startCall(o, o.owner, o.channelId, 'Budget review');
    await ok(o.s, 'calling.join', { callId: call.id }, o.mia.key);
    await ok(o.s, 'calling.invite', { callId: call.id, principalIds: [o.max.id] });
    await ok(o.s, 'calling.raiseHand', { callId: call.id }, o.mia.key);
    o.clock.advance(12 * 60_000);
    expect(await refused(o.s, 'calling.end', { callId: call.id }, 'CONFLICT', { key: o.mia.key })).toMatch(/only the host/);
    const { result, event } = await mutate(o.s, 'calling.end', { callId: call.id }, 'calling.call.end');
    expect(result.call).toMatchObject({ status: 'ended', joinedCount: 0, raisedHands: [] });
    expect(result.call.durationMs).toBeGreaterThanOrEqual(12 * 60_000);
    expect(participant(result.call, o.mia.id).state).toBe('left');
    expect(participant(result.call, o.max.id).state).toBe('invited');
    expect(event.payload).toMatchObject({ callId: call.id, participantCount: 2, status: 'ended', recordingStopped: null });
    const root = (await ok(o.s, 'messaging.history', { channelId: o.channelId })).messages.find((m: any) => m.id === call.rootMessageId);
    expect(root).toMatchObject({ kind: 'call', text: 'Call ended after 12 min with 2 participants' });
    const again = await mutate(o.s, 'calling.end', { callId: call.id }, 'calling.call.end');
    expect([again.result.changed, again.event.payload.noop]).toEqual([false, true]);
    expect(await refused(o.s, 'calling.join', { callId: call.id }, 'CONFLICT', { key: o.max.key })).toMatch(/has ended/);
    expect(await refused(o.s, 'calling.setLock', { callId: call.id, locked: true }, 'CONFLICT')).toMatch(/has ended/);
    // The channel is free for the next call.
    await ok(o.s, 'calling.end', { callId: (await startCall(o)).call.id });
  });
});

describe('calling.getDetails', () => {
  it('members and invitees read it, appending nothing; everyone else and other orgs get NOT_FOUND', async ({ calling: o }) => {
    const secret = await channel(o, [o.mia], { private: true });
    const { call } = await startCall(o, o.mia, secret);
    const before = (await o.s.client.get('snapshot')).body.head.seq;
    const seen = await ok(o.s, 'calling.getDetails', { callId: call.id }, o.mia.key);
    expect(seen.call).toMatchObject({ id: call.id, channelId: secret, status: 'live', hostId: o.mia.id });
    expect((await o.s.client.get('snapshot')).body.head.seq).toBe(before);
    for (const who of [o.olga, o.viewer, o.agent])
      expect((await rpc(o.s, 'calling.getDetails', { callId: call.id }, who.key)).body.error.code).toBe('NOT_FOUND');
    expect((await rpc(o.s, 'calling.getDetails', { callId: 'call_nosuchcall00000' }, o.mia.key)).body.error.code).toBe('NOT_FOUND');
    expect((await (await otherOrg(o.s)).rpc('calling.getDetails', { callId: call.id })).body.error.code).toBe('NOT_FOUND');
    expect((await rpc(o.s, 'calling.getDetails', { callId: 'nope' }, o.mia.key)).body.error.message).toMatch(/^callId:/);
    await ok(o.s, 'calling.invite', { callId: call.id, principalIds: [o.viewer.id] }, o.mia.key);
    expect((await ok(o.s, 'calling.getDetails', { callId: call.id }, o.viewer.key)).call.id).toBe(call.id);
  });
});
