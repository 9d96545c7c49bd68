import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of the channel
 * family and the messaging core (a channel's name, topic and title, a message's text, its idempotencyId, a search
 * query) shows in no ledger event and no log line, the held broadcast included.
 */

const CANARY = 'okapi-canary-7731';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary', () => {
  it('no name, topic, title, text, idempotencyId or query in any event or log line', async () => {
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const mint = async (spec: object, name: string) => s.client.ok('settings.mintApiKey', { name, ...spec });
    const agent = await mint({ tier: 'agent' }, 'agent');
    const humans = [];
    for (let i = 0; i < 21; i++) humans.push(await mint({ tier: 'member' }, `human ${i}`));
    const ids = humans.map((h) => h.principal.id);
    const text = (field: string) => `${field} ${CANARY}`;

    const ch = (await call('channel.create', { name: `${CANARY}-room`, topic: text('topic'), memberIds: [agent.principal.id, ...ids] })).channel;
    await call('channel.update', { channelId: ch.id, topic: text('new topic'), name: `${CANARY}-renamed` });
    const group = (await call('channel.createConversation', { principalIds: ids.slice(0, 2), title: text('title') })).channel;
    await call('channel.update', { channelId: group.id, title: text('new title') });
    const dm = (await call('channel.resolveOrCreateDm', { principalIds: [agent.principal.id] })).channel;
    const root = (await call('messaging.send', { channelId: ch.id, idempotencyId: `${CANARY}-1`, text: text('root text') })).message;
    await call('messaging.send', { channelId: ch.id, idempotencyId: `${CANARY}-1`, text: text('root text') });
    await call(
      'messaging.send',
      { channelId: ch.id, idempotencyId: `${CANARY}-2`, text: text('reply'), threadId: root.id, alsoToChannel: true },
      humans[0].apiKey,
    );
    await call('messaging.send', { channelId: dm.id, idempotencyId: `${CANARY}-3`, text: text('dm text') }, agent.apiKey);
    const held = await call('messaging.send', { channelId: ch.id, idempotencyId: `${CANARY}-4`, text: `<!channel> ${text('broadcast')}` }, agent.apiKey);
    expect(held.status).toBe('approval_required');
    const found = await call('messaging.history', { query: CANARY });
    expect(found.messages.length).toBeGreaterThan(0);
    await call('messaging.history', { channelId: ch.id });
    await call('messaging.channels', { query: CANARY.slice(0, 10) });
    await call('channel.markRead', { channelId: ch.id });
    await call('channel.markUnreadFrom', { messageId: root.id });
    await call('channel.addMember', { channelId: group.id, principalId: agent.principal.id });
    await call('channel.updateMemberRole', { channelId: group.id, principalId: agent.principal.id, role: 'admin' });
    await call('channel.removeMember', { channelId: group.id, principalId: agent.principal.id });

    const ledger = await s.ledgerText();
    expect(ledger).toContain('messaging.message.send');
    expect(ledger).toContain('messaging.signature.hold');
    expect(ledger).toContain('channel.channel.update');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  }, 60_000);
});
