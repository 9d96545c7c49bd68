import { simpleParser } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../helpers/calls.js';
import { until } from '../../jobs/kit.js';
import { dkimKey } from '../../mail/kit.js';
import { startSink, type Sink } from '../../mail/sink.js';
import { arrive, delivered, eventsSince, messageAs, sendWorld, submissionOf, type SendWorld } from './send-kit.js';

/*
 * Delivery (the email.deliver job on the real pg-boss worker, undo windows of 1 second) through a relay: a second
 * smtp-server on 127.0.0.1 as the sink, DKIM-signed with a key made here and verified by mailauth through an
 * injected resolver. Mail to mailboxes of the org is delivered directly, the relay gets only the rest; a 4xx is
 * retried, a 5xx fails; the gate meets an agent's unreviewed mail again when it leaves; a review nobody decides
 * expires back to draft.
 */

const refuse: Record<string, number> = {};
let sink: Sink;
let w: SendWorld;
const key = dkimKey(`dkim-${Date.now().toString(36)}.example`, 'wops1');

beforeAll(async () => {
  sink = await startSink({ refuse });
  w = await sendWorld({ relay: sink, dkim: key.dkim, domain: key.dkim.domainName, config: { retryDelaySeconds: 1 } });
});
afterAll(async () => {
  await w.close();
  await sink.close();
});

/** What the sink got for this Message-ID. */
const atSink = (rfcId: string) => sink.received.filter((r) => r.raw.toString('latin1').includes(`<${rfcId}>`));

describe('through the relay', () => {
  it('a reply leaves after its window, DKIM-signed (mailauth verifies it), threaded, from the mailbox; the message is sent', async () => {
    const got = await arrive(w, { subject: 'Pricing', messageId: `q1.${Date.now()}@client.example` });
    const r = await ok(w.s, 'email.send', { replyToMessageId: got.messageId, text: 'It costs $10.' }, w.owner.key);
    expect(await delivered(w, r.message.id)).toMatchObject({ undo_status: 'final', delivery: 'sent', last_error: null, attempts: 1 });
    expect((await ok(w.s, 'email.thread', { threadId: got.threadId }, w.owner.key)).messages.at(-1).submission).toMatchObject({
      delivery: 'sent',
      error: null,
    });
    const [mail] = atSink(r.message.rfcMessageId);
    expect(mail.to).toEqual(['ann@client.example']);
    expect(mail.from).toBe(w.address);
    const verdict = await dkimVerify(mail.raw, { resolver: key.resolver });
    expect(verdict.results[0]).toMatchObject({ signingDomain: w.domain, selector: 'wops1', status: { result: 'pass' } });
    const parsed = await simpleParser(mail.raw);
    expect(parsed.inReplyTo).toBe(`<${got.rfcId}>`);
    expect(parsed.references).toBe(`<${got.rfcId}>`);
    expect(parsed.subject).toBe('Re: Pricing');
    expect(parsed.from?.value[0]).toEqual({ address: w.address, name: 'Acme Sales' });
    const sent = await messageAs(w, r.message.id, w.owner);
    expect(sent).toMatchObject({ state: 'sent', from: { address: w.address, name: 'Acme Sales' } });
    expect(sent.sentAt).not.toBeNull();
    const { mailboxes } = await ok(w.s, 'email.mailboxes', {}, w.owner.key);
    const box = mailboxes.find((m: any) => m.id === w.mailboxId);
    expect(box.delivery).toBe('relay');
    expect(sent.folderId).toBe(box.folders.find((f: any) => f.role === 'sent').id);
  });

  it('mail to a mailbox of the org goes there directly; the relay gets only the outside recipients; one system event', async () => {
    const file = (await ok(w.s, 'files.uploadRegister', { name: 'terms.txt', contentBase64: Buffer.from('the terms').toString('base64') })).file;
    const before = Number((await w.s.client.get('snapshot')).body.head.seq);
    const r = await ok(
      w.s,
      'email.send',
      { mailboxId: w.mailboxId, to: ['ann@client.example', w.opsAddress], subject: 'Terms', text: 'Attached.', fileIds: [file.id] },
      w.owner.key,
    );
    expect(await delivered(w, r.message.id)).toMatchObject({ delivery: 'sent' });
    const [mail] = atSink(r.message.rfcMessageId);
    expect(mail.to).toEqual(['ann@client.example']);
    const parsed = await simpleParser(mail.raw);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((a) => a.address) : []).toEqual(['ann@client.example', w.opsAddress]);
    expect(parsed.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['terms.txt', 'the terms']]);
    // ops@ received its copy, with the same file.
    const { threads } = await ok(w.s, 'email.threads', { mailboxId: w.opsId }, w.owner.key);
    const thread = await ok(w.s, 'email.thread', { threadId: threads[0].id }, w.owner.key);
    const copy = thread.messages.find((m: any) => m.rfcMessageId === r.message.rfcMessageId);
    expect(copy).toMatchObject({ state: 'received', subject: 'Terms', from: { address: w.address } });
    expect(copy.attachments.map((a: any) => a.sha256)).toEqual([file.sha256]);
    const events = (await eventsSince(w, before)).filter((e) => e.kind === 'email.submission.deliver');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ actor: '', entity_id: r.submission.id });
    expect(events[0].payload).toMatchObject({ delivery: 'sent', internal: 1, external: 1, accepted: 1, refused: 0, internalMessageIds: [copy.id] });
    expect(JSON.stringify(events[0].payload)).not.toMatch(/client\.example|Terms/);
  });

  it('a redirect goes to its new recipients only, the original unchanged under Resent-* fields, signed by the mailbox', async () => {
    const got = await arrive(w, { subject: 'Invoice 7', text: 'Amount due: $70.', messageId: `inv7.${Date.now()}@client.example` });
    const r = await ok(w.s, 'email.redirect', { messageId: got.messageId, to: ['Accounts <accounts@client.example>'] }, w.owner.key);
    expect(await delivered(w, r.message.id)).toMatchObject({ delivery: 'sent' });
    const [mail] = sink.received.filter((m) => m.raw.toString('latin1').includes(`Resent-Message-ID: <${r.message.rfcMessageId}>`));
    expect(mail.to).toEqual(['accounts@client.example']);
    expect(mail.from).toBe(w.address);
    const parsed = await simpleParser(mail.raw);
    expect(parsed.messageId).toBe(`<${got.rfcId}>`);
    expect(parsed.from?.value[0].address).toBe('ann@client.example');
    expect(parsed.subject).toBe('Invoice 7');
    expect(parsed.text?.trim()).toBe('Amount due: $70.');
    expect(parsed.headers.get('resent-to')).toBe('accounts@client.example');
    expect(parsed.headers.get('resent-from')).toBe(w.address);
    expect(Date.parse(String(parsed.headers.get('resent-date')))).toBeGreaterThan(Date.now() - 60_000);
    expect((await dkimVerify(mail.raw, { resolver: key.resolver })).results[0].status.result).toBe('pass');
    expect((await messageAs(w, got.messageId, w.owner)).state).toBe('received');
  });

  it('a 4xx is deferred and retried until the relay takes it; a 5xx fails', async () => {
    refuse['busy@client.example'] = 450;
    const r = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['busy@client.example'], subject: 'Retry me' }, w.owner.key);
    const first = await until('a deferral', async () => {
      const s = await submissionOf(w, r.message.id);
      return s?.delivery === 'deferred' ? s : undefined;
    });
    expect(first.last_error).toMatch(/Mailbox busy, try later/);
    delete refuse['busy@client.example'];
    await until('the retry', async () => ((await submissionOf(w, r.message.id))?.delivery === 'sent' ? true : undefined));
    expect((await submissionOf(w, r.message.id))!.attempts).toBeGreaterThanOrEqual(2);
    expect(atSink(r.message.rfcMessageId)).toHaveLength(1);

    refuse['gone@client.example'] = 550;
    const bad = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['gone@client.example'], subject: 'Bounce me' }, w.owner.key);
    expect(await delivered(w, bad.message.id)).toMatchObject({ delivery: 'failed', last_error: expect.stringMatching(/No such user here/) });
    // Asked again, draftSend says where it is: left, not delivered.
    const again = await ok(w.s, 'email.draftSend', { draftId: bad.message.id }, w.owner.key);
    expect(again).toMatchObject({ status: 'sent', changed: false, submission: { delivery: 'failed' } });
    expect(again.note).toMatch(/not delivered: it failed/);
    // The message itself says so to whoever reads it later.
    const { message } = await ok(w.s, 'email.message', { messageId: bad.message.id }, w.owner.key);
    expect(message).toMatchObject({
      state: 'sent',
      submission: { delivery: 'failed', undoStatus: 'final', error: expect.stringMatching(/No such user here/) },
    });
  });

  it("the gate again at release: a policy changed in the undo window holds the agent's mail then, by a system event", async () => {
    const r = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: [w.opsAddress], subject: 'Inside', undoSeconds: 2 }, w.agent.key);
    expect(r.status).toBe('scheduled');
    const before = Number((await w.s.client.get('snapshot')).body.head.seq);
    await w.s.runtime.db.query(`UPDATE email_mailboxes SET policy = 'review_all' WHERE org_id = $1 AND mailbox_id = $2`, [w.s.org.orgId, w.mailboxId]);
    try {
      await until('the hold at release', async () => ((await messageAs(w, r.message.id, w.owner)).state === 'held' ? true : undefined));
    } finally {
      await w.s.runtime.db.query(`UPDATE email_mailboxes SET policy = 'review_external' WHERE org_id = $1 AND mailbox_id = $2`, [w.s.org.orgId, w.mailboxId]);
    }
    expect(await submissionOf(w, r.message.id)).toMatchObject({ undo_status: 'canceled', delivery: null });
    const [hold] = (await eventsSince(w, before)).filter((e) => e.kind === 'email.message.hold');
    expect(hold).toMatchObject({ actor: '', entity_id: r.message.id, payload: { reasons: ['review_all'], atRelease: true } });
    const { reviews } = await ok(w.s, 'email.approvals', {}, w.agent.key);
    expect(reviews.find((v: any) => v.messageId === r.message.id)).toMatchObject({ status: 'pending', requestedBy: w.agent.id });
  });
});

describe('retries end', () => {
  it('a 4xx past the retry window (24 h; none here) fails, saying why', async () => {
    const x = await sendWorld({ relay: sink, config: { retryWindowMs: 0 } });
    try {
      refuse['later@client.example'] = 451;
      const r = await ok(x.s, 'email.send', { mailboxId: x.mailboxId, to: ['later@client.example'], subject: 'Never' }, x.owner.key);
      expect(await delivered(x, r.message.id)).toMatchObject({ delivery: 'failed', attempts: 1, last_error: expect.stringMatching(/try later/) });
    } finally {
      delete refuse['later@client.example'];
      await x.close();
    }
  });
});

describe('a review nobody decides', () => {
  it('expires: its message goes back to the agent as a draft, by a system event', async () => {
    const x = await sendWorld({ config: { reviewTtlMs: 1500 } });
    try {
      const before = Number((await x.s.client.get('snapshot')).body.head.seq);
      const h = await ok(x.s, 'email.send', { mailboxId: x.mailboxId, to: ['ann@client.example'], subject: 'Stale' }, x.agent.key);
      await until('the expiry', async () => ((await messageAs(x, h.message.id, x.agent)).state === 'draft' ? true : undefined));
      const [expire] = (await eventsSince(x, before)).filter((e) => e.kind === 'email.review.expire');
      expect(expire).toMatchObject({ actor: '', entity_id: h.review.approvalId, payload: { messageId: h.message.id, state: 'draft' } });
      expect((await ok(x.s, 'email.approvals', { status: 'expired' }, x.agent.key)).reviews.map((r: any) => r.approvalId)).toEqual([h.review.approvalId]);
      expect((await ok(x.s, 'approval.get', { approvalId: h.review.approvalId })).status).toBe('expired');
    } finally {
      await x.close();
    }
  });
});
