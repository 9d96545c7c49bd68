import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { connectInMemory, structured, toolError } from '../../mcp/fixtures.js';
import { ok } from '../../helpers/calls.js';

/* The channel family and the messaging core over MCP (the messaging desk): an agent opens a DM, posts, long-polls. */

describe('messaging over MCP', () => {
  it('an agent lists the tools, opens a DM, sends (a retry is the same message), reads history and waits for the answer', async ({ cast: o }) => {
    const a = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'messaging' });
    try {
      const tools = (await a.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(
        expect.arrayContaining([
          'messaging_send',
          'messaging_history',
          'messaging_channels',
          'channel_create',
          'channel_resolveOrCreateDm',
          'channel_markRead',
        ]),
      );
      const dm = structured(await a.client.callTool({ name: 'channel_resolveOrCreateDm', arguments: { principalIds: [o.mia.id] } })).channel;
      expect(dm).toMatchObject({ kind: 'dm', memberCount: 2 });
      const args = { channelId: dm.id, idempotencyId: 'ask-1', text: 'May I deploy?' };
      const sent = structured(await a.client.callTool({ name: 'messaging_send', arguments: args }));
      expect(sent).toMatchObject({ changed: true, message: { seq: 1 } });
      // A retried tool call is the same message (MCP replays the call itself; send's idempotencyId would answer changed:false).
      expect(structured(await a.client.callTool({ name: 'messaging_send', arguments: args })).message.id).toBe(sent.message.id);
      const waiting = a.client.callTool({ name: 'messaging_history', arguments: { channelId: dm.id, after: 1, waitMs: 10_000 } });
      await new Promise((r) => setTimeout(r, 200));
      await ok(o.s, 'messaging.send', { channelId: dm.id, idempotencyId: 'yes', text: 'Yes, go ahead' }, o.mia.key);
      const answer = structured(await waiting);
      expect(answer.messages.map((m: any) => m.text)).toEqual(['Yes, go ahead']);
      const listed = structured(await a.client.callTool({ name: 'messaging_channels', arguments: { kinds: ['dm'] } })).channels;
      expect(listed.find((c: any) => c.id === dm.id).membership).toMatchObject({ unreadCount: 1, lastReadSeq: 0 });
      expect(toolError(await a.client.callTool({ name: 'messaging_history', arguments: { channelId: 'ch_nope1' } })).code).toBe('NOT_FOUND');
    } finally {
      await a.close();
    }
  });
});
