/** Checking a message and turning it into nodemailer's options; nodemailer does all the MIME. */
import { randomUUID } from 'node:crypto';
import type { SendMailOptions } from 'nodemailer';
import { badRequest } from '../protocol/errors.js';
import type { MailAddress, MailMessage } from './types.js';

// One @, no whitespace or characters that end an address in a header; a domain of dot-separated labels.
const ADDRESS = /^[^\s@<>()[\]\\,;:"]+@[\p{L}\p{N}]([\p{L}\p{N}-]*[\p{L}\p{N}])?(\.[\p{L}\p{N}]([\p{L}\p{N}-]*[\p{L}\p{N}])?)*$/u;
const MESSAGE_ID = /^<[^\s<>@]+@[^\s<>@]+>$/;
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]*$/;
const CONTROL = /[\u0000-\u001f\u007f]/;
// Fields the message sets from its own properties, or that the transport and DKIM own.
const RESERVED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'reply-to',
  'sender',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'content-id',
  'dkim-signature',
  'return-path',
  'received',
]);

function address(field: string, value: MailAddress): { name?: string; address: string } {
  const a = typeof value === 'string' ? { address: value } : value;
  if (!a || typeof a.address !== 'string' || !ADDRESS.test(a.address)) throw badRequest(field, 'must be an email address');
  if (a.name !== undefined && (typeof a.name !== 'string' || CONTROL.test(a.name))) throw badRequest(`${field}.name`, 'must be one line of text');
  return a.name ? { name: a.name, address: a.address } : { address: a.address };
}

function list(field: string, values: MailAddress[] | undefined) {
  if (values === undefined) return [];
  if (!Array.isArray(values)) throw badRequest(field, 'must be a list of addresses');
  return values.map((v, i) => address(`${field}.${i}`, v));
}

function line(field: string, value: unknown): string {
  if (typeof value !== 'string' || CONTROL.test(value)) throw badRequest(field, 'must be one line of text');
  return value;
}

function messageId(field: string, value: unknown): string {
  if (typeof value !== 'string' || !MESSAGE_ID.test(value)) throw badRequest(field, 'must be a message id like <id@domain>');
  return value;
}

export interface PreparedMessage {
  options: SendMailOptions;
  messageId: string;
  /** Every envelope recipient, lower-cased, each once. */
  recipients: string[];
  /** MAIL FROM and RCPT TO: what a relay is told when it is handed the composed bytes. */
  envelope: { from: string; to: string[] };
}

/** Check every field (BAD_REQUEST naming it) and build nodemailer's options; file and URL access stay off. */
export function prepareMessage(m: MailMessage): PreparedMessage {
  const from = address('message.from', m.from);
  const to = list('message.to', m.to);
  const cc = list('message.cc', m.cc);
  const bcc = list('message.bcc', m.bcc);
  const envelope = m.envelope === undefined ? undefined : list('message.envelope.to', m.envelope.to);
  const recipients = [...new Set((envelope ?? [...to, ...cc, ...bcc]).map((a) => a.address.toLowerCase()))];
  if (recipients.length === 0) throw badRequest(envelope ? 'message.envelope.to' : 'message.to', 'names no recipient (to, cc and bcc are empty)');
  if (typeof m.text !== 'string') throw badRequest('message.text', 'must be text');
  if (m.html !== undefined && typeof m.html !== 'string') throw badRequest('message.html', 'must be text');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(m.headers ?? {})) {
    if (!HEADER_NAME.test(name)) throw badRequest(`message.headers.${name}`, 'not a header field name');
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw badRequest(`message.headers.${name}`, 'set by the message itself');
    headers[name] = line(`message.headers.${name}`, value);
  }
  const attachments = (m.attachments ?? []).map((a, i) => {
    const field = `message.attachments.${i}`;
    if (!(a.content instanceof Uint8Array)) throw badRequest(`${field}.content`, 'must be bytes (a Buffer)');
    return {
      filename: line(`${field}.filename`, a.filename),
      content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength),
      ...(a.contentType !== undefined ? { contentType: line(`${field}.contentType`, a.contentType) } : {}),
      ...(a.cid !== undefined ? { cid: line(`${field}.cid`, a.cid) } : {}),
    };
  });
  const calendar = m.calendar;
  if (calendar !== undefined && (!['REQUEST', 'CANCEL', 'REPLY', 'PUBLISH'].includes(calendar.method) || typeof calendar.content !== 'string')) {
    throw badRequest('message.calendar', 'must be {method: REQUEST, CANCEL, REPLY or PUBLISH, content: iCalendar text}');
  }
  const id = m.messageId !== undefined ? messageId('message.messageId', m.messageId) : `<${randomUUID()}@${from.address.split('@')[1]}>`;
  const mailFrom = m.envelope?.from === undefined ? from.address : address('message.envelope.from', m.envelope.from).address;
  const options: SendMailOptions = {
    from,
    to,
    cc,
    bcc,
    ...(m.replyTo !== undefined ? { replyTo: address('message.replyTo', m.replyTo) } : {}),
    subject: line('message.subject', m.subject),
    text: m.text,
    ...(m.html !== undefined ? { html: m.html } : {}),
    messageId: id,
    ...(m.inReplyTo !== undefined ? { inReplyTo: messageId('message.inReplyTo', m.inReplyTo) } : {}),
    ...(m.references !== undefined ? { references: m.references.map((r, i) => messageId(`message.references.${i}`, r)) } : {}),
    headers,
    attachments,
    ...(calendar ? { alternatives: [{ contentType: `text/calendar; charset=utf-8; method=${calendar.method}`, content: calendar.content }] } : {}),
    ...(envelope ? { envelope: { from: mailFrom, to: recipients } } : {}),
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  return { options, messageId: id, recipients, envelope: { from: mailFrom, to: recipients } };
}
