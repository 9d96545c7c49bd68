import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailbox } from '../../../domain/email/index.js';
import { ok } from '../../helpers/calls.js';
import { delivered, eventsSince, messageAs, outboxed, sendWorld, submissionOf, type SendWorld } from './send-kit.js';
import { until } from '../../jobs/kit.js';

/*
 * Mail a send delivers inside the org (the email.deliver job on the real pg-boss worker, no relay) is filed as mail
 * from outside is: through the receiving mailbox's rules and blocks, with one email.message.receive per copy that
 * says it came inside (via "internal", no SPF/DKIM/DMARC verdicts). The sending mailbox gets no copy of its own.
 */

let w: SendWorld;
let deskId: string;
let deskAddress: string;
beforeAll(async () => {
  w = await sendWorld();
  deskAddress = `desk@${w.domain}`;
  deskId = (await w.s.runtime.db.tx((q) => createMailbox(q, w.s.org.orgId, { address: deskAddress, members: [{ principalId: w.owner.id, role: 'owner' }] })))
    .mailboxId;
});
afterAll(() => w?.close());

const head = async () => Number((await w.s.client.get('snapshot')).body.head.seq);
const folders = async (mailboxId: string): Promise<Record<string, string>> => {
  const { mailboxes } = await ok(w.s, 'email.mailboxes', {}, w.owner.key);
  return Object.fromEntries(mailboxes.find((m: any) => m.id === mailboxId).folders.map((f: any) => [f.role === 'none' ? f.path : f.role, f.id]));
};
/** The received copies of a sent message, by mailbox. */
const copiesOf = async (rfcId: string) =>
  w.s.runtime.db.query<{ message_id: string; mailbox_id: string; folder_id: string; state: string }>(
    `SELECT message_id, mailbox_id, folder_id, state FROM email_messages WHERE org_id = $1 AND rfc_message_id = $2 ORDER BY mailbox_id, state`,
    [w.s.org.orgId, rfcId],
  );
const send = async (to: string[], subject: string) => {
  const r = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to, subject, text: 'From sales, inside.' }, w.owner.key);
  expect(await delivered(w, r.message.id)).toMatchObject({ delivery: 'internal', last_error: null });
  return r;
};

describe('mail delivered inside the org', () => {
  it("goes through the receiving mailbox's rules: moved and marked read as the rule says", async () => {
    const rule = (
      await ok(
        w.s,
        'email.ruleSave',
        {
          mailboxId: w.opsId,
          name: 'Invoices from sales',
          when: {
            all: [
              { field: 'fromDomain', op: 'is', value: w.domain },
              { field: 'subject', op: 'contains', value: 'invoice' },
            ],
          },
          then: [{ move: 'Finance' }, { markRead: true }],
        },
        w.owner.key,
      )
    ).rule;
    const before = await head();
    const r = await send([w.opsAddress], 'Invoice 12 for the client');
    const [copy] = (await copiesOf(r.message.rfcMessageId)).filter((c) => c.mailbox_id === w.opsId);
    expect(copy.folder_id).toBe((await folders(w.opsId)).Finance);
    const read = await messageAs(w, copy.message_id, w.owner);
    expect(read).toMatchObject({ state: 'received', unread: false, auth: { spf: null, dkim: null, dmarc: null }, from: { address: w.address } });
    const receive = (await eventsSince(w, before)).filter((e) => e.kind === 'email.message.receive');
    expect(receive).toHaveLength(1);
    expect(receive[0]).toMatchObject({
      actor: '',
      entity_id: copy.message_id,
      payload: {
        mailboxId: w.opsId,
        via: 'internal',
        auth: { spf: null, dkim: null, dmarc: null },
        ruleIds: [rule.id],
        folderRole: 'none',
        spam: null,
        sha256: null,
        senderDomain: w.domain,
        submissionId: r.submission.id,
      },
    });
    expect(JSON.stringify(receive[0].payload)).not.toMatch(/Invoice|sales@|ops@/);
    // A message without the word stays in Inbox, unread.
    const plain = await send([w.opsAddress], 'Lunch on Friday');
    const [other] = (await copiesOf(plain.message.rfcMessageId)).filter((c) => c.mailbox_id === w.opsId);
    expect(other.folder_id).toBe((await folders(w.opsId)).inbox);
    expect((await messageAs(w, other.message_id, w.owner)).unread).toBe(true);
  });

  it('a sender the receiving mailbox blocked lands in Spam', async () => {
    const first = await send([w.opsAddress], 'Weekly numbers');
    const [copy] = (await copiesOf(first.message.rfcMessageId)).filter((c) => c.mailbox_id === w.opsId);
    expect(await ok(w.s, 'email.reportSpam', { ids: [copy.message_id], spam: true, block: 'sender' }, w.owner.key)).toMatchObject({ moved: 1, blocked: 1 });
    const before = await head();
    const again = await send([w.opsAddress, deskAddress], 'Weekly numbers again');
    const copies = await copiesOf(again.message.rfcMessageId);
    expect(copies.find((c) => c.mailbox_id === w.opsId)!.folder_id).toBe((await folders(w.opsId)).spam);
    // The block is ops@'s alone: desk@ files it in its Inbox.
    expect(copies.find((c) => c.mailbox_id === deskId)!.folder_id).toBe((await folders(deskId)).inbox);
    const receive = (await eventsSince(w, before)).filter((e) => e.kind === 'email.message.receive');
    expect(receive.map((e) => [e.payload.mailboxId, e.payload.spam, e.payload.via]).sort()).toEqual(
      [
        [w.opsId, 'blocked', 'internal'],
        [deskId, null, 'internal'],
      ].sort(),
    );
    await ok(w.s, 'email.reportSpam', { ids: [copy.message_id], spam: false }, w.owner.key);
  });

  it('one receive event per copy; the sending mailbox, among the recipients, gets no copy of its own mail', async () => {
    const before = await head();
    const r = await send([w.opsAddress, deskAddress, w.address], 'To everyone, me too');
    const copies = await copiesOf(r.message.rfcMessageId);
    expect(copies.map((c) => [c.mailbox_id, c.state]).sort()).toEqual(
      [
        [w.mailboxId, 'sent'],
        [w.opsId, 'received'],
        [deskId, 'received'],
      ].sort(),
    );
    const events = await eventsSince(w, before);
    const receive = events.filter((e) => e.kind === 'email.message.receive');
    expect(receive.map((e) => e.payload.mailboxId).sort()).toEqual([w.opsId, deskId].sort());
    expect(receive.every((e) => e.payload.via === 'internal' && e.payload.submissionId === r.submission.id)).toBe(true);
    const [deliver] = events.filter((e) => e.kind === 'email.submission.deliver');
    expect(deliver.payload).toMatchObject({ delivery: 'internal', internal: 2, external: 0 });
    expect(deliver.payload.internalMessageIds.sort()).toEqual(receive.map((e) => e.entity_id).sort());
    // The copies come before the delivery's own event, in the same transaction.
    expect(Math.max(...receive.map((e) => Number(e.seq)))).toBeLessThan(Number(deliver.seq));
    // The sender's thread holds its Sent row alone.
    const thread = await ok(w.s, 'email.thread', { threadId: r.message.threadId }, w.owner.key);
    expect(thread.messages.map((m: any) => m.state)).toEqual(['sent']);
  });

  it('a copy inside the org that fails to file is retried alone: the mail that left outside is not sent again', async () => {
    // A failure injected once into filing in desk@ (a sequence counts outside the transaction the savepoint undoes).
    const fn = `fail_once_${deskId}`;
    await w.s.runtime.db.query(`CREATE SEQUENCE ${fn}`);
    await w.s.runtime.db.query(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.mailbox_id = '${deskId}' AND nextval('${fn}') = 1 THEN RAISE EXCEPTION 'injected failure'; END IF;
         RETURN NEW;
       END $$`,
    );
    await w.s.runtime.db.query(`CREATE TRIGGER ${fn} BEFORE INSERT ON email_messages FOR EACH ROW EXECUTE FUNCTION ${fn}()`);
    try {
      const before = await head();
      const outside = (await outboxed(w)).length;
      const r = await ok(
        w.s,
        'email.send',
        { mailboxId: w.mailboxId, to: [deskAddress, 'ann@client.example'], subject: 'Both ways', text: 'Hi.' },
        w.owner.key,
      );
      const rfcId = (await messageAs(w, r.message.id, w.owner)).rfcMessageId;
      await until('the copy in desk@', async () => ((await copiesOf(rfcId)).some((c) => c.mailbox_id === deskId) ? true : undefined));
      const runs = (await eventsSince(w, before)).filter((e) => e.kind === 'email.submission.deliver');
      expect(runs.map((e) => [e.payload.delivery, e.payload.internal, e.payload.insideRetried])).toEqual([
        ['outboxed', 0, true],
        ['outboxed', 1, false],
      ]);
      expect((await outboxed(w)).length - outside).toBe(1);
      expect(await submissionOf(w, r.message.id)).toMatchObject({ delivery: 'outboxed', attempts: 2 });
    } finally {
      await w.s.runtime.db.query(`DROP TRIGGER ${fn} ON email_messages`);
    }
  });
});
