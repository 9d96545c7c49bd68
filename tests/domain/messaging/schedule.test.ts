import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOSS_SCHEMA } from '../../../domain/jobs/scheduler.js';
import { POST_SCHEDULED_JOB, postScheduled } from '../../../domain/messaging/schedule.js';
import { appendEvent } from '../../../ledger/append.js';
import { one, type Db } from '../../../db/types.js';
import { approved, eventsAfter, head, mutate, ok, otherOrg, refused, rpc } from '../../helpers/calls.js';
import { until } from '../../jobs/kit.js';
import { channel, held, inSeconds, post, team, type Team } from './lifecycle-kit.js';
import { person } from '../../helpers/people.js';

/*
 * messaging.schedule and the job that posts a scheduled message: the window, the pending limit, idempotencyId,
 * author-only visibility, the agent broadcast hold; then, with the real pg-boss worker, acceptance scenario 3
 * (scheduled for +2 s, edited to +4 s: posted once, at 4 s; a deleted one never posts), failure at posting time,
 * and two jobs racing for one row.
 */

const jobsOf = (db: Db, messageId: string) =>
  db.query<{ state: string; output: { appended?: boolean } | null; start_after: Date }>(
    `SELECT state::text, output, start_after FROM ${BOSS_SCHEMA}.job WHERE name = $1 AND data#>>'{data,messageId}' = $2 ORDER BY created_on`,
    [POST_SCHEDULED_JOB, messageId],
  );

describe('messaging.schedule (no workers)', () => {
  let t: Team;
  beforeAll(async () => {
    t = await team();
  });
  afterAll(() => t.s.close());

  const params = (over: object = {}) => ({
    channelId: t.channelId,
    idempotencyId: `s-${Math.random()}`,
    text: 'later <@' + t.bob.id + '>',
    postAt: inSeconds(t, 3600),
    ...over,
  });

  it('schedules a message seen only by its author, with one job at postAt; the event names ids and counts', async () => {
    const p = params();
    const { result, event } = await mutate(t.s, 'messaging.schedule', p, 'messaging.message.schedule', { key: t.alice.key });
    expect(result.changed).toBe(true);
    expect(result.message).toMatchObject({
      status: 'scheduled',
      seq: null,
      text: p.text,
      authorId: t.alice.id,
      postAt: p.postAt.replace(/\.\d+Z$/, (m) => m),
      mentions: [t.bob.id],
    });
    expect(new Date(result.message.postAt).getTime()).toBe(new Date(p.postAt).getTime());
    expect(event.payload).toMatchObject({ channelId: t.channelId, messageId: result.message.id, status: 'scheduled', mentions: 1, pending: 1 });
    expect(JSON.stringify(event.payload)).not.toContain('later');
    const jobs = await jobsOf(t.s.runtime.db, result.message.id);
    expect(jobs).toHaveLength(1);
    expect(new Date(one(jobs).start_after).getTime()).toBe(new Date(p.postAt).getTime());

    // Author only: others see nothing, not even in their scheduled list.
    const mine = await ok(t.s, 'messaging.history', { scheduled: true }, t.alice.key);
    expect(mine.messages.map((m: any) => m.id)).toContain(result.message.id);
    const theirs = await ok(t.s, 'messaging.history', { scheduled: true }, t.bob.key);
    expect(theirs.messages.map((m: any) => m.id)).not.toContain(result.message.id);
    await refused(t.s, 'messaging.history', { messageId: result.message.id }, 'NOT_FOUND', { key: t.bob.key });
    await refused(t.s, 'messaging.edit', { messageId: result.message.id, text: 'x' }, 'NOT_FOUND', { key: t.owner.key });
    await refused(t.s, 'messaging.delete', { messageId: result.message.id }, 'NOT_FOUND', { key: t.owner.key });
    const page = await ok(t.s, 'messaging.history', { channelId: t.channelId }, t.alice.key);
    expect(page.messages.map((m: any) => m.id)).not.toContain(result.message.id);
  });

  it('the same idempotencyId and params is changed:false with a noop event; other params CONFLICT', async () => {
    const p = params();
    const first = await ok(t.s, 'messaging.schedule', p, t.alice.key);
    const again = await mutate(t.s, 'messaging.schedule', p, 'messaging.message.schedule', { key: t.alice.key });
    expect(again.result).toMatchObject({ changed: false, message: { id: first.message.id } });
    expect(again.event.payload).toMatchObject({ noop: true, messageId: first.message.id });
    expect(await jobsOf(t.s.runtime.db, first.message.id)).toHaveLength(1);
    expect(await refused(t.s, 'messaging.schedule', { ...p, text: 'other' }, 'CONFLICT', { key: t.alice.key })).toMatch(/other params/);
    // send with the same key is another act: CONFLICT, not the scheduled message.
    await refused(t.s, 'messaging.send', { channelId: p.channelId, idempotencyId: p.idempotencyId, text: p.text }, 'CONFLICT', { key: t.alice.key });
  });

  it('postAt is 10 s to 120 days ahead; bad inputs are BAD_REQUEST naming the field and change nothing', async () => {
    for (const postAt of [inSeconds(t, -60), inSeconds(t, 5), inSeconds(t, 121 * 86_400), '2026-13-01T00:00:00Z', 'tomorrow', '2026-11-30T10:00:00']) {
      expect(await refused(t.s, 'messaging.schedule', params({ postAt }), 'BAD_REQUEST', { key: t.alice.key }), postAt).toMatch(/^postAt: |^postAt: /);
    }
    expect(await refused(t.s, 'messaging.schedule', params({ text: 'x'.repeat(16_001) }), 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^text: /);
    const { idempotencyId: _, ...noKey } = params();
    expect(await refused(t.s, 'messaging.schedule', noKey, 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^idempotencyId: required/);
    expect(await refused(t.s, 'messaging.schedule', params({ colour: 'red' }), 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^colour: unknown field/);
    expect(await refused(t.s, 'messaging.schedule', params({ alsoToChannel: true }), 'BAD_REQUEST', { key: t.alice.key })).toMatch(/alsoToChannel/);
    const reply = await post(t, 'a reply', t.alice.key, t.channelId, { threadId: (await post(t, 'root')).id });
    expect(await refused(t.s, 'messaging.schedule', params({ threadId: reply.id }), 'BAD_REQUEST', { key: t.alice.key })).toMatch(/threadId/);
    await refused(t.s, 'messaging.schedule', params(), 'FORBIDDEN_SCOPE', { key: t.viewer.key });
    await refused(t.s, 'messaging.schedule', params(), 'CONFLICT', { key: t.watcher.key });
    await refused(t.s, 'messaging.schedule', params(), 'CONFLICT', { key: t.outsider.key });
    await refused(t.s, 'messaging.schedule', params({ channelId: 'ch_doesnotexist0000' }), 'NOT_FOUND', { key: t.alice.key });
    const other = await otherOrg(t.s);
    expect((await other.rpc('messaging.schedule', params())).body.error.code).toBe('NOT_FOUND');
  });

  it('more than 100 pending per author is CONFLICT; one deleted makes room', async () => {
    const author = await person(t.s, 'Prolific', { tier: 'member' });
    const ch = await channel(t, 'busy', [author.id]);
    const ids: string[] = [];
    for (let i = 0; i < 100; i++) {
      ids.push(
        (await ok(t.s, 'messaging.schedule', { channelId: ch, idempotencyId: `p${i}`, text: `n${i}`, postAt: inSeconds(t, 600 + i) }, author.key)).message.id,
      );
    }
    expect(
      await refused(t.s, 'messaging.schedule', { channelId: ch, idempotencyId: 'p100', text: 'one too many', postAt: inSeconds(t, 900) }, 'CONFLICT', {
        key: author.key,
      }),
    ).toMatch(/100 scheduled messages pending/);
    await ok(t.s, 'messaging.delete', { messageId: ids[0] }, author.key);
    expect(
      (await ok(t.s, 'messaging.schedule', { channelId: ch, idempotencyId: 'p100', text: 'room now', postAt: inSeconds(t, 900) }, author.key)).changed,
    ).toBe(true);
  }, 60_000);

  it("an agent's <!channel> reaching more than 20 humans holds until a human approves", async () => {
    const humans = [];
    for (let i = 0; i < 21; i++) humans.push((await person(t.s, `Human ${i}`, { tier: 'member' })).id);
    const ch = await channel(t, 'crowd', [...humans, t.agent.id]);
    const p = { channelId: ch, idempotencyId: 'all-hands', text: 'Reminder <!channel>', postAt: inSeconds(t, 3600) };
    const approval = await held(t.s, 'messaging.schedule', p, { key: t.agent.key });
    expect(approval).toMatchObject({ actionClass: 'messaging.schedule', subject: { kind: 'messaging.signature', subjectId: ch } });
    const approvalId = await approved(t.s, approval, t.agent.key, t.owner.key);
    const { result, event } = await mutate(t.s, 'messaging.schedule', { ...p, approvalId }, 'messaging.message.schedule', { key: t.agent.key });
    expect(result.message).toMatchObject({ status: 'scheduled', mentionsChannel: true });
    expect(event.payload.approvalId).toBe(approvalId);
    // Fewer humans: no hold.
    expect(
      (await ok(t.s, 'messaging.schedule', { channelId: t.channelId, idempotencyId: 'small', text: '<!channel> hi', postAt: inSeconds(t, 3600) }, t.agent.key))
        .changed,
    ).toBe(true);
  }, 60_000);
});

describe('the posting job, run by hand', () => {
  let t: Team;
  beforeAll(async () => {
    t = await team();
  });
  afterAll(() => t.s.close());

  it('two runs racing for one row in two transactions: exactly one posts (on PostgreSQL truly concurrent)', async () => {
    const postAt = inSeconds(t, 3600);
    const m = (await ok(t.s, 'messaging.schedule', { channelId: t.channelId, idempotencyId: 'race', text: 'once only', postAt }, t.alice.key)).message;
    const from = await head(t.s.client);
    const { db, deps } = t.s.runtime;
    const orgId = t.s.org.orgId;
    const run = () =>
      db.tx(async (q) => {
        let appended = false;
        await postScheduled.run(
          {
            q,
            orgId,
            causeSeq: from,
            jobId: 'by-hand',
            retryCount: 0,
            deps,
            async emit(kind, entityId, payload) {
              appended = true;
              return appendEvent(q, orgId, { family: 'messaging', kind, entityId, actor: '', payload: { ...payload, causeSeq: from } });
            },
          },
          { messageId: m.id, postAt },
        );
        return appended;
      });
    expect((await Promise.all([run(), run()])).sort()).toEqual([false, true]);
    const events = await eventsAfter(t.s.client, from);
    expect(events.map((e) => e.kind)).toEqual(['messaging.message.deliver']);
    const posted = (await ok(t.s, 'messaging.history', { messageId: m.id }, t.bob.key)).messages[0];
    expect(posted).toMatchObject({ status: 'posted', seq: events[0].payload.seq });
    // A run for a postAt the row no longer has does nothing.
    expect(await run()).toBe(false);
  });
});

describe('the posting job (real pg-boss worker)', () => {
  let t: Team;
  beforeAll(async () => {
    t = await team({ workers: { pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 } });
    // The clock runs a minute behind real time, so postAt +2 s (real) is 62 s ahead by the clock: inside the window.
    t.clock.offsetMs = -60_000;
  });
  afterAll(() => t.s.close());

  const realIn = (ms: number) => new Date(Date.now() + ms).toISOString();
  const eventsOf = async (from: number, messageId: string) => (await eventsAfter(t.s.client, from)).filter((e) => e.entity_id === messageId);

  it('scenario 3: scheduled for +2 s, then edited to +4 s, posts once, at 4 s; a deleted one never posts', async () => {
    const from = await head(t.s.client);
    const start = Date.now();
    const moved = (
      await ok(t.s, 'messaging.schedule', { channelId: t.channelId, idempotencyId: 'sc3-a', text: 'moved to 4 s', postAt: realIn(2000) }, t.alice.key)
    ).message;
    const dropped = (
      await ok(t.s, 'messaging.schedule', { channelId: t.channelId, idempotencyId: 'sc3-b', text: 'never posted', postAt: realIn(2000) }, t.alice.key)
    ).message;
    const fourAt = new Date(start + 4000).toISOString();
    const edited = await mutate(t.s, 'messaging.edit', { messageId: moved.id, postAt: fourAt }, 'messaging.message.edit', { key: t.alice.key });
    expect(edited.result.message).toMatchObject({ status: 'scheduled', editedAt: null });
    expect(edited.event.payload).toMatchObject({ fields: ['postAt'], status: 'scheduled' });
    const deleted = await mutate(t.s, 'messaging.delete', { messageId: dropped.id }, 'messaging.message.delete', { key: t.alice.key });
    expect(deleted.event.payload).toMatchObject({ from: 'scheduled' });

    // On PostgreSQL other test files' runtimes run workers on the same queue: one closing while it holds the job
    // leaves it to expire (60 s) and run again here, so the wait allows for that; it still posts exactly once.
    const delivered = await until('the delivery', async () => (await eventsOf(from, moved.id)).find((e) => e.kind === 'messaging.message.deliver'), 80_000);
    expect(Date.now() - start).toBeGreaterThanOrEqual(3900);
    expect(delivered).toMatchObject({
      actor: '',
      payload: { channelId: t.channelId, messageId: moved.id, authorId: t.alice.id, status: 'posted', causeSeq: edited.event.seq },
    });
    const posted = (await ok(t.s, 'messaging.history', { messageId: moved.id }, t.bob.key)).messages[0];
    expect(posted).toMatchObject({ status: 'posted', seq: delivered.payload.seq, text: 'moved to 4 s' });

    // Both jobs of the moved message have run: the +2 s one found postAt moved, the +4 s one posted.
    await until('both jobs done', async () => ((await jobsOf(t.s.runtime.db, moved.id)).every((j) => j.state === 'completed') ? true : undefined), 80_000);
    expect((await jobsOf(t.s.runtime.db, moved.id)).map((j) => j.output?.appended)).toEqual([false, true]);
    await until("the deleted one's job", async () => ((await jobsOf(t.s.runtime.db, dropped.id))[0]?.state === 'completed' ? true : undefined));
    expect(one(await jobsOf(t.s.runtime.db, dropped.id)).output).toEqual({ appended: false });
    await sleep(1000);
    const all = await eventsAfter(t.s.client, from);
    expect(all.filter((e) => e.kind === 'messaging.message.deliver').map((e) => e.payload.messageId)).toEqual([moved.id]);
    expect((await ok(t.s, 'messaging.history', { messageId: dropped.id }, t.alice.key)).messages[0]).toMatchObject({
      status: 'deleted',
      text: null,
      seq: null,
    });
  }, 150_000);

  it('an author no longer in the channel at postAt: the message fails with the reason (actor "", causeSeq)', async () => {
    const carol = await person(t.s, 'Carol', { tier: 'member' });
    const ch = await channel(t, 'leaving', [carol.id]);
    const from = await head(t.s.client);
    const m = (await ok(t.s, 'messaging.schedule', { channelId: ch, idempotencyId: 'gone', text: 'see you', postAt: realIn(1500) }, carol.key)).message;
    await ok(t.s, 'channel.removeMember', { channelId: ch, principalId: carol.id }, carol.key);
    const failed = await until('the failure', async () => (await eventsOf(from, m.id)).find((e) => e.kind === 'messaging.message.fail'), 20_000);
    expect(failed).toMatchObject({ actor: '', payload: { messageId: m.id, authorId: carol.id, status: 'failed', reason: 'not_a_member' } });
    const shape = (await ok(t.s, 'messaging.history', { scheduled: true }, carol.key)).messages.find((x: any) => x.id === m.id);
    const row =
      shape ??
      (
        await t.s.runtime.db.query<{ status: string; failure: string }>('SELECT status, failure FROM messages WHERE org_id = $1 AND message_id = $2', [
          t.s.org.orgId,
          m.id,
        ])
      )[0];
    expect(row.status).toBe('failed');
    expect(row.failure).toMatch(/no longer in/);
    expect(await refused(t.s, 'messaging.edit', { messageId: m.id, text: 'retry' }, 'CONFLICT', { key: carol.key })).toMatch(/failed to post|not a member/);
  }, 30_000);

  it('an archived channel at postAt: failed, reason archived', async () => {
    const ch = await channel(t, 'archiving', [t.alice.id]);
    const from = await head(t.s.client);
    const m = (await ok(t.s, 'messaging.schedule', { channelId: ch, idempotencyId: 'arch', text: 'too late', postAt: realIn(1500) }, t.alice.key)).message;
    await ok(t.s, 'channel.update', { channelId: ch, archived: true });
    const failed = await until('the failure', async () => (await eventsOf(from, m.id)).find((e) => e.kind === 'messaging.message.fail'), 20_000);
    expect(failed.payload.reason).toBe('archived');
  }, 30_000);

  it('two jobs for one row: it posts once', async () => {
    const from = await head(t.s.client);
    const postAt = realIn(1500);
    const m = (await ok(t.s, 'messaging.schedule', { channelId: t.channelId, idempotencyId: 'twice', text: 'only once', postAt }, t.bob.key)).message;
    const { jobs } = t.s.runtime.deps;
    await t.s.runtime.db.tx((q) =>
      jobs.enqueue(q, t.s.org.orgId, from, [jobs.check(POST_SCHEDULED_JOB, { messageId: m.id, postAt }, { startAfter: new Date(postAt) })]),
    );
    await until(
      'both jobs done',
      async () => {
        const rows = await jobsOf(t.s.runtime.db, m.id);
        return rows.length === 2 && rows.every((j) => j.state === 'completed') ? rows : undefined;
      },
      20_000,
    );
    expect((await jobsOf(t.s.runtime.db, m.id)).map((j) => j.output?.appended).sort()).toEqual([false, true]);
    const delivered = (await eventsAfter(t.s.client, from)).filter((e) => e.kind === 'messaging.message.deliver' && e.payload.messageId === m.id);
    expect(delivered).toHaveLength(1);
  }, 30_000);

  it('an unknown or foreign message id is NOT_FOUND for every lifecycle method', async () => {
    const other = await otherOrg(t.s);
    const m = await post(t, 'mine');
    for (const [method, params] of [
      ['messaging.edit', { messageId: m.id, text: 'x' }],
      ['messaging.delete', { messageId: m.id }],
      ['messaging.react', { messageId: m.id, emoji: '👍' }],
      ['messaging.votePoll', { messageId: m.id, optionIds: [] }],
    ] as const) {
      expect((await other.rpc(method, params)).body.error.code, method).toBe('NOT_FOUND');
      await refused(t.s, method, { ...params, messageId: 'msg_unknown00000000' }, 'NOT_FOUND');
    }
    expect((await rpc(t.s, 'messaging.edit', { messageId: m.id, text: 'x' }, t.bob.key)).body.error.code).toBe('CONFLICT');
  });
});
