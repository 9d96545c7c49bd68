import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { connectInMemory, structured, toolError } from '../../mcp/fixtures.js';
import { inSeconds, post } from './lifecycle-kit.js';
import { approved, ok } from '../../helpers/calls.js';

/* The message lifecycle over MCP (the messaging desk): an agent schedules, edits, reacts, polls and votes; its delete of another's message holds. */

describe('message lifecycle over MCP', () => {
  it("an agent works a message's life through tools", async ({ team: t }) => {
    const a = await connectInMemory(t.s.runtime, t.agent.key, { toolsets: 'messaging' });
    try {
      const tools = (await a.client.listTools()).tools.map((x) => x.name);
      expect(tools).toEqual(
        expect.arrayContaining([
          'messaging_schedule',
          'messaging_edit',
          'messaging_delete',
          'messaging_pin',
          'messaging_unpin',
          'messaging_react',
          'messaging_bookmark',
          'messaging_unbookmark',
          'messaging_createPoll',
          'messaging_votePoll',
        ]),
      );
      const call = async (name: string, args: Record<string, unknown>) => structured(await a.client.callTool({ name, arguments: args }));

      const s = await call('messaging_schedule', { channelId: t.channelId, idempotencyId: 'mcp-1', text: 'tomorrow', postAt: inSeconds(t, 86_400) });
      expect(s).toMatchObject({ changed: true, message: { status: 'scheduled', authorId: t.agent.id } });
      expect((await call('messaging_edit', { messageId: s.message.id, text: 'the day after' })).message.text).toBe('the day after');

      const m = await post(t, 'react here');
      expect((await call('messaging_react', { messageId: m.id, emoji: ':eyes:' })).message.reactions[0]).toMatchObject({ emoji: ':eyes:', me: true });
      expect((await call('messaging_pin', { messageId: m.id })).message.pinned).toBe(true);
      const b = await call('messaging_bookmark', { channelId: t.channelId, title: 'Here', messageId: m.id });
      expect(b.bookmark.messageId).toBe(m.id);

      const poll = (await call('messaging_createPoll', { channelId: t.channelId, question: 'Which?', options: ['A', 'B'] })).message;
      const voted = await call('messaging_votePoll', { messageId: poll.id, optionIds: [poll.poll.options[1].id] });
      expect(voted.message.poll.myVote).toEqual([poll.poll.options[1].id]);

      const bad = toolError(await a.client.callTool({ name: 'messaging_react', arguments: { messageId: m.id, emoji: 'nope' } }));
      expect(bad).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^emoji: /) });

      // Erasing another's message holds for a human (the agent is made a channel admin so it may delete at all).
      await ok(t.s, 'channel.updateMemberRole', { channelId: t.channelId, principalId: t.agent.id, role: 'admin' });
      const hold = await call('messaging_delete', { messageId: m.id });
      expect(hold).toMatchObject({ status: 'approval_required', approval: { actionClass: 'messaging.delete' } });
      const approvalId = await approved(t.s, hold.approval, t.agent.key, t.owner.key);
      const deleted = await call('messaging_delete', { messageId: m.id, approvalId });
      expect(deleted).toMatchObject({ changed: true, message: { status: 'deleted', text: null } });
    } finally {
      await a.close();
    }
  });
});
