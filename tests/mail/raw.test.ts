import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { createMailService } from '../../mail/service.js';
import type { MailMessage, MailService } from '../../mail/types.js';
import { startSink, type Sink } from './sink.js';
import { dkimKey, relayConfig, tempDir } from './kit.js';

/*
 * A message is composed once: the Delivery carries back (`raw`) exactly the bytes the relay received or the outbox
 * file holds, DKIM-signed when configured; the relay's copy has no Bcc field, its recipients only in the envelope.
 */

const open: Array<Sink | MailService> = [];
afterEach(async () => {
  for (const x of open.splice(0).reverse()) await x.close();
});

const message: MailMessage = {
  from: { name: 'Acme Books', address: 'books@example.test' },
  to: ['ana@client.test'],
  bcc: ['hidden@client.test'],
  subject: 'Statement',
  text: 'Your statement is attached.\n',
  attachments: [{ filename: 'statement.txt', content: Buffer.from('balance 0\n') }],
};

describe('the bytes that left', () => {
  it('through a relay: what the relay received, signed, no Bcc field', async () => {
    const sink = await startSink();
    const { dkim, resolver } = dkimKey('example.test', 'raw1');
    const mail = createMailService(relayConfig(sink.url, {}, dkim));
    open.push(sink, mail);
    const d = await mail.send(message);
    expect(d.status).toBe('sent');
    expect(sink.received).toHaveLength(1);
    expect(sink.received[0].to.sort()).toEqual(['ana@client.test', 'hidden@client.test']);
    expect(d.raw?.equals(sink.received[0].raw)).toBe(true);
    expect(d.raw!.toString('latin1')).not.toContain('hidden@client.test');
    expect((await dkimVerify(d.raw!, { resolver })).results[0].status.result).toBe('pass');
  });

  it('refused by the relay: nothing left, no bytes', async () => {
    const sink = await startSink({ refuse: { 'ana@client.test': 550, 'hidden@client.test': 550 } });
    const mail = createMailService(relayConfig(sink.url));
    open.push(sink, mail);
    const d = await mail.send(message);
    expect(d.status).toBe('failed');
    expect(d.raw).toBeUndefined();
  });

  it('with no relay: what the outbox file holds (Bcc kept there)', async () => {
    const mail = createMailService({ outboxDir: tempDir() });
    open.push(mail);
    const d = await mail.send(message);
    expect(d.status).toBe('outboxed');
    expect(d.raw?.equals(readFileSync(d.file!))).toBe(true);
    expect(d.raw!.toString('latin1')).toMatch(/^Bcc: hidden@client\.test\r$/m);
  });
});
