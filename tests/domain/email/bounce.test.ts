import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmailInboundConfig, startInbound, type InboundListener } from '../../../domain/email/index.js';
import { ok } from '../../helpers/calls.js';
import { startSink, type Sink } from '../../mail/sink.js';
import { postfixDsn, type DsnRecipientSpec } from './dsn-kit.js';
import { compose, dnsFor } from './inbound-kit.js';
import { delivered, eventsSince, messageAs, sendWorld, submissionOf, type SendWorld } from './send-kit.js';

/*
 * Bounces: mail leaves through a relay (a real smtp-server sink) and the far side's Postfix later returns a
 * delivery status notification, sent here through the real SMTP listener (null sender, DKIM-signed by the far
 * side's domain, verified offline). A failed recipient marks the submission bounced, last_error naming the codes
 * and counts; a delay only notes it; the report is filed in Inbox in the sent message's thread, with a system event
 * of ids and codes; a report on nothing the mailbox sent is just mail.
 */

const far = dnsFor('client.example');
let sink: Sink;
let w: SendWorld;
let listener: InboundListener;
let port: number;

beforeAll(async () => {
  sink = await startSink();
  w = await sendWorld({ relay: sink });
  listener = startInbound(w.s.runtime.deps, { ...loadEmailInboundConfig({ EMAIL_SMTP_LISTEN: '127.0.0.1:0' }), resolver: far.resolver });
  port = (await listener.ready).port;
});
afterAll(async () => {
  await listener?.stop();
  await w?.close();
  await sink?.close();
});

const head = async () => Number((await w.s.client.get('snapshot')).body.head.seq);

/** Send from sales@ through the relay; the message and the bytes the relay took. */
async function sendOut(to: string[], subject: string) {
  const r = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to, subject, text: 'Please find the quote below.' }, w.owner.key);
  expect(await delivered(w, r.message.id)).toMatchObject({ delivery: 'sent', last_error: null });
  const [got] = sink.received.filter((m) => m.raw.toString('latin1').includes(`<${r.message.rfcMessageId}>`));
  return {
    id: r.message.id as string,
    rfcId: r.message.rfcMessageId as string,
    threadId: r.message.threadId as string,
    submissionId: r.submission.id,
    raw: got.raw,
  };
}

/** The far side's report, as its MX hands it over: MAIL FROM:<>, signed by client.example. */
async function bounceBack(original: Buffer, recipients: DsnRecipientSpec[], sign = true): Promise<string> {
  const dsn = postfixDsn({ to: w.address, original, recipients });
  const signed = sign ? await compose({ raw: dsn, envelope: { from: '', to: [w.address] }, sign: far.dkim }) : dsn;
  const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'mx.client.example' });
  try {
    const info = await t.sendMail({ envelope: { from: '', to: [w.address] }, raw: signed });
    expect(info.response).toMatch(/^250 /);
  } finally {
    t.close();
  }
  return /^Message-Id: <([^>]+)>/m.exec(dsn.toString('latin1'))![1];
}

const reportRow = async (rfcId: string) => {
  const [row] = await w.s.runtime.db.query<{ message_id: string; thread_id: string; folder_id: string; auth_dkim: string; auth_dmarc: string }>(
    'SELECT message_id, thread_id, folder_id, auth_dkim, auth_dmarc FROM email_messages WHERE org_id = $1 AND rfc_message_id = $2',
    [w.s.org.orgId, rfcId],
  );
  return row!;
};
const inboxOf = async () => {
  const { mailboxes } = await ok(w.s, 'email.mailboxes', {}, w.owner.key);
  return mailboxes.find((m: any) => m.id === w.mailboxId).folders.find((f: any) => f.role === 'inbox').id as string;
};

describe('a delivery status notification for mail the mailbox sent', () => {
  it('a failed recipient bounces the submission; the report is filed in the thread; the reads say bounced', async () => {
    const sent = await sendOut(['ann@client.example', 'gone@client.example'], 'Quote 7');
    const before = await head();
    const reportId = await bounceBack(sent.raw, [
      {
        address: 'gone@client.example',
        action: 'failed',
        status: '5.1.1',
        diagnostic: '550 5.1.1 <gone@client.example>: Recipient address rejected: User unknown in local recipient table',
      },
    ]);
    expect(await submissionOf(w, sent.id)).toMatchObject({ delivery: 'bounced', last_error: 'bounced: 5.1.1 for 1 of 2 recipients' });
    const report = await reportRow(reportId);
    expect(report).toMatchObject({ thread_id: sent.threadId, folder_id: await inboxOf(), auth_dkim: 'pass', auth_dmarc: 'pass' });
    // email.message and email.thread show the submission bounced, the report beside the sent message.
    expect((await messageAs(w, sent.id, w.owner)).submission).toMatchObject({ delivery: 'bounced', error: 'bounced: 5.1.1 for 1 of 2 recipients' });
    const thread = await ok(w.s, 'email.thread', { threadId: sent.threadId }, w.owner.key);
    expect(thread.messages.map((m: any) => [m.id, m.state])).toEqual([
      [sent.id, 'sent'],
      [report.message_id, 'received'],
    ]);
    expect(thread.messages[0].submission).toMatchObject({ id: sent.submissionId, delivery: 'bounced' });
    const events = await eventsSince(w, before);
    expect(events.map((e) => e.kind)).toEqual(['email.message.receive', 'email.submission.bounce']);
    expect(events[1]).toMatchObject({
      actor: '',
      entity_id: sent.submissionId,
      payload: {
        mailboxId: w.mailboxId,
        threadId: sent.threadId,
        messageId: sent.id,
        submissionId: sent.submissionId,
        reportMessageId: report.message_id,
        statuses: ['5.1.1'],
        failed: 1,
        recipients: 2,
        delivery: 'bounced',
        was: 'sent',
      },
    });
    expect(JSON.stringify(events.map((e) => e.payload))).not.toMatch(/@|Quote|User unknown/);
    // The agent of the mailbox sees the bounce event; it names the mailbox.
    const seen = (await w.s.client.get('events', { cursor: before, limit: 50 }, { key: w.agent.key })).body.events;
    expect(seen.map((e: any) => e.kind)).toContain('email.submission.bounce');
  });

  it('a delay only notes it; the failure after it bounces', async () => {
    const sent = await sendOut(['slow@client.example'], 'Quote 8');
    const before = await head();
    await bounceBack(sent.raw, [{ address: 'slow@client.example', action: 'delayed', status: '4.4.1', diagnostic: 'connect to mx.client.example: timed out' }]);
    expect(await submissionOf(w, sent.id)).toMatchObject({
      delivery: 'sent',
      last_error: 'delayed: 4.4.1 for 1 of 1 recipient; the receiving side is still trying',
    });
    const delay = (await eventsSince(w, before)).find((e) => e.kind === 'email.submission.delay');
    expect(delay.payload).toMatchObject({ statuses: ['4.4.1'], delayed: 1, recipients: 1, delivery: 'sent', was: 'sent' });

    await bounceBack(sent.raw, [{ address: 'slow@client.example', action: 'failed', status: '4.4.7', diagnostic: 'delivery time expired' }]);
    expect(await submissionOf(w, sent.id)).toMatchObject({ delivery: 'bounced', last_error: 'bounced: 4.4.7 for 1 of 1 recipient' });
    // A late delay warning does not undo the bounce.
    await bounceBack(sent.raw, [{ address: 'slow@client.example', action: 'delayed', status: '4.4.1' }]);
    expect(await submissionOf(w, sent.id)).toMatchObject({ delivery: 'bounced', last_error: 'bounced: 4.4.7 for 1 of 1 recipient' });
    const thread = await ok(w.s, 'email.thread', { threadId: sent.threadId }, w.owner.key);
    expect(thread.messages).toHaveLength(4);
  });

  it('a forged report (its domain publishes DMARC, and it passes neither SPF nor DKIM) is spam, and changes nothing', async () => {
    const sent = await sendOut(['ann@client.example'], 'Quote 9');
    const before = await head();
    const reportId = await bounceBack(sent.raw, [{ address: 'ann@client.example', action: 'failed', status: '5.1.1' }], false);
    expect(await reportRow(reportId)).toMatchObject({ auth_dmarc: 'fail' });
    expect(await submissionOf(w, sent.id)).toMatchObject({ delivery: 'sent', last_error: null });
    const events = await eventsSince(w, before);
    expect(events.map((e) => [e.kind, e.payload.spam])).toEqual([['email.message.receive', 'dmarc']]);
  });

  it('a report naming nothing the mailbox sent is just mail: its own thread, no submission touched', async () => {
    const stranger = await compose({
      from: 'Sales <sales@elsewhere.example>',
      to: 'ann@client.example',
      subject: 'Not ours',
      messageId: '<never-sent@elsewhere.example>',
    });
    const before = await head();
    const reportId = await bounceBack(stranger, [{ address: 'ann@client.example', action: 'failed', status: '5.1.1' }]);
    const report = await reportRow(reportId);
    const events = await eventsSince(w, before);
    expect(events.map((e) => e.kind)).toEqual(['email.message.receive']);
    expect(events[0].payload).toMatchObject({ newThread: true, folderRole: 'inbox' });
    expect(report.thread_id).toBeTruthy();
  });
});
