import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head, mutate, ok, otherOrg, refused, rpc } from '../../helpers/calls.js';
import { inSeconds, team, type Team, view } from './lifecycle-kit.js';

/*
 * messaging.createPoll / votePoll: a poll is a message of kind poll; ballots replace each other; anonymous polls
 * hide voters from members; a closed poll refuses votes (acceptance scenario 6); events carry counts only.
 */

let t: Team;
beforeAll(async () => {
  t = await team();
});
afterAll(() => t.s.close());

const createPoll = (over: object = {}, key = t.alice.key) =>
  ok(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Ship on Friday?', options: ['Yes', 'No', 'Next week'], ...over }, key);

describe('messaging.createPoll', () => {
  it('posts a poll message with its options; the event has counts and flags, never the question or an option', async () => {
    const { result, event } = await mutate(
      t.s,
      'messaging.createPoll',
      { channelId: t.channelId, question: 'Ship on Friday?', options: ['Yes', 'No'], multiple: true, anonymous: false, closesAt: inSeconds(t, 3600) },
      'messaging.poll.create',
      { key: t.alice.key },
    );
    const m = result.message;
    expect(result.changed).toBe(true);
    expect(m).toMatchObject({ kind: 'poll', status: 'posted', text: 'Ship on Friday?', authorId: t.alice.id });
    expect(m.seq).toBeGreaterThan(0);
    expect(m.poll).toMatchObject({ multiple: true, anonymous: false, closed: false, myVote: [], voterCount: 0 });
    expect(m.poll.options.map((o: any) => [o.text, o.votes, o.voterIds])).toEqual([
      ['Yes', 0, []],
      ['No', 0, []],
    ]);
    for (const o of m.poll.options) expect(o.id).toMatch(/^opt_/);
    expect(event.payload).toMatchObject({ channelId: t.channelId, messageId: m.id, seq: m.seq, options: 2, multiple: true, anonymous: false });
    expect(JSON.stringify(event)).not.toMatch(/Friday|"Yes"|"No"|opt_/);
    // In the channel's history like any post.
    expect((await ok(t.s, 'messaging.history', { channelId: t.channelId, limit: 1 }, t.bob.key)).messages[0].id).toBe(m.id);
  });

  it('refuses bad inputs naming the field, appending nothing', async () => {
    expect(
      await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Q', options: ['only one'] }, 'BAD_REQUEST', { key: t.alice.key }),
    ).toMatch(/^options: /);
    const eleven = Array.from({ length: 11 }, (_, i) => `o${i}`);
    expect(await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Q', options: eleven }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(
      /^options: /,
    );
    expect(
      await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Q', options: ['Same', 'same'] }, 'BAD_REQUEST', { key: t.alice.key }),
    ).toMatch(/^options: /);
    expect(
      await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: '', options: ['a', 'b'] }, 'BAD_REQUEST', { key: t.alice.key }),
    ).toMatch(/^question: /);
    expect(
      await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Q', options: ['a', 'b'], closesAt: inSeconds(t, -5) }, 'BAD_REQUEST', {
        key: t.alice.key,
      }),
    ).toMatch(/^closesAt: /);
    expect(
      await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Q', options: ['a', ''] }, 'BAD_REQUEST', { key: t.alice.key }),
    ).toMatch(/^options\.1: /);
    expect(
      await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Q', options: ['a', 'b'], closesAt: 'soon' }, 'BAD_REQUEST', {
        key: t.alice.key,
      }),
    ).toMatch(/^closesAt: /);
    await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Q', options: ['a', 'b'] }, 'CONFLICT', { key: t.watcher.key });
    await refused(t.s, 'messaging.createPoll', { channelId: t.channelId, question: 'Q', options: ['a', 'b'] }, 'FORBIDDEN_SCOPE', { key: t.viewer.key });
    const other = await otherOrg(t.s);
    expect((await other.rpc('messaging.createPoll', { channelId: t.channelId, question: 'Q', options: ['a', 'b'] })).body.error.code).toBe('NOT_FOUND');
  });
});

describe('messaging.votePoll', () => {
  it('a single-choice ballot: vote, change, the same again (changed:false), retract; counts only in events', async () => {
    const poll = (await createPoll()).message;
    const [yes, no] = poll.poll.options.map((o: any) => o.id);
    const first = await mutate(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [yes] }, 'messaging.poll.vote', { key: t.bob.key });
    expect(first.result.changed).toBe(true);
    expect(first.result.message.poll).toMatchObject({ myVote: [yes], voterCount: 1 });
    expect(first.result.message.poll.options[0]).toMatchObject({ votes: 1, voterIds: [t.bob.id] });
    expect(first.event.payload).toEqual({ channelId: t.channelId, messageId: poll.id, choices: 1, voterCount: 1 });
    expect(JSON.stringify(first.event)).not.toContain(yes);

    const changed = await mutate(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [no] }, 'messaging.poll.vote', { key: t.bob.key });
    expect(changed.result.message.poll).toMatchObject({ myVote: [no], voterCount: 1 });
    const same = await mutate(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [no] }, 'messaging.poll.vote', { key: t.bob.key });
    expect(same.result.changed).toBe(false);
    expect(same.event.payload).toMatchObject({ noop: true });
    // Observers only read and react: voting is CONFLICT.
    expect(await refused(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [yes] }, 'CONFLICT', { key: t.watcher.key })).toMatch(/observer/);
    expect(await refused(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [yes, no] }, 'BAD_REQUEST', { key: t.bob.key })).toMatch(
      /^optionIds: .*single-choice/,
    );
    expect(await refused(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: ['opt_notinthispoll0'] }, 'BAD_REQUEST', { key: t.bob.key })).toMatch(
      /^optionIds: /,
    );
    expect(await refused(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [yes, yes] }, 'BAD_REQUEST', { key: t.bob.key })).toMatch(/^optionIds: /);
    expect(await refused(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: ['nope'] }, 'BAD_REQUEST', { key: t.bob.key })).toMatch(/^optionIds\.0: /);

    const retract = await mutate(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [] }, 'messaging.poll.vote', { key: t.bob.key });
    expect(retract.result.message.poll).toMatchObject({ myVote: [], voterCount: 0 });
    expect(retract.event.payload).toMatchObject({ choices: 0, voterCount: 0 });
  });

  it('a multiple-choice poll takes several; a message that is not a poll is BAD_REQUEST', async () => {
    const poll = (await createPoll({ multiple: true })).message;
    const ids = poll.poll.options.map((o: any) => o.id);
    const r = await ok(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [ids[0], ids[2]] }, t.alice.key);
    expect(r.message.poll.myVote.sort()).toEqual([ids[0], ids[2]].sort());
    expect(r.message.poll.options.map((o: any) => o.votes)).toEqual([1, 0, 1]);
    const plain = (await ok(t.s, 'messaging.send', { channelId: t.channelId, idempotencyId: 'not-a-poll', text: 'hello' }, t.alice.key)).message;
    expect(await refused(t.s, 'messaging.votePoll', { messageId: plain.id, optionIds: [] }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^messageId: /);
  });

  it('an anonymous poll hides voters from members, but shows counts and your own ballot', async () => {
    const poll = (await createPoll({ anonymous: true })).message;
    const [yes] = poll.poll.options.map((o: any) => o.id);
    await ok(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [yes] }, t.bob.key);
    const mine = (await ok(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [yes] }, t.alice.key)).message.poll;
    expect(mine).toMatchObject({ anonymous: true, myVote: [yes], voterCount: 2 });
    expect(mine.options[0]).toEqual(expect.objectContaining({ votes: 2, voterIds: null }));
    const seen = await view(t, poll.id, t.watcher.key);
    expect(seen.poll.options.every((o: any) => o.voterIds === null)).toBe(true);
    expect(JSON.stringify(seen)).not.toContain(t.bob.id);
  });

  it('scenario 6: a vote on a closed poll is CONFLICT and changes nothing', async () => {
    const poll = (await createPoll({ closesAt: inSeconds(t, 60) })).message;
    const [yes, no] = poll.poll.options.map((o: any) => o.id);
    await ok(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [yes] }, t.bob.key);
    t.clock.offsetMs += 61_000;
    try {
      const before = await head(t.s.client);
      const res = await rpc(t.s, 'messaging.votePoll', { messageId: poll.id, optionIds: [no] }, t.bob.key);
      expect(res.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/closed at .*votes are final/) });
      expect(await eventsAfter(t.s.client, before)).toEqual([]);
      const after = await view(t, poll.id, t.bob.key);
      expect(after.poll).toMatchObject({ closed: true, myVote: [yes] });
    } finally {
      t.clock.offsetMs -= 61_000;
    }
  });
});
