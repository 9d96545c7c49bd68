import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { createMailService } from '../../mail/service.js';
import type { MailMessage, MailService } from '../../mail/types.js';
import { freePort } from '../helpers/ports.js';
import { startSink, type Sink } from './sink.js';
import { dkimKey, relayConfig } from './kit.js';

const open: Array<Sink | MailService> = [];
afterEach(async () => {
  // Services first: their pools say QUIT, so the sinks close at once.
  for (const x of open.splice(0).reverse()) await x.close();
});
async function sink(opts: Parameters<typeof startSink>[0] = {}) {
  const s = await startSink(opts);
  open.push(s);
  return s;
}
function service(config: Parameters<typeof createMailService>[0]) {
  const s = createMailService(config);
  open.push(s);
  return s;
}

const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10, 0x80, 0x0d, 0x0a]);
const message = (over: Partial<MailMessage> = {}): MailMessage => ({
  from: { name: 'Acme Books', address: 'books@example.test' },
  to: ['ana@client.test', { name: 'Bo Ström', address: 'bo@client.test' }],
  cc: ['cc@client.test'],
  bcc: ['hidden@client.test'],
  subject: 'Invoice INV-7 — due 30 June',
  text: 'Hello Ana,\nyour invoice is attached.\n',
  html: '<p>Hello Ana,<br>your invoice is <b>attached</b>.</p>',
  attachments: [{ filename: 'INV-7.pdf', content: pdf, contentType: 'application/pdf' }],
  ...over,
});

describe('mail through an SMTP relay', () => {
  it('delivers what was sent: addresses, subject, text, html, attachment, threading; Bcc only in the envelope', async () => {
    const relay = await sink();
    const mail = service(relayConfig(relay.url));
    const d = await mail.send(
      message({ inReplyTo: '<q1@client.test>', references: ['<q0@client.test>', '<q1@client.test>'], headers: { 'Auto-Submitted': 'auto-generated' } }),
    );
    expect(d.status).toBe('sent');
    expect(d.accepted.sort()).toEqual(['ana@client.test', 'bo@client.test', 'cc@client.test', 'hidden@client.test']);
    expect(d).toMatchObject({ rejected: [], internal: [], outboxed: [] });
    expect(d.error).toBeUndefined();
    expect(relay.received).toHaveLength(1);
    const got = relay.received[0];
    expect(got.from).toBe('books@example.test');
    expect(got.to.sort()).toEqual(d.accepted);
    const parsed = await simpleParser(got.raw);
    expect(parsed.messageId).toBe(d.messageId);
    expect(d.messageId).toMatch(/^<[0-9a-f-]+@example\.test>$/);
    expect(parsed.from?.value).toEqual([{ name: 'Acme Books', address: 'books@example.test' }]);
    expect((parsed.to as { value: unknown[] }).value).toEqual([
      { name: '', address: 'ana@client.test' },
      { name: 'Bo Ström', address: 'bo@client.test' },
    ]);
    expect((parsed.cc as { text: string }).text).toBe('cc@client.test');
    expect(parsed.bcc).toBeUndefined();
    expect(got.raw.toString('latin1')).not.toContain('hidden@client.test');
    expect(parsed.subject).toBe('Invoice INV-7 — due 30 June');
    expect(parsed.text).toBe('Hello Ana,\nyour invoice is attached.\n');
    expect(parsed.html).toContain('<b>attached</b>');
    expect(parsed.inReplyTo).toBe('<q1@client.test>');
    expect(parsed.references).toEqual(['<q0@client.test>', '<q1@client.test>']);
    expect(parsed.headers.get('auto-submitted')).toBe('auto-generated');
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0]).toMatchObject({ filename: 'INV-7.pdf', contentType: 'application/pdf' });
    expect(Buffer.compare(parsed.attachments[0].content, pdf)).toBe(0);
  });

  it('logs in with the credentials of SMTP_URL, and a refused login is failed, not sent', async () => {
    const relay = await sink({ auth: { user: 'mailer@example.test', pass: 'p@ss:w/rd' } });
    const url = `smtp://${encodeURIComponent('mailer@example.test')}:${encodeURIComponent('p@ss:w/rd')}@127.0.0.1:${relay.port}`;
    const ok = await service(relayConfig(url)).send(message());
    expect(ok.status).toBe('sent');
    expect(relay.received.map((r) => r.user)).toEqual(['mailer@example.test']);

    const bad = `smtp://${encodeURIComponent('mailer@example.test')}:wrong@127.0.0.1:${relay.port}`;
    const d = await service(relayConfig(bad)).send(message());
    expect(d).toMatchObject({ status: 'failed', accepted: [], temporary: false });
    expect(d.error).toMatch(/^the relay refused the credentials in SMTP_URL: .*535/);
    expect(relay.received).toHaveLength(1);
  });

  it('reports a recipient the relay refuses, and delivers to the rest', async () => {
    const relay = await sink({ refuse: { 'ana@client.test': 550, 'cc@client.test': 450 } });
    const d = await service(relayConfig(relay.url)).send(message());
    expect(d.status).toBe('sent');
    expect(d.accepted.sort()).toEqual(['bo@client.test', 'hidden@client.test']);
    expect(d.rejected.sort()).toEqual(['ana@client.test', 'cc@client.test']);
    const byAddress = Object.fromEntries(d.refusals.map((r) => [r.address, r]));
    expect(byAddress['ana@client.test']).toMatchObject({ temporary: false, response: expect.stringMatching(/^550 /) });
    expect(byAddress['cc@client.test']).toMatchObject({ temporary: true, response: expect.stringMatching(/^450 /) });
    expect(d.error).toBe('the relay refused 2 of 4 recipients');
    expect(relay.received[0].to.sort()).toEqual(['bo@client.test', 'hidden@client.test']);
  });

  it('every recipient refused is failed: temporary when any refusal was 4xx, final when all were 5xx', async () => {
    const relay = await sink({ refuse: { 'ana@client.test': 550, 'bo@client.test': 450 } });
    const mail = service(relayConfig(relay.url));
    const soft = await mail.send(message({ to: ['ana@client.test', 'bo@client.test'], cc: [], bcc: [] }));
    expect(soft).toMatchObject({ status: 'failed', accepted: [], temporary: true });
    expect(soft.rejected.sort()).toEqual(['ana@client.test', 'bo@client.test']);
    const hard = await mail.send(message({ to: ['ana@client.test'], cc: [], bcc: [] }));
    expect(hard).toMatchObject({ status: 'failed', accepted: [], rejected: ['ana@client.test'], temporary: false });
    expect(relay.received).toHaveLength(0);
  });

  it('a relay that is down is failed with a clear, temporary error; nothing is reported sent', async () => {
    const port = await freePort(); // nothing listens there
    const d = await service(relayConfig(`smtp://127.0.0.1:${port}`)).send(message());
    expect(d).toMatchObject({ status: 'failed', accepted: [], rejected: [], temporary: true });
    expect(d.error).toMatch(/^not sent: .*ECONNREFUSED/);
    expect(d.file).toBeUndefined();
  });

  it('a relay that accepts the connection and never answers is failed within SMTP_TIMEOUT_MS', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket)); // never sends the 220 greeting
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const started = Date.now();
      const d = await service(relayConfig(`smtp://127.0.0.1:${port}`, { timeoutMs: 300 })).send(message());
      expect(d).toMatchObject({ status: 'failed', accepted: [], temporary: true });
      expect(d.error).toMatch(/^not sent: .*(Greeting never received|Timeout)/i);
      expect(Date.now() - started).toBeLessThan(3000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('SMTP_REQUIRE_TLS refuses a relay that offers no STARTTLS', async () => {
    const relay = await sink();
    const d = await service(relayConfig(relay.url, { requireTls: true })).send(message());
    expect(d.status).toBe('failed');
    expect(d.error).toMatch(/STARTTLS/);
    expect(relay.received).toHaveLength(0);
  });

  it('signs with DKIM, and the signature verifies', async () => {
    const relay = await sink();
    const { dkim, resolver, lookups } = dkimKey('example.test', 'wops1');
    const d = await service(relayConfig(relay.url, {}, dkim)).send(message());
    expect(d.status).toBe('sent');
    const raw = relay.received[0].raw;
    expect(raw.toString('latin1')).toMatch(/^DKIM-Signature: v=1; a=rsa-sha256;[^]*?\sd=example\.test;[^]*?\ss=wops1;/m);
    const verdict = await dkimVerify(raw, { resolver });
    expect(verdict.results).toHaveLength(1);
    expect(verdict.results[0]).toMatchObject({ signingDomain: 'example.test', selector: 'wops1', status: { result: 'pass' } });
    expect(lookups).toEqual(['TXT wops1._domainkey.example.test']);
    // The same check refuses a changed body: the verification is real.
    const tampered = Buffer.from(raw.toString('latin1').replace('your invoice is attached', 'your invoice is atached'), 'latin1');
    const changed = (await dkimVerify(tampered, { resolver })).results[0].status;
    expect(changed.result).not.toBe('pass');
    expect(changed.comment).toMatch(/body hash/);
  });

  it('concurrent sends share one pool of at most SMTP_POOL_SIZE connections, and every message arrives once', async () => {
    const relay = await sink();
    const mail = service(relayConfig(relay.url, { poolSize: 3 }));
    const sends = Array.from({ length: 30 }, (_, i) => mail.send(message({ to: [`n${i}@client.test`], cc: [], bcc: [], subject: `n${i}` })));
    const results = await Promise.all(sends);
    expect(results.every((d) => d.status === 'sent')).toBe(true);
    expect(new Set(results.map((d) => d.messageId)).size).toBe(30);
    expect(relay.received).toHaveLength(30);
    const subjects = await Promise.all(relay.received.map(async (r) => (await simpleParser(r.raw)).subject));
    expect(subjects.sort()).toEqual(Array.from({ length: 30 }, (_, i) => `n${i}`).sort());
    expect(relay.maxConnections).toBeGreaterThanOrEqual(1);
    expect(relay.maxConnections).toBeLessThanOrEqual(3);
  });

  it('with a relay, local recipients go through it too (no family hook is asked)', async () => {
    const relay = await sink();
    const mail = service(relayConfig(relay.url));
    let asked = 0;
    mail.registerLocalRecipients({ claim: async (a) => (asked++, a), deliver: async () => {} });
    const d = await mail.send(message({ to: ['member@example.test'], cc: [], bcc: [] }));
    expect(d).toMatchObject({ status: 'sent', accepted: ['member@example.test'], internal: [] });
    expect(asked).toBe(0);
    expect(relay.received).toHaveLength(1);
  });
});
