import nodemailer, { type SendMailOptions } from 'nodemailer';
import { createMailbox, receiveMessage } from '../domain/email/index.js';
import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane Studio's shared accounts mailbox (docs/families/email.md): mail from a client and a supplier received
 * as the SMTP listener receives it (verdicts included; a spoof failing DMARC lands in Spam), a person's rule that
 * files receipts, the bookkeeping agent summarising and triaging a thread, and its reply to the client held for
 * Grace's review: the newcomer finds it in /approvals and decides it. The mailbox is made as the operator's CLI makes
 * one; everything after that is an API call through the pipeline.
 */

const ADDRESS = 'accounts@harbourlane.example';
const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

async function inbound(desk: DemoDesk, mail: SendMailOptions & { from: string }, dmarc: 'pass' | 'fail' = 'pass') {
  const raw = (await composer.sendMail({ to: ADDRESS, ...mail })).message as Buffer;
  const sender = /<([^>]+)>/.exec(mail.from)?.[1] ?? mail.from;
  const got = await receiveMessage(desk.runtime.deps, {
    orgId: desk.orgId,
    raw,
    envelope: { from: sender, to: [ADDRESS] },
    auth: { spf: dmarc, dkim: dmarc, dmarc },
  });
  return got.messages[0];
}

export async function demoEmail(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  progress('Email: a shared accounts mailbox, received mail, a rule, and an agent reply waiting for review');
  const m = await desk.memberIds();
  const [grace, priya] = ['Grace Lin', 'Priya Nair'].map((name) => m.get(name)!);
  const agent = (await desk.pipeline.principalFor(desk.keys.agent)).id;
  const { mailboxId } = await desk.runtime.db.tx((q) =>
    createMailbox(q, desk.orgId, {
      address: ADDRESS,
      displayName: 'Harbour Lane accounts',
      members: [
        { principalId: grace, role: 'owner' },
        { principalId: priya, role: 'reviewer' },
        { principalId: agent, role: 'agent' },
      ],
    }),
  );

  // A person's rule first, so the receipt that follows is filed by it.
  const rule = await desk.call('email.ruleSave', {
    mailboxId,
    name: 'Card receipts',
    when: { all: [{ field: 'fromDomain', op: 'is', value: 'payments.example' }] },
    then: [{ move: 'Receipts' }, { markRead: true }],
  });
  const ask = await inbound(desk, {
    from: 'Dana Reyes <dana@tidewater.example>',
    subject: 'Invoice INV-0042 and the March retainer',
    text: 'Hi team,\n\nCould you resend invoice INV-0042 with our new ABN on it? We need it before Friday to pay this month.\n\nAlso, can you confirm the March retainer stays at $4,500?\n\nThanks,\nDana',
  });
  const follow = await inbound(desk, {
    from: 'Dana Reyes <dana@tidewater.example>',
    subject: 'Re: Invoice INV-0042 and the March retainer',
    text: 'One more thing: please address it to Tidewater Holdings Pty Ltd.\n\nDana',
    inReplyTo: (await desk.call('email.message', { messageId: ask.messageId })).message.rfcMessageId,
  });
  await inbound(desk, {
    from: 'Card payments <receipts@payments.example>',
    subject: 'Receipt for your payment of $129.00',
    text: 'Adobe Creative Cloud, $129.00.',
  });
  await inbound(
    desk,
    { from: 'Harbour Lane IT <it@harbourlane.example>', subject: 'Your mailbox is full: verify your password', text: 'Click here to keep your mail.' },
    'fail',
  );

  // The bookkeeping agent works the thread: a summary, a triage, and a reply the gate holds (the client is outside).
  const threadId = follow.threadId;
  const summary = await desk.call('email.summarise', { threadId }, desk.keys.agent);
  const triage = await desk.call('email.triage', { threadId, apply: true }, desk.keys.agent);
  const reply = await desk.call(
    'email.send',
    {
      mailboxId,
      replyToMessageId: follow.messageId,
      to: ['Dana Reyes <dana@tidewater.example>'],
      subject: 'Re: Invoice INV-0042 and the March retainer',
      text: 'Hi Dana,\n\nHere is INV-0042 again, addressed to Tidewater Holdings Pty Ltd with your new ABN. The March retainer stays at $4,500.\n\nHarbour Lane accounts',
    },
    desk.keys.agent,
  );
  const { messages: spam } = await desk.call('email.messages', { query: 'in:Spam', mailboxId });
  return [
    `Email (email.inbox, email.thread, email.approvals; MCP desks email and mailroom):`,
    `  ${ADDRESS} (${mailboxId}): Grace owner, Priya reviewer, the bookkeeping agent an agent; Dana's thread (${threadId}) summarised (${summary.points.length} points) and triaged ${triage.category}/${triage.priority}; the card receipt filed by Grace's rule "${rule.rule.name}"; a spoof failing DMARC in Spam (${spam.length})`,
    `  The agent's reply to Dana is ${reply.status}: approve it with email.approve {"approvalId":"${reply.review?.approvalId ?? ''}"} (or amend it, or return it with a note) as Grace, or in /approvals; it leaves after the undo window`,
    `  Mail comes in over SMTP when EMAIL_SMTP_LISTEN is set (an MX); without SMTP_URL, mail to outside is kept in the outbox and reported not delivered`,
  ];
}
