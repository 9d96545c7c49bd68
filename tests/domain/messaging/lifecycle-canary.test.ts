import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOSS_SCHEMA } from '../../../domain/jobs/scheduler.js';
import { POST_SCHEDULED_JOB } from '../../../domain/messaging/schedule.js';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../helpers/canary.js';
import { until } from '../../jobs/kit.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of the lifecycle
 * (a scheduled text, an edit, a poll's question and options, a bookmark's title and URL, a shortcode) shows in no
 * ledger event and no log line, the scheduled message's job, an agent's held delete and the refusals included.
 */

const CANARY = 'Okapi-Canary-4412';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer({ ownDatabase: true }); // it starts job workers: its jobs must be its own
  await s.runtime.deps.jobs.startWorkers({ pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 });
});
afterAll(() => s.close());

describe('redaction canary', () => {
  it('no text, question, option, title, URL or emoji in any event or log line', async () => {
    const text = (field: string) => `${field} ${CANARY}`;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const agent = await s.client.ok('settings.mintApiKey', { name: 'agent', tier: 'agent' });
    const member = await s.client.ok('settings.mintApiKey', { name: 'member', tier: 'member' });
    const ch = (await call('channel.create', { name: 'canary', memberIds: [agent.principal.id, member.principal.id] })).channel.id;
    await call('channel.updateMemberRole', { channelId: ch, principalId: agent.principal.id, role: 'admin' });
    const later = new Date(Date.now() + 60_000).toISOString();

    const sched = (await call('messaging.schedule', { channelId: ch, idempotencyId: 'c1', text: text('scheduled'), postAt: later }, member.apiKey)).message;
    await call('messaging.edit', { messageId: sched.id, text: text('scheduled, edited') }, member.apiKey);
    const posted = (await call('messaging.send', { channelId: ch, idempotencyId: 'c2', text: text('posted') }, member.apiKey)).message;
    await call('messaging.edit', { messageId: posted.id, text: text('posted, edited') }, member.apiKey);
    await call('messaging.react', { messageId: posted.id, emoji: ':okapi-canary-4412:' }, agent.apiKey);
    await call('messaging.pin', { messageId: posted.id });
    await call('messaging.unpin', { messageId: posted.id });
    const bkm = (await call('messaging.bookmark', { channelId: ch, title: text('title'), url: `https://example.com/${CANARY}` })).bookmark;
    await call('messaging.bookmark', { channelId: ch, title: text('message title'), messageId: posted.id });
    await call('messaging.unbookmark', { bookmarkId: bkm.id });
    const poll = (
      await call(
        'messaging.createPoll',
        { channelId: ch, question: text('question'), options: [text('option a'), text('option b')], anonymous: true },
        member.apiKey,
      )
    ).message;
    await call('messaging.votePoll', { messageId: poll.id, optionIds: [poll.poll.options[0].id] }, agent.apiKey);
    // Refusals carry the canary in their params too.
    const bad = await s.client.rpc('messaging.edit', { messageId: posted.id, text: text('not yours') }, agent.apiKey);
    expect(bad.body.error.code).toBe('CONFLICT');
    const held = await call('messaging.delete', { messageId: posted.id }, agent.apiKey);
    expect(held.status).toBe('approval_required');
    await call('messaging.delete', { messageId: poll.id }, member.apiKey);

    // The scheduled message posts (its job made due now): the delivery event carries no words either.
    await s.runtime.db.query(`UPDATE ${BOSS_SCHEMA}.job SET start_after = now() WHERE name = $1 AND data#>>'{data,messageId}' = $2`, [
      POST_SCHEDULED_JOB,
      sched.id,
    ]);
    s.runtime.deps.jobs.wake([POST_SCHEDULED_JOB]);
    await until('the delivery', async () => ((await s.ledgerText()).includes('messaging.message.deliver') ? true : undefined), 20_000);

    const ledger = await s.ledgerText();
    for (const kind of ['schedule', 'edit', 'delete', 'pin', 'unpin', 'deliver']) expect(ledger).toContain(`messaging.message.${kind}`);
    for (const kind of ['reaction.set', 'bookmark.add', 'bookmark.remove', 'poll.create', 'poll.vote', 'signature.hold'])
      expect(ledger).toContain(`messaging.${kind}`);
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  }, 30_000);
});
