import nodemailer, { type SendMailOptions } from 'nodemailer';
import { expect } from 'vitest';
import { createMailbox, receiveMessage, type Received, type Verdict } from '../../../domain/email/index.js';
import { ok, type Caller } from '../../helpers/calls.js';
import { castServer, type Cast, type Person } from '../../helpers/people.js';

/*
 * The email test kit: the usual cast (owner, mia, max, agent, viewer) and a shared mailbox of the org in which the
 * owner is owner, mia a member and the agent an agent (max and the viewer are not in it), made as the operator's
 * CLI makes one; real MIME composed by nodemailer, received through receiveMessage as the SMTP listener will call it.
 */

export interface MailOrg extends Cast {
  mailboxId: string;
  address: string;
  /** Another mailbox of the org: owner and max. */
  otherId: string;
  otherAddress: string;
}

let n = 0;
const unique = () => `${Date.now().toString(36)}${++n}`;

export async function mailOrg(): Promise<MailOrg> {
  const cast = await castServer();
  const tag = unique();
  const address = `sales-${tag}@acme.example`;
  const otherAddress = `ops-${tag}@acme.example`;
  const { mailboxId, otherId } = await cast.s.runtime.db.tx(async (q) => {
    const a = await createMailbox(q, cast.s.org.orgId, {
      address,
      displayName: 'Sales',
      members: [
        { principalId: cast.owner.id, role: 'owner' },
        { principalId: cast.mia.id, role: 'member' },
        { principalId: cast.agent.id, role: 'agent' },
      ],
    });
    const b = await createMailbox(q, cast.s.org.orgId, {
      address: otherAddress,
      members: [
        { principalId: cast.owner.id, role: 'owner' },
        { principalId: cast.max.id, role: 'member' },
      ],
    });
    return { mailboxId: a.mailboxId, otherId: b.mailboxId };
  });
  return { ...cast, mailboxId, address, otherId, otherAddress };
}

/** The folder a message is in, as its mailbox's members see it. */
export async function folderOf(o: MailOrg, messageId: string): Promise<string> {
  return (await ok(o.s, 'email.message', { messageId })).message.folderId;
}

/** The mailbox's folder ids by role (inbox, drafts, sent, archive, spam, trash), as its members see them. */
export async function folderRoles(o: MailOrg, mailboxId = o.mailboxId): Promise<Record<string, string>> {
  const { mailboxes } = await ok(o.s, 'email.mailboxes', {});
  return Object.fromEntries(mailboxes.find((m: any) => m.id === mailboxId).folders.map((f: any) => [f.role, f.id]));
}

const composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

/** RFC 5322 bytes as a mail client would send them. */
export async function mime(opts: SendMailOptions): Promise<Buffer> {
  const info = await composer.sendMail({ from: 'Ann Lee <ann@client.example>', subject: 'Hello', text: 'Hello there.', ...opts });
  return info.message as Buffer;
}

/** Receive a message composed from `opts` for `to` (default the org's mailbox). */
export async function deliver(
  o: MailOrg,
  opts: SendMailOptions & { envelopeTo?: string[]; auth?: { spf?: Verdict; dkim?: Verdict; dmarc?: Verdict } } = {},
): Promise<Received> {
  const { envelopeTo, auth, ...mail } = opts;
  const to = envelopeTo ?? [o.address];
  const raw = await mime({ to: to.join(', '), ...mail });
  return receiveMessage(o.s.runtime.deps, { orgId: o.s.org.orgId, raw, envelope: { from: 'bounce@client.example', to }, auth });
}

/** Deliver one message to the org's mailbox: its message id and thread id. */
export async function inbound(o: MailOrg, opts: SendMailOptions = {}): Promise<{ messageId: string; threadId: string; rfcId: string }> {
  const got = await deliver(o, { messageId: `<${unique()}@client.example>`, ...opts });
  expect(got.messages).toHaveLength(1);
  const { message } = await ok(o.s, 'email.message', { messageId: got.messages[0].messageId });
  return { messageId: got.messages[0].messageId, threadId: got.messages[0].threadId, rfcId: message.rfcMessageId };
}

/** A new draft in the org's mailbox by `by`. */
export async function newDraft(o: MailOrg, by: Person, extra: Record<string, unknown> = {}): Promise<any> {
  return (await ok(o.s, 'email.draftSave', { mailboxId: o.mailboxId, to: ['ann@client.example'], subject: 'Quote', text: 'Hi Ann', ...extra }, by.key)).draft;
}

export const read = (on: Caller, method: string, params: unknown, by: Person) => ok(on, method, params, by.key);
