import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { heldBlob } from '../../../blobs/index.js';
import { ok } from '../../helpers/calls.js';
import { dkimKey } from '../../mail/kit.js';
import { startSink, type Sink } from '../../mail/sink.js';
import { delivered, sendWorld, type SendWorld } from './send-kit.js';

/*
 * Sent mail keeps the bytes that left: the mail service composes a message once (DKIM-signed) and hands the relay
 * exactly those bytes, or writes them to the outbox; the delivery job stores them as a blob of the org the sent row
 * holds (raw_sha256), as received mail holds its own. Checked against a real smtp-server sink, byte for byte, and
 * the stored signature verified by mailauth.
 */

const key = dkimKey(`raw-${Date.now().toString(36)}.example`, 'wops1');

async function bytes(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c as Uint8Array));
  return Buffer.concat(chunks);
}

/** The sent row's raw bytes as stored, and what holds them. */
async function storedRaw(w: SendWorld, messageId: string) {
  const [row] = await w.s.runtime.db.query<{ raw_sha256: string | null; size_bytes: string }>(
    'SELECT raw_sha256, size_bytes FROM email_messages WHERE org_id = $1 AND message_id = $2',
    [w.s.org.orgId, messageId],
  );
  expect(row?.raw_sha256).toMatch(/^[0-9a-f]{64}$/);
  const sha256 = row!.raw_sha256!;
  const held = await heldBlob(w.s.runtime.db, { orgId: w.s.org.orgId, sha256, holder: messageId });
  const raw = await bytes(await w.s.runtime.deps.blobs.store.read(w.s.org.orgId, sha256));
  return { raw, sha256, held, size: Number(row!.size_bytes) };
}

/** A relay's own trace field, if it put one on top: what it added, not what we sent. */
const afterReceived = (raw: Buffer): Buffer => {
  const m = /^Received:[^\r\n]*\r\n(?:[ \t][^\r\n]*\r\n)*/.exec(raw.toString('latin1'));
  return m ? raw.subarray(m[0].length) : raw;
};

describe('through a relay', () => {
  let sink: Sink;
  let w: SendWorld;
  beforeAll(async () => {
    sink = await startSink();
    w = await sendWorld({ relay: sink, dkim: key.dkim, domain: key.dkim.domainName });
  });
  afterAll(async () => {
    await w?.close();
    await sink?.close();
  });

  it('the sent row holds the bytes the relay received, DKIM-signed, without the Bcc field', async () => {
    const r = await ok(
      w.s,
      'email.send',
      { mailboxId: w.mailboxId, to: ['ann@client.example'], bcc: ['audit@client.example'], subject: 'Quote 41', text: 'Here is the quote.' },
      w.owner.key,
    );
    expect(await delivered(w, r.message.id)).toMatchObject({ delivery: 'sent' });
    const [got] = sink.received.filter((m) => m.raw.toString('latin1').includes(`<${r.message.rfcMessageId}>`));
    expect(got.to.sort()).toEqual(['ann@client.example', 'audit@client.example']);
    const stored = await storedRaw(w, r.message.id);
    expect(stored.raw.equals(afterReceived(got.raw))).toBe(true);
    expect(stored).toMatchObject({ size: stored.raw.length, held: { sha256: stored.sha256, size: stored.raw.length, contentType: 'message/rfc822' } });
    expect(stored.raw.toString('latin1')).not.toMatch(/^Bcc:/im);
    const verdict = await dkimVerify(stored.raw, { resolver: key.resolver });
    expect(verdict.results[0]).toMatchObject({ signingDomain: w.domain, selector: 'wops1', status: { result: 'pass' } });
    // What email.message shows of its size is the size of what left.
    expect((await ok(w.s, 'email.message', { messageId: r.message.id }, w.owner.key)).message.sizeBytes).toBe(stored.raw.length);
  });

  it('a redirect keeps what it sent on: the original under Resent-* fields, signed', async () => {
    const first = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: [w.opsAddress], subject: 'Internal note', text: 'For ops.' }, w.owner.key);
    expect(await delivered(w, first.message.id)).toMatchObject({ delivery: 'internal' });
    // Mail that only went inside left nothing on a wire: no raw bytes.
    const [inside] = await w.s.runtime.db.query<{ raw_sha256: string | null }>('SELECT raw_sha256 FROM email_messages WHERE org_id = $1 AND message_id = $2', [
      w.s.org.orgId,
      first.message.id,
    ]);
    expect(inside?.raw_sha256).toBeNull();
    const { threads } = await ok(w.s, 'email.threads', { mailboxId: w.opsId }, w.owner.key);
    const thread = await ok(w.s, 'email.thread', { threadId: threads.find((t: any) => t.subject === 'Internal note').id }, w.owner.key);
    const r = await ok(w.s, 'email.redirect', { messageId: thread.messages[0].id, to: ['partner@client.example'] }, w.owner.key);
    expect(await delivered(w, r.message.id)).toMatchObject({ delivery: 'sent' });
    const [got] = sink.received.filter((m) => m.raw.toString('latin1').includes(`Resent-Message-ID: <${r.message.rfcMessageId}>`));
    const stored = await storedRaw(w, r.message.id);
    expect(stored.raw.equals(afterReceived(got.raw))).toBe(true);
    expect((await dkimVerify(stored.raw, { resolver: key.resolver })).results[0].status.result).toBe('pass');
  });
});

describe('with no relay', () => {
  let w: SendWorld;
  beforeAll(async () => {
    w = await sendWorld({ dkim: key.dkim, domain: key.dkim.domainName });
  });
  afterAll(() => w?.close());

  it('the sent row holds the .eml the outbox wrote, byte for byte, signed', async () => {
    const r = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['ann@client.example'], subject: 'Outboxed', text: 'Not delivered.' }, w.owner.key);
    expect(await delivered(w, r.message.id)).toMatchObject({ delivery: 'outboxed' });
    const [file] = readdirSync(w.outboxDir).filter((f) => f.endsWith('.eml'));
    const eml = readFileSync(join(w.outboxDir, file));
    const stored = await storedRaw(w, r.message.id);
    expect(stored.raw.equals(eml)).toBe(true);
    expect((await dkimVerify(stored.raw, { resolver: key.resolver })).results[0].status.result).toBe('pass');
  });
});
