import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { approved, head, held, mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { person } from '../../helpers/people.js';
import { history, newChannel, say } from './core-kit.js';

/* messaging.send: posting, threads, mentions and task refs, idempotencyId dedupe, access, the broadcast hold. */

describe('messaging.send', () => {
  it("attaches only files the sender can read: another member's private file, or an unknown one, is NOT_FOUND", async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia] });
    const vault = (await ok(o.s, 'files.create', { kind: 'folder', name: 'Vault', restricted: true })).file.id;
    const secret = (await ok(o.s, 'files.create', { kind: 'doc', name: 'Salaries', parentId: vault })).file.id;
    const send = (fileIds: string[]) => ({ channelId: ch.id, idempotencyId: `f-${fileIds.join()}`, text: 'see attached', fileIds });
    expect(await refused(o.s, 'messaging.send', send([secret]), 'NOT_FOUND', { key: o.mia.key })).toContain(secret);
    expect(await refused(o.s, 'messaging.send', send(['fil_unknown1']), 'NOT_FOUND', { key: o.mia.key })).toContain('fil_unknown1');
    await ok(o.s, 'files.shareGrant', { fileId: secret, grantee: { principalId: o.mia.id }, role: 'viewer' });
    expect((await ok(o.s, 'messaging.send', send([secret]), o.mia.key)).message.fileIds).toEqual([secret]);
  });

  it('posts with the next seq; one messaging.message.send event of ids and counts, never the text', async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia, o.max] });
    const notes = (await ok(o.s, 'files.create', { kind: 'doc', name: 'Release notes' })).file.id;
    const { result, event } = await mutate(
      o.s,
      'messaging.send',
      { channelId: ch.id, idempotencyId: 'first', text: 'Deploy is live <@' + o.mia.id + '>', fileIds: [notes] },
      'messaging.message.send',
      { key: o.owner.key },
    );
    expect(result.changed).toBe(true);
    expect(result.message).toMatchObject({
      channelId: ch.id,
      seq: 1,
      authorId: o.owner.id,
      status: 'posted',
      kind: 'message',
      mentions: [o.mia.id],
      fileIds: [notes],
      replyCount: 0,
    });
    expect(event.payload).toEqual({
      channelId: ch.id,
      messageId: result.message.id,
      seq: 1,
      threadId: null,
      recipients: 2,
      mentions: [o.mia.id],
      mentionsChannel: false,
      refs: [],
      files: 1,
      artifacts: 0,
    });
    expect(JSON.stringify(event)).not.toContain('Deploy is live');
    const second = await say(o, o.mia, ch.id, 'second');
    expect(second.seq).toBe(2);
  });

  it('the same idempotencyId and params return the same message (changed:false, noop event); other params: CONFLICT', async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia] });
    const params = { channelId: ch.id, idempotencyId: 'retry-me', text: 'once' };
    const first = await ok(o.s, 'messaging.send', params, o.mia.key);
    const { result, event } = await mutate(o.s, 'messaging.send', params, 'messaging.message.send', { key: o.mia.key });
    expect(result).toMatchObject({ changed: false, message: { id: first.message.id, seq: 1 } });
    expect(event.payload).toMatchObject({ messageId: first.message.id, noop: true });
    expect(await refused(o.s, 'messaging.send', { ...params, text: 'twice' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /idempotencyId retry-me already names message msg_\w+ .* with other params/,
    );
    // Another member's idempotencyId is theirs: CONFLICT, without naming the message.
    await ok(o.s, 'channel.addMember', { channelId: ch.id, principalId: o.max.id }, o.owner.key);
    expect(await refused(o.s, 'messaging.send', params, 'CONFLICT', { key: o.max.key })).toMatch(/of another member/);
    expect((await history(o, { channelId: ch.id })).messages).toHaveLength(1);
  });

  it('threads: a reply to a posted root of the same channel; a nested or foreign threadId is BAD_REQUEST', async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia] });
    const other = await newChannel(o, { members: [o.mia] });
    const root = await say(o, o.owner, ch.id, 'root');
    const reply = await say(o, o.mia, ch.id, 'reply', { threadId: root.id });
    expect(reply).toMatchObject({ threadId: root.id, seq: 2, alsoToChannel: false });
    const shown = await say(o, o.mia, ch.id, 'also shown', { threadId: root.id, alsoToChannel: true });
    expect(shown.alsoToChannel).toBe(true);
    expect(
      await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'n1', text: 'x', threadId: reply.id }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toMatch(/^threadId: msg_\w+ is a reply in thread/);
    const foreign = await say(o, o.owner, other.id, 'elsewhere');
    expect(
      await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'n2', text: 'x', threadId: foreign.id }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toMatch(/^threadId: no message/);
    expect(
      await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'n3', text: 'x', threadId: 'msg_nope' }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toMatch(/^threadId: /);
    expect(
      await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'n4', text: 'x', alsoToChannel: true }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toMatch(/^alsoToChannel: only with threadId/);
    const [root2] = (await history(o, { messageId: root.id })).messages;
    expect(root2.replyCount).toBe(2);
  });

  it('mentions must be members of the org; <!channel> is flagged; <task_…> refs are checked and returned', async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia] });
    const t = await ok(o.s, 'board.createTask', { title: 'fix the deploy' });
    const m = await say(o, o.mia, ch.id, `<!channel> see <${t.id}> and <@${o.agent.id}>`);
    expect(m).toMatchObject({ mentionsChannel: true, refs: [t.id], mentions: [o.agent.id] });
    expect(
      await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'm1', text: 'hi <@usr_nobody1>' }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toMatch(/^text: <@usr_nobody1> is not a member/);
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'm2', text: 'see <task_nope1>' }, 'NOT_FOUND', { key: o.mia.key })).toMatch(
      /task task_nope1 \(named in text\) not found/,
    );
  });

  it("access: NOT_FOUND for a private channel you are not in, another org's or an unknown one; CONFLICT when not a member, an observer, archived or posting policy admins", async ({
    cast: o,
  }) => {
    const priv = await newChannel(o, { private: true });
    const pub = await newChannel(o);
    for (const id of [priv.id, 'ch_unknown1']) {
      expect(await refused(o.s, 'messaging.send', { channelId: id, idempotencyId: 'z', text: 'x' }, 'NOT_FOUND', { key: o.mia.key })).toMatch(
        /^channel ch_\w+ not found/,
      );
    }
    const theirs = await otherOrg(o.s);
    const before = await head(o.s.client);
    const res = await theirs.rpc('messaging.send', { channelId: pub.id, idempotencyId: 'z', text: 'x' });
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(await head(o.s.client)).toBe(before);
    expect(await refused(o.s, 'messaging.send', { channelId: pub.id, idempotencyId: 'z', text: 'x' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /^not a member of ch_\w+: join it first/,
    );
    await ok(o.s, 'channel.addMember', { channelId: pub.id, principalId: o.mia.id, role: 'observer' }, o.owner.key);
    expect(await refused(o.s, 'messaging.send', { channelId: pub.id, idempotencyId: 'z', text: 'x' }, 'CONFLICT', { key: o.mia.key })).toMatch(/observer/);
    const adminsOnly = await newChannel(o, { members: [o.mia], postingPolicy: 'admins' });
    expect(await refused(o.s, 'messaging.send', { channelId: adminsOnly.id, idempotencyId: 'z', text: 'x' }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /posting policy admins/,
    );
    await say(o, o.owner, adminsOnly.id, 'owners post');
    await ok(o.s, 'channel.update', { channelId: adminsOnly.id, archived: true }, o.owner.key);
    expect(await refused(o.s, 'messaging.send', { channelId: adminsOnly.id, idempotencyId: 'z', text: 'x' }, 'CONFLICT', { key: o.owner.key })).toMatch(
      /is archived: unarchive it first/,
    );
  });

  it('bad input is BAD_REQUEST naming the field; a missing scope is FORBIDDEN_SCOPE', async ({ cast: o }) => {
    const ch = await newChannel(o, { members: [o.mia] });
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, text: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^idempotencyId: required/);
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'x', text: 'x'.repeat(16_001) }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^text: must be at most 16000/,
    );
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'x', text: '' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^text: /);
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'x', text: 'x', colour: 'red' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^colour: unknown field/,
    );
    expect(
      await refused(
        o.s,
        'messaging.send',
        { channelId: ch.id, idempotencyId: 'x', text: 'x', fileIds: Array.from({ length: 11 }, (_, i) => `fil_${i}a`) },
        'BAD_REQUEST',
        { key: o.mia.key },
      ),
    ).toMatch(/^fileIds: must list at most 10/);
    expect(
      await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'x', text: 'x', artifactIds: ['fil_1'] }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toMatch(/^artifactIds\.0: must be an id of the form art_/);
    expect(await refused(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'x', text: 'x' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key })).toMatch(
      /missing scope messaging.write/,
    );
  });

  it("holds an agent's <!channel> reaching more than 20 humans until a human approves; 20 or fewer post at once", async ({ cast: o }) => {
    const humans = [];
    for (let i = 0; i < 21; i++) humans.push(await person(o.s, `human ${i}`, { tier: 'member' }));
    const ch = await newChannel(o, { members: [o.agent, ...humans.slice(0, 19)] });
    // 19 humans plus the owner: 20 reached, no hold.
    await say(o, o.agent, ch.id, '<!channel> standup');
    await ok(o.s, 'channel.addMember', { channelId: ch.id, principalId: humans[20].id }, o.owner.key);
    const params = { channelId: ch.id, idempotencyId: 'broadcast-1', text: '<!channel> all hands' };
    const before = await head(o.s.client);
    const approval = await held(o.s, 'messaging.send', params, { key: o.agent.key });
    expect(approval).toMatchObject({ actionClass: 'messaging.send', subject: { kind: 'messaging.signature', subjectId: ch.id } });
    const events = (await o.s.client.get('events', { cursor: before, limit: 10 })).body.events;
    expect(events.map((e: any) => e.kind)).toEqual(['messaging.signature.hold']);
    expect((await history(o, { channelId: ch.id })).messages.map((m: any) => m.seq)).toEqual([1]);
    const approvalId = await approved(o.s, approval, o.agent.key, o.owner.key);
    const posted = await ok(o.s, 'messaging.send', { ...params, approvalId }, o.agent.key);
    expect(posted.message).toMatchObject({ seq: 2, mentionsChannel: true });
    // A human's <!channel> never holds.
    await say(o, o.mia, (await newChannel(o, { members: [o.mia, ...humans] })).id, '<!channel> hello');
  }, 60_000);
});
