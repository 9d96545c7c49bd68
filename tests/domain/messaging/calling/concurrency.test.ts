import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { person, type Person } from '../../../helpers/people.js';
import { ok, rpc } from '../../../helpers/calls.js';
import { callOrg, channel, startCall, type CallOrg } from './kit.js';

/* Calls raced (on PostgreSQL truly concurrent; on PGlite one after another): one live call per channel, one queue of hands. */

let o: CallOrg;
let crowd: Person[];
beforeAll(async () => {
  o = await callOrg();
  crowd = [];
  for (let i = 0; i < 6; i++) crowd.push(await person(o.s, `crowd ${i}`, { tier: 'member' }));
});
afterAll(() => o.s.close());

describe('concurrency', () => {
  it('six members starting a call in one channel at once: one call, five CONFLICTs naming it', async () => {
    const ch = await channel(o, crowd);
    const answers = await Promise.all(crowd.map((p) => rpc(o.s, 'calling.start', { channelId: ch }, p.key)));
    const won = answers.filter((a) => a.body.ok);
    expect(won).toHaveLength(1);
    const callId = won[0].body.result.call.id;
    for (const a of answers.filter((x) => !x.body.ok)) expect(a.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(callId) });
    await ok(o.s, 'calling.end', { callId }, crowd[answers.indexOf(won[0])].key);
  });

  it('everyone joining and raising a hand at once: all in, each hand a distinct place in the queue', async () => {
    const ch = await channel(o, crowd);
    const { call } = await startCall(o, o.owner, ch);
    await Promise.all(crowd.map((p) => ok(o.s, 'calling.join', { callId: call.id }, p.key)));
    await Promise.all(crowd.map((p) => ok(o.s, 'calling.raiseHand', { callId: call.id }, p.key)));
    const details = (await ok(o.s, 'calling.getDetails', { callId: call.id })).call;
    expect(details.joinedCount).toBe(7);
    expect([...details.raisedHands].sort()).toEqual(crowd.map((p) => p.id).sort());
    expect(
      details.participants
        .filter((p: any) => p.handPosition !== null)
        .map((p: any) => p.handPosition)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5, 6]);
    // Everyone leaving at once: the last one out ends it, exactly once.
    await Promise.all([o.owner, ...crowd].map((p) => ok(o.s, 'calling.removeParticipant', { callId: call.id }, p.key)));
    const ended = (await ok(o.s, 'calling.getDetails', { callId: call.id })).call;
    expect([ended.status, ended.joinedCount]).toEqual(['ended', 0]);
  });
});
