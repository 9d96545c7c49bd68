import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { refreshThreads } from '../../../domain/email/folders.js';
import { messagesOf } from '../../../domain/email/access.js';
import { onPostgres } from '../../helpers/harness.js';
import { receiveMessage } from '../../../domain/email/index.js';
import { inbound, mailOrg, mime, type MailOrg } from './kit.js';

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

/*
 * A thread moved to another mailbox while others write to it. moveMailbox locked the thread, then its messages;
 * every other writer locks messages, then the thread (refreshThreads): a move racing it deadlocked, and a move that
 * waited behind it acted on messages as read before it (a foreign key broke).
 */
describe('a thread moved to another mailbox while it is written to', () => {
  it.skipIf(!onPostgres)(`moveMailbox waits behind a writer holding the thread's messages, and both commit ${PG}`, async () => {
    const a = await inbound(o);
    await inbound(o, { subject: 'Re: Hello', inReplyTo: `<${a.rfcId}>` });
    const orgId = o.s.org.orgId;
    const order: string[] = [];
    // As email.move and reportSpam write: the messages locked, then the thread (refreshThreads).
    const first = o.s.runtime.db.tx(async (q) => {
      await messagesOf(q, orgId, [a.threadId], o.owner.id, { lock: true });
      order.push('messages locked');
      await pause(300);
      await refreshThreads(q, orgId, [a.threadId]);
      order.push('first commits');
    });
    await pause(100);
    const moved = await o.s.client.rpc('email.moveMailbox', { threadId: a.threadId, toMailboxId: o.otherId }, { key: o.owner.key });
    order.push('moved');
    await first;
    expect(moved.body.ok, moved.raw.slice(0, 300)).toBe(true);
    expect(order).toEqual(['messages locked', 'first commits', 'moved']);
    expect(moved.body.result).toMatchObject({ moved: 2, changed: true });
  });

  it.skipIf(!onPostgres).each([1, 2, 3])(
    `moveMailbox, a move, a spam report, a delegation and reads fired at once all answer ok (round %i) ${PG}`,
    async () => {
      const a = await inbound(o);
      const b = await inbound(o, { subject: 'Re: Hello', inReplyTo: `<${a.rfcId}>` });
      const by = { key: o.owner.key };
      const answers = await Promise.all([
        o.s.client.rpc('email.moveMailbox', { threadId: a.threadId, toMailboxId: o.otherId }, by),
        o.s.client.rpc('email.move', { ids: [a.threadId], path: 'Clients/Moved' }, by),
        o.s.client.rpc('email.reportSpam', { ids: [b.messageId], spam: true }, by),
        o.s.client.rpc('email.delegate', { threadId: a.threadId, to: o.owner.id }, by),
        o.s.client.rpc('email.markRead', { ids: [a.threadId] }, by),
      ]);
      for (const r of answers) expect(r.body.ok, r.raw.slice(0, 300)).toBe(true);
      const state = one(
        await o.s.runtime.db.query<{ box: string; boxes: string[]; counted: number; live: number }>(
          `SELECT t.mailbox_id AS box,
                (SELECT array_agg(DISTINCT m.mailbox_id) FROM email_messages m WHERE m.org_id = t.org_id AND m.thread_id = t.thread_id) AS boxes,
                (SELECT sum(message_count)::int FROM email_thread_folders f WHERE f.org_id = t.org_id AND f.thread_id = t.thread_id) AS counted,
                (SELECT count(*)::int FROM email_messages m WHERE m.org_id = t.org_id AND m.thread_id = t.thread_id AND m.state <> 'discarded') AS live
           FROM email_threads t WHERE t.org_id = $1 AND t.thread_id = $2`,
          [o.s.org.orgId, a.threadId],
        ),
      );
      expect(state.box).toBe(o.otherId);
      expect(state.boxes).toEqual([o.otherId]);
      expect(state.counted).toBe(state.live);
    },
  );
});

/*
 * One default signature per member in a mailbox: a save making a default unsets the others. Two such saves at once
 * each unset only what they could see, and both stayed default.
 */
describe('default signatures saved at once', () => {
  const defaults = async (principalId: string) =>
    (
      await o.s.runtime.db.query<{ signature_id: string }>(
        'SELECT signature_id FROM email_signatures WHERE org_id = $1 AND mailbox_id = $2 AND principal_id = $3 AND is_default AND deleted_at IS NULL',
        [o.s.org.orgId, o.mailboxId, principalId],
      )
    ).map((r) => r.signature_id);

  it.skipIf(!onPostgres)(`a default saved while another's save is in flight unsets it once that commits ${PG}`, async () => {
    const orgId = o.s.org.orgId;
    const order: string[] = [];
    // The first save, as signatureSave makes a default: the mailbox locked, then its new default row.
    const first = o.s.runtime.db.tx(async (q) => {
      await q.query('SELECT 1 FROM email_mailboxes WHERE org_id = $1 AND mailbox_id = $2 FOR NO KEY UPDATE', [orgId, o.mailboxId]);
      await q.query(
        `INSERT INTO email_signatures (org_id, signature_id, mailbox_id, principal_id, name, text, is_default, created_by, created_at, updated_at)
         VALUES ($1, 'sig_racefirst00001', $2, $3, 'First', 'First', true, $3, now(), now())`,
        [orgId, o.mailboxId, o.mia.id],
      );
      order.push('first saved');
      await pause(300);
      order.push('first commits');
    });
    await pause(100);
    const second = await o.s.client.rpc('email.signatureSave', { mailboxId: o.mailboxId, name: 'Second', text: 'Second', isDefault: true }, { key: o.mia.key });
    order.push('second saved');
    await first;
    expect(second.body.ok, second.raw.slice(0, 300)).toBe(true);
    expect(order).toEqual(['first saved', 'first commits', 'second saved']);
    expect(await defaults(o.mia.id)).toEqual([second.body.result.signature.id]);
  });

  it.skipIf(!onPostgres).each([1, 2, 3])(`defaults saved at once leave one (round %i) ${PG}`, async (round) => {
    const answers = await Promise.all(
      [1, 2, 3].map((i) =>
        o.s.client.rpc(
          'email.signatureSave',
          { mailboxId: o.mailboxId, name: `R${round}.${i}`, text: `R${round}.${i}`, isDefault: true },
          { key: o.owner.key },
        ),
      ),
    );
    for (const r of answers) expect(r.body.ok, r.raw.slice(0, 300)).toBe(true);
    expect(await defaults(o.owner.id)).toHaveLength(1);
  });
});

describe('one message arriving twice at once', () => {
  it.skipIf(!onPostgres).each([1, 2, 3])(`the same bytes received twice at once are kept once (round %i) ${PG}`, async (round) => {
    const raw = await mime({ to: o.address, subject: `Twice ${round}`, messageId: `<twice-${round}-${Date.now()}@client.example>` });
    const receive = () => receiveMessage(o.s.runtime.deps, { orgId: o.s.org.orgId, raw, envelope: { from: 'ann@client.example', to: [o.address] } });
    const [a, b] = await Promise.all([receive(), receive()]);
    expect(a.messages.length + b.messages.length).toBe(1);
    const rows = await o.s.runtime.db.query('SELECT 1 FROM email_messages WHERE org_id = $1 AND mailbox_id = $2 AND raw_sha256 = $3', [
      o.s.org.orgId,
      o.mailboxId,
      a.sha256,
    ]);
    expect(rows).toHaveLength(1);
  });
});
