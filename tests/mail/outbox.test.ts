import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { createMailService, NO_RELAY } from '../../mail/service.js';
import type { LocalRecipients, MailMessage } from '../../mail/types.js';
import { ApiError } from '../../protocol/errors.js';
import { dkimKey, tempDir } from './kit.js';

const message = (over: Partial<MailMessage> = {}): MailMessage => ({
  from: 'people@example.test',
  to: ['outside@client.test'],
  bcc: ['audit@client.test'],
  subject: 'You are invited',
  text: 'Join us.',
  html: '<p>Join <i>us</i>.</p>',
  attachments: [{ filename: 'note.txt', content: Buffer.from('hello\n') }],
  ...over,
});

/** A stand-in for a family's hook: members are the addresses @example.test; it records what it delivered. */
function members(opts: { fail?: boolean } = {}) {
  const delivered: Array<{ to: readonly string[]; subject: string; messageId: string }> = [];
  const hook: LocalRecipients = {
    claim: async (addresses) => addresses.filter((a) => a.endsWith('@example.test')),
    deliver: async (m, to, messageId) => {
      if (opts.fail) throw new Error('mailbox table unavailable');
      delivered.push({ to, subject: m.subject, messageId });
    },
  };
  return { hook, delivered };
}

describe('mail with no relay configured', () => {
  it('writes an .eml file to the outbox, reported outboxed and not delivered, never sent', async () => {
    const outboxDir = join(tempDir(), 'outbox'); // made on first use
    const mail = createMailService({ outboxDir });
    const d = await mail.send(message());
    expect(d).toMatchObject({ status: 'outboxed', accepted: [], internal: [], rejected: [], error: NO_RELAY });
    expect(d.error).toBe('not delivered: no relay configured (SMTP_URL)');
    expect(d.outboxed.sort()).toEqual(['audit@client.test', 'outside@client.test']);
    expect(d.file).toMatch(/\/outbox\/\d{8}T\d{9}Z-[0-9a-f]{12}\.eml$/);
    expect(readdirSync(outboxDir)).toEqual([d.file!.split('/').pop()]); // no temporary file left behind
    expect(statSync(d.file!).mode & 0o777).toBe(0o600);
    const raw = readFileSync(d.file!);
    expect(raw.toString('latin1')).toContain('\r\n'); // RFC 5322 line ends
    const parsed = await simpleParser(raw);
    expect(parsed.messageId).toBe(d.messageId);
    expect(parsed.from?.text).toBe('people@example.test');
    expect((parsed.to as { text: string }).text).toBe('outside@client.test');
    expect((parsed.bcc as { text: string }).text).toBe('audit@client.test'); // kept, as in a submission
    expect(parsed.subject).toBe('You are invited');
    expect(parsed.text).toBe('Join us.');
    expect(parsed.html).toBe('<p>Join <i>us</i>.</p>');
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['note.txt', 'hello\n']]);
    await mail.close();
  });

  it('concurrent sends each get their own whole file', async () => {
    const outboxDir = tempDir();
    const mail = createMailService({ outboxDir });
    const results = await Promise.all(Array.from({ length: 25 }, (_, i) => mail.send(message({ subject: `s${i}` }))));
    expect(results.every((d) => d.status === 'outboxed')).toBe(true);
    const files = readdirSync(outboxDir);
    expect(files).toHaveLength(25);
    expect(new Set(results.map((d) => d.file)).size).toBe(25);
    const subjects = await Promise.all(files.map(async (f) => (await simpleParser(readFileSync(join(outboxDir, f)))).subject));
    expect(subjects.sort()).toEqual(Array.from({ length: 25 }, (_, i) => `s${i}`).sort());
  });

  it('signs the outbox file with DKIM when configured, so it can be relayed later as it is', async () => {
    const { dkim, resolver } = dkimKey('example.test', 'sel2');
    const d = await createMailService({ outboxDir: tempDir(), dkim }).send(message());
    const verdict = await dkimVerify(readFileSync(d.file!), { resolver });
    expect(verdict.results[0]).toMatchObject({ signingDomain: 'example.test', selector: 'sel2', status: { result: 'pass' } });
  });

  it('delivers to members internally through a registered hook; the rest goes to the outbox', async () => {
    const outboxDir = tempDir();
    const mail = createMailService({ outboxDir });
    const { hook, delivered } = members();
    mail.registerLocalRecipients(hook);

    const inside = await mail.send(message({ to: ['Ana@Example.test'], bcc: [] }));
    expect(inside).toMatchObject({ status: 'internal', accepted: ['ana@example.test'], internal: ['ana@example.test'], outboxed: [], rejected: [] });
    expect(inside.file).toBeUndefined();
    expect(inside.error).toBeUndefined();
    expect(delivered).toEqual([{ to: ['ana@example.test'], subject: 'You are invited', messageId: inside.messageId }]);
    expect(readdirSync(outboxDir)).toEqual([]);

    const mixed = await mail.send(message({ to: ['ana@example.test', 'outside@client.test'], bcc: [] }));
    expect(mixed).toMatchObject({
      status: 'outboxed',
      accepted: ['ana@example.test'],
      internal: ['ana@example.test'],
      outboxed: ['outside@client.test'],
      error: NO_RELAY,
    });
    expect(readdirSync(outboxDir)).toHaveLength(1);
  });

  it('a hook that fails refuses its recipients (temporary); nothing is reported delivered', async () => {
    const mail = createMailService({ outboxDir: tempDir() });
    mail.registerLocalRecipients(members({ fail: true }).hook);
    const d = await mail.send(message({ to: ['ana@example.test'], bcc: [] }));
    expect(d).toMatchObject({ status: 'failed', accepted: [], rejected: ['ana@example.test'], temporary: true });
    expect(d.refusals[0].response).toBe('not delivered internally: mailbox table unavailable');
  });

  it('an outbox that cannot be written is failed, not outboxed', async () => {
    const blocker = join(tempDir(), 'file');
    writeFileSync(blocker, 'not a directory');
    const d = await createMailService({ outboxDir: join(blocker, 'outbox') }).send(message());
    expect(d).toMatchObject({ status: 'failed', accepted: [], temporary: true });
    expect(d.rejected.sort()).toEqual(['audit@client.test', 'outside@client.test']);
    expect(d.file).toBeUndefined();
    expect(d.error).toMatch(/^not delivered: no relay configured \(SMTP_URL\), and the outbox file could not be written: /);
  });

  it('an unregistered hook is no longer asked', async () => {
    const mail = createMailService({ outboxDir: tempDir() });
    const { hook, delivered } = members();
    const off = mail.registerLocalRecipients(hook);
    off();
    expect((await mail.send(message({ to: ['ana@example.test'], bcc: [] }))).status).toBe('outboxed');
    expect(delivered).toEqual([]);
  });
});

describe('a malformed message is BAD_REQUEST naming the field, and nothing is written', () => {
  const cases: Array<[string, Partial<MailMessage>, string]> = [
    ['a bad address', { to: ['outside@client.test', 'not an address'] }, 'message.to.1: must be an email address'],
    ['a bad sender', { from: 'people' }, 'message.from: must be an email address'],
    ['no recipient', { to: [], bcc: [] }, 'message.to: names no recipient (to, cc and bcc are empty)'],
    ['a subject over two lines', { subject: 'Hi\r\nBcc: victim@client.test' }, 'message.subject: must be one line of text'],
    ['a header the message sets', { headers: { Bcc: 'x@client.test' } }, 'message.headers.Bcc: set by the message itself'],
    ['a header name with a colon', { headers: { 'X-A: b': 'c' } }, 'message.headers.X-A: b: not a header field name'],
    ['a display name with a newline', { to: [{ name: 'A\nB', address: 'a@client.test' }] }, 'message.to.0.name: must be one line of text'],
    ['a malformed reply id', { inReplyTo: 'q1@client.test' }, 'message.inReplyTo: must be a message id like <id@domain>'],
    [
      'an attachment given as a path',
      { attachments: [{ filename: 'x', content: '/etc/passwd' as unknown as Buffer }] },
      'message.attachments.0.content: must be bytes (a Buffer)',
    ],
  ];
  it.each(cases)('%s', async (_what, over, text) => {
    const outboxDir = tempDir();
    const err = await createMailService({ outboxDir })
      .send(message(over))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'BAD_REQUEST', message: text });
    expect(readdirSync(outboxDir)).toEqual([]);
  });
});
