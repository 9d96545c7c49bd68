import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head, mutate, ok, refused, rpc } from '../../../helpers/calls.js';
import { callOrg, channel, participant, startCall, type CallOrg } from './kit.js';
import { expectError } from '../../../helpers/frames.js';

/* In the call: mute (no remote unmute), hands first come first served, reactions (rate limited), the in-call chat. */

let o: CallOrg;
let callId: string;
let rootMessageId: string;
beforeAll(async () => {
  o = await callOrg();
  const started = await startCall(o);
  callId = started.call.id;
  rootMessageId = started.call.rootMessageId;
  for (const p of [o.mia, o.max]) await ok(o.s, 'calling.join', { callId }, p.key);
});
afterAll(() => o.s.close());

describe('calling.setMute', () => {
  it('anyone mutes and unmutes themselves; the same again is changed:false', async () => {
    const { result, event } = await mutate(o.s, 'calling.setMute', { callId, muted: true }, 'calling.participant.set_mute', { key: o.mia.key });
    expect(participant(result.call, o.mia.id).muted).toBe(true);
    expect(event.payload).toEqual({ callId, principalId: o.mia.id, muted: true, mutedCount: 1 });
    const same = await mutate(o.s, 'calling.setMute', { callId, principalId: o.mia.id, muted: true }, 'calling.participant.set_mute', { key: o.mia.key });
    expect([same.result.changed, same.event.payload.noop]).toEqual([false, true]);
    const unmuted = await ok(o.s, 'calling.setMute', { callId, muted: false }, o.mia.key);
    expect(participant(unmuted.call, o.mia.id).muted).toBe(false);
  });

  it('the host mutes one or everyone else, never unmutes anyone; others mute only themselves', async () => {
    const one = await mutate(o.s, 'calling.setMute', { callId, principalId: o.mia.id, muted: true }, 'calling.participant.set_mute');
    expect(participant(one.result.call, o.mia.id).muted).toBe(true);
    expect(await refused(o.s, 'calling.setMute', { callId, principalId: o.mia.id, muted: false }, 'CONFLICT')).toMatch(
      /^no remote unmute: only usr_\w+ can unmute themselves/,
    );
    expect(await refused(o.s, 'calling.setMute', { callId, principalId: 'all', muted: false }, 'CONFLICT')).toMatch(/^no remote unmute/);
    expect(await refused(o.s, 'calling.setMute', { callId, principalId: o.max.id, muted: true }, 'CONFLICT', { key: o.mia.key })).toMatch(/only the host/);
    const all = await mutate(o.s, 'calling.setMute', { callId, principalId: 'all', muted: true }, 'calling.participant.set_mute');
    expect(all.event.payload).toMatchObject({ principalId: 'all', muted: true, mutedCount: 1 });
    expect(participant(all.result.call, o.max.id).muted).toBe(true);
    expect(participant(all.result.call, o.owner.id).muted).toBe(false);
    const again = await mutate(o.s, 'calling.setMute', { callId, principalId: 'all', muted: true }, 'calling.participant.set_mute');
    expect([again.result.changed, again.event.payload.noop]).toEqual([false, true]);
    // Each unmutes themselves.
    for (const p of [o.mia, o.max]) await ok(o.s, 'calling.setMute', { callId, muted: false }, p.key);
    expect(await refused(o.s, 'calling.setMute', { callId, principalId: o.olga.id, muted: true }, 'CONFLICT')).toMatch(/is not in call/);
    expect(await refused(o.s, 'calling.setMute', { callId, principalId: 'everyone', muted: true }, 'BAD_REQUEST')).toMatch(/^principalId:/);
    expect(await refused(o.s, 'calling.setMute', { callId }, 'BAD_REQUEST')).toBe('muted: required');
    expect(await refused(o.s, 'calling.setMute', { callId, muted: true }, 'CONFLICT', { key: o.agent.key })).toMatch(/join it first/);
  });
});

describe('hands', () => {
  it("first come, first served; you lower yours, the host lowers anyone's", async () => {
    const first = await mutate(o.s, 'calling.raiseHand', { callId }, 'calling.hand.raise', { key: o.max.key });
    expect(first.event.payload).toEqual({ callId, principalId: o.max.id, position: 1 });
    const second = await ok(o.s, 'calling.raiseHand', { callId }, o.mia.key);
    expect(second.call.raisedHands).toEqual([o.max.id, o.mia.id]);
    expect(participant(second.call, o.mia.id).handPosition).toBe(2);
    const again = await mutate(o.s, 'calling.raiseHand', { callId }, 'calling.hand.raise', { key: o.max.key });
    expect([again.result.changed, again.event.payload.noop, again.event.payload.position]).toEqual([false, true, 1]);
    expect(await refused(o.s, 'calling.lowerHand', { callId, principalId: o.max.id }, 'CONFLICT', { key: o.mia.key })).toMatch(/only the host/);
    const lowered = await mutate(o.s, 'calling.lowerHand', { callId, principalId: o.max.id }, 'calling.hand.lower');
    expect(lowered.event.payload).toEqual({ callId, principalId: o.max.id, byHost: true });
    expect(lowered.result.call.raisedHands).toEqual([o.mia.id]);
    expect(participant(lowered.result.call, o.mia.id).handPosition).toBe(1);
    // Raised again, max goes to the back of the queue.
    expect((await ok(o.s, 'calling.raiseHand', { callId }, o.max.key)).call.raisedHands).toEqual([o.mia.id, o.max.id]);
    await ok(o.s, 'calling.lowerHand', { callId }, o.mia.key);
    const none = await mutate(o.s, 'calling.lowerHand', { callId }, 'calling.hand.lower', { key: o.mia.key });
    expect([none.result.changed, none.event.payload.noop]).toEqual([false, true]);
    await ok(o.s, 'calling.lowerHand', { callId }, o.max.key);
    expect(await refused(o.s, 'calling.raiseHand', { callId }, 'CONFLICT', { key: o.agent.key })).toMatch(/not in call/);
  });
});

describe('calling.react', () => {
  it("shows as the caller's last reaction; the event carries no emoji; a bad emoji is BAD_REQUEST", async () => {
    const { result, event } = await mutate(o.s, 'calling.react', { callId, emoji: '🎉' }, 'calling.reaction.send', { key: o.mia.key });
    expect(participant(result.call, o.mia.id).lastReaction).toMatchObject({ emoji: '🎉' });
    expect(event.payload).toEqual({ callId, principalId: o.mia.id });
    expect((await ok(o.s, 'calling.react', { callId, emoji: ':thumbsup:' }, o.max.key)).changed).toBe(true);
    for (const emoji of ['not an emoji', '🎉🎉', ':Bad Code:', '']) {
      expect(await refused(o.s, 'calling.react', { callId, emoji }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^emoji:/);
    }
  });

  it('more than 5 a second per caller is RATE_LIMITED (with Retry-After), and refused reactions append nothing', async () => {
    const before = await head(o.s.client);
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await rpc(o.s, 'calling.react', { callId, emoji: ':wave:' }, o.owner.key));
    const codes = answers.map((a) => (a.body.ok ? 'ok' : a.body.error.code));
    expect(codes.filter((c) => c === 'ok').length).toBe(5);
    expect(codes.slice(5)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    expect(answers[6].status).toBe(429);
    expect(answers[6].headers['retry-after']).toBe('1');
    expect((await eventsAfter(o.s.client, before)).map((e) => e.kind)).toEqual(Array(5).fill('calling.reaction.send'));
    // Another caller has their own count.
    expect((await rpc(o.s, 'calling.react', { callId, emoji: ':wave:' }, o.max.key)).body.ok).toBe(true);
    await new Promise((r) => setTimeout(r, 2100));
    expect((await rpc(o.s, 'calling.react', { callId, emoji: ':wave:' }, o.owner.key)).body.ok).toBe(true);
  });
});

describe('calling.chat', () => {
  it("posts a reply in the call's thread; the same idempotencyId is the same message; other text under it is CONFLICT", async () => {
    const { result, event } = await mutate(o.s, 'calling.chat', { callId, text: 'Runbook is in the wiki', idempotencyId: 'c-1' }, 'calling.chat.send', {
      key: o.mia.key,
    });
    expect(result).toMatchObject({
      changed: true,
      message: { threadId: rootMessageId, authorId: o.mia.id, text: 'Runbook is in the wiki', channelId: o.channelId },
    });
    expect(event.payload).toMatchObject({ callId, channelId: o.channelId, messageId: result.message.id, threadId: rootMessageId });
    expect(JSON.stringify(event)).not.toContain('Runbook');
    const again = await mutate(o.s, 'calling.chat', { callId, text: 'Runbook is in the wiki', idempotencyId: 'c-1' }, 'calling.chat.send', { key: o.mia.key });
    expect([again.result.changed, again.result.message.id, again.event.payload.noop]).toEqual([false, result.message.id, true]);
    expect(await refused(o.s, 'calling.chat', { callId, text: 'Something else', idempotencyId: 'c-1' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /idempotencyId "c-1" already names another message/,
    );
    expect(await refused(o.s, 'calling.chat', { callId, text: 'Runbook is in the wiki', idempotencyId: 'c-1' }, 'CONFLICT', { key: o.max.key })).toMatch(
      /already names another/,
    );
    await ok(o.s, 'calling.chat', { callId, text: 'Without an id' }, o.max.key);
    const thread = await ok(o.s, 'messaging.history', { threadId: rootMessageId }, o.mia.key);
    expect(thread.messages.map((m: any) => m.text)).toEqual(expect.arrayContaining(['Runbook is in the wiki', 'Without an id']));
    expect(await refused(o.s, 'calling.chat', { callId, text: '' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^text:/);
    expect(await refused(o.s, 'calling.chat', { callId, text: 'x'.repeat(16_001) }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^text: must be at most 16000/);
    expect(await refused(o.s, 'calling.chat', { callId, text: 'hi', idempotencyId: 'x'.repeat(129) }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^idempotencyId:/,
    );
    expect(await refused(o.s, 'calling.chat', { callId, text: 'hi' }, 'CONFLICT', { key: o.agent.key })).toMatch(/join it first/);
  });

  it('an observer in the call may not chat', async () => {
    const ch = await channel(o, [o.mia]);
    await ok(o.s, 'channel.addMember', { channelId: ch, principalId: o.max.id, role: 'observer' });
    const { call } = await startCall(o, o.mia, ch);
    await ok(o.s, 'calling.join', { callId: call.id }, o.max.key);
    expectError(await rpc(o.s, 'calling.chat', { callId: call.id, text: 'hello' }, o.max.key), 'CONFLICT');
    await ok(o.s, 'calling.end', { callId: call.id }, o.mia.key);
  });
});
