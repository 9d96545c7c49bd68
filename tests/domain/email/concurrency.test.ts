import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { refreshThreads } from '../../../domain/email/folders.js';
import { onPostgres } from '../../helpers/harness.js';
import { inbound, mailOrg, type MailOrg } from './kit.js';

/*
 * Writers racing on one thread (PostgreSQL: PGlite has one connection, so its transactions never overlap). A
 * delivery job and a call recomputing the same thread's folders once broke the unique key of email_thread_folders:
 * the loser failed, and a delivery job waited 30 s for its retry.
 */

const PG = '(PostgreSQL only: skipped on PGlite)';
let o: MailOrg;
beforeAll(async () => {
  o = await mailOrg();
});
afterAll(() => o.s.close());

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('one thread, two writers', () => {
  it.skipIf(!onPostgres)(`two transactions recomputing one thread both commit, the second after the first ${PG}`, async () => {
    const { threadId } = await inbound(o);
    const orgId = o.s.org.orgId;
    const order: string[] = [];
    const first = o.s.runtime.db.tx(async (q) => {
      await refreshThreads(q, orgId, [threadId]);
      order.push('first recomputed');
      await pause(300);
      order.push('first commits');
    });
    await pause(100);
    const second = o.s.runtime.db.tx(async (q) => {
      await refreshThreads(q, orgId, [threadId]);
      order.push('second recomputed');
    });
    await Promise.all([first, second]);
    expect(order).toEqual(['first recomputed', 'first commits', 'second recomputed']);
    const rows = await o.s.runtime.db.query<{ n: number }>('SELECT message_count AS n FROM email_thread_folders WHERE org_id = $1 AND thread_id = $2', [
      orgId,
      threadId,
    ]);
    expect(rows.map((r) => Number(r.n))).toEqual([1]);
  });

  it.skipIf(!onPostgres).each([1, 2, 3])(`acts on one thread fired at once all answer ok, and its folder counts add up (round %i) ${PG}`, async () => {
    const { threadId, messageId } = await inbound(o);
    const calls = [
      ...['Clients/A', 'Clients/B', 'Clients/C'].map((path) => o.s.client.rpc('email.move', { ids: [threadId], path }, { key: o.owner.key })),
      ...[1, 2, 3].map((i) => o.s.client.rpc('email.draftSave', { replyToMessageId: messageId, text: `Reply ${i}` }, { key: o.mia.key })),
      o.s.client.rpc('email.markRead', { ids: [threadId] }, { key: o.mia.key }),
    ];
    const answers = await Promise.all(calls);
    for (const a of answers) expect(a.body.ok, a.raw.slice(0, 300)).toBe(true);
    const counts = one(
      await o.s.runtime.db.query<{ folders: number; messages: number; live: number }>(
        `SELECT (SELECT count(*)::int FROM email_thread_folders WHERE org_id = $1 AND thread_id = $2) AS folders,
              (SELECT sum(message_count)::int FROM email_thread_folders WHERE org_id = $1 AND thread_id = $2) AS messages,
              (SELECT count(*)::int FROM email_messages WHERE org_id = $1 AND thread_id = $2 AND state <> 'discarded') AS live`,
        [o.s.org.orgId, threadId],
      ),
    );
    expect(counts.messages).toBe(counts.live);
    expect(counts.live).toBe(4); // the received message and three drafts
  });
});
