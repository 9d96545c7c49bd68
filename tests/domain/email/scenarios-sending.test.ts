import nodemailer from 'nodemailer';
import { simpleParser } from 'mailparser';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadEmailInboundConfig, startInbound, type InboundListener } from '../../../domain/email/index.js';
import { mutate, ok, refused } from '../../helpers/calls.js';
import { until } from '../../jobs/kit.js';
import { dkimKey } from '../../mail/kit.js';
import { startSink, type Sink } from '../../mail/sink.js';
import { delivered, eventsSince, messageAs, outboxed, sendWorld, submissionOf, type SendWorld } from './send-kit.js';

/*
 * The design's acceptance scenarios for sending (docs/families/email.md): 1, mail in by SMTP, the agent's reply
 * held, approved, delivered once with its threading and a DKIM signature mailauth verifies; 2, undo inside the
 * window, too late after it, a hold pulling a scheduled send back; 3, returned, revised, amended, and only the
 * amended version delivered; 6, no relay: inside delivered, outside outboxed and reported as not delivered. Real
 * components throughout: the SMTP listener, a relay sink, the pg-boss worker.
 */

const key = dkimKey(`scn-${Date.now().toString(36)}.example`, 'wops1');
let sink: Sink;
let w: SendWorld;
let listener: InboundListener;
let port: number;

beforeAll(async () => {
  sink = await startSink();
  w = await sendWorld({ relay: sink, dkim: key.dkim, domain: key.dkim.domainName });
  // The inbound listener, DNS answered offline (nothing found: no verdict fails).
  const resolver = async (name: string, type: string): Promise<string[][]> => {
    throw Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' });
  };
  listener = startInbound(w.s.runtime.deps, { ...loadEmailInboundConfig({ EMAIL_SMTP_LISTEN: '127.0.0.1:0', EMAIL_SMTP_HOSTNAME: 'mx.test' }), resolver });
  port = (await listener.ready).port;
});
afterAll(async () => {
  await listener.stop();
  await w.close();
  await sink.close();
});

/** Mail from a client's server to sales@ over SMTP: its message id in the mailbox. */
async function smtpIn(subject: string, rfcId: string): Promise<string> {
  const t = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  await t.sendMail({ from: 'Ann Lee <ann@client.example>', to: w.address, subject, text: 'Can you send the quote?', messageId: `<${rfcId}>` });
  t.close();
  const [row] = await w.s.runtime.db.query<{ message_id: string }>('SELECT message_id FROM email_messages WHERE org_id = $1 AND rfc_message_id = $2', [
    w.s.org.orgId,
    rfcId,
  ]);
  return row!.message_id;
}

const atSink = (rfcId: string) => sink.received.filter((r) => r.raw.toString('latin1').includes(`Message-ID: <${rfcId}>`));

describe('sending scenarios', () => {
  it("1: SMTP in; the agent's reply is held (the sink stays empty, the hold event names no subject); approved, it leaves once, threaded and DKIM-signed", async () => {
    const rfcId = `s1.${Date.now()}@client.example`;
    const inbound = await smtpIn('Quote for March', rfcId);
    const draft = (await ok(w.s, 'email.draftSave', { replyToMessageId: inbound, text: 'Here is the quote: $1,200.' }, w.agent.key)).draft;
    const { result, event } = await mutate(w.s, 'email.draftSend', { draftId: draft.id }, 'email.message.hold', { key: w.agent.key });
    expect(result.status).toBe('held_for_review');
    expect(result.note).toMatch(/^Held, not sent/);
    expect(JSON.stringify(event.payload)).not.toMatch(/Quote|March|client\.example|1,200/);
    await new Promise((r) => setTimeout(r, 1500));
    expect(atSink(draft.rfcMessageId)).toEqual([]);

    const approved = await ok(w.s, 'email.approve', { approvalId: result.review.approvalId }, w.mia.key);
    expect(approved.changed).toBe(true);
    expect(await delivered(w, draft.id)).toMatchObject({ delivery: 'sent' });
    const mails = atSink(draft.rfcMessageId);
    expect(mails).toHaveLength(1);
    const parsed = await simpleParser(mails[0].raw);
    expect(parsed.inReplyTo).toBe(`<${rfcId}>`);
    expect(parsed.references).toBe(`<${rfcId}>`);
    expect((await dkimVerify(mails[0].raw, { resolver: key.resolver })).results[0].status.result).toBe('pass');
    expect((await ok(w.s, 'email.approve', { approvalId: result.review.approvalId }, w.owner.key)).changed).toBe(false);
    await new Promise((r) => setTimeout(r, 1000));
    expect(atSink(draft.rfcMessageId)).toHaveLength(1);
  });

  it('2: undoSend inside the window leaves a draft and an empty sink; after release it is CONFLICT; holdReplies pulls a scheduled agent send back and the agent cannot lift it', async () => {
    const early = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['ann@client.example'], subject: 'Oops', undoSeconds: 3 }, w.owner.key);
    expect((await ok(w.s, 'email.undoSend', { messageId: early.message.id }, w.owner.key)).message.state).toBe('draft');
    await new Promise((r) => setTimeout(r, 4000));
    expect(atSink(early.message.rfcMessageId)).toEqual([]);
    expect(await submissionOf(w, early.message.id)).toMatchObject({ undo_status: 'canceled', delivery: null });

    const late = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['ann@client.example'], subject: 'Gone' }, w.owner.key);
    await delivered(w, late.message.id);
    await refused(w.s, 'email.undoSend', { messageId: late.message.id }, 'CONFLICT', {
      key: w.owner.key,
      message: /^message eml_\w+ cannot be recalled: It already left its undo window \(the relay accepted it\): it cannot be recalled\.$/,
    });

    const agentSend = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: [w.opsAddress], subject: 'Inside', undoSeconds: 60 }, w.agent.key);
    expect(agentSend.status).toBe('scheduled');
    const hold = await ok(w.s, 'email.holdReplies', { threadId: agentSend.message.threadId, hold: true }, w.owner.key);
    expect(hold.pulledBack).toEqual([agentSend.message.id]);
    expect((await messageAs(w, agentSend.message.id, w.owner)).state).toBe('held');
    await refused(w.s, 'email.holdReplies', { threadId: agentSend.message.threadId, hold: false }, 'FORBIDDEN_SCOPE', {
      key: w.agent.key,
      message: /^missing role owner or reviewer or member in this mailbox \(yours is agent\)/,
    });
  });

  it('3: returned, revised (a stale version is CONFLICT), amended to drop the cc: only the amended version is delivered', async () => {
    const draft = (
      await ok(
        w.s,
        'email.draftSave',
        { mailboxId: w.mailboxId, to: ['ann@client.example'], cc: ['leak@client.example'], subject: 'Proposal', text: 'v1' },
        w.agent.key,
      )
    ).draft;
    const first = await ok(w.s, 'email.draftSend', { draftId: draft.id }, w.agent.key);
    await ok(w.s, 'email.return', { approvalId: first.review.approvalId, note: 'Say v2, and no cc.' }, w.mia.key);
    const returned = (await ok(w.s, 'email.drafts', { mine: true }, w.agent.key)).drafts.find((d: any) => d.id === draft.id);
    expect(returned).toMatchObject({ state: 'draft', note: 'Say v2, and no cc.' });
    const saved = await ok(w.s, 'email.draftSave', { draftId: draft.id, text: 'v2', expectedVersion: returned.version }, w.agent.key);
    await refused(w.s, 'email.draftSave', { draftId: draft.id, text: 'v2 from a stale read', expectedVersion: returned.version }, 'CONFLICT', {
      key: w.agent.key,
      message: new RegExp(`^draft ${draft.id} is at version ${saved.draft.version}, not ${returned.version}`),
    });
    const second = await ok(w.s, 'email.draftSend', { draftId: draft.id }, w.agent.key);
    const amended = await ok(w.s, 'email.amend', { approvalId: second.review.approvalId, changes: { cc: [] } }, w.mia.key);
    expect(amended.review.amended).toEqual(['cc']);
    await delivered(w, draft.id);
    const mails = atSink(draft.rfcMessageId);
    expect(mails).toHaveLength(1);
    expect(mails[0].to).toEqual(['ann@client.example']);
    const parsed = await simpleParser(mails[0].raw);
    expect(parsed.cc).toBeUndefined();
    expect(parsed.text?.trim()).toBe('v2');
  });
});

describe('scenario 6: no relay', () => {
  let x: SendWorld;
  beforeAll(async () => {
    x = await sendWorld();
  });
  afterAll(() => x.close());

  it('mail inside the org is delivered; outside it is outboxed, reported as not delivered, never as sent', async () => {
    const before = Number((await x.s.client.get('snapshot')).body.head.seq);
    const r = await ok(x.s, 'email.send', { mailboxId: x.mailboxId, to: ['ann@client.example', x.opsAddress], subject: 'Both ways', text: 'Hi' }, x.owner.key);
    expect(await delivered(x, r.message.id)).toMatchObject({ delivery: 'outboxed', last_error: 'not delivered: no relay configured (SMTP_URL)' });
    const files = await outboxed(x);
    expect(files.map((f) => f.subject)).toEqual(['Both ways']);
    const { threads } = await ok(x.s, 'email.threads', { mailboxId: x.opsId }, x.owner.key);
    expect(threads.map((t: any) => t.subject)).toContain('Both ways');
    const again = await ok(x.s, 'email.draftSend', { draftId: r.message.id }, x.owner.key);
    expect(again.submission).toMatchObject({ delivery: 'outboxed', error: 'not delivered: no relay configured (SMTP_URL)' });
    expect(again.note).toContain('not delivered: no relay configured');
    expect(again.note).not.toMatch(/relay accepted|delivered to/);
    const events = (await eventsSince(x, before)).filter((e) => e.kind === 'email.submission.deliver');
    expect(events.map((e) => e.payload.delivery)).toEqual(['outboxed']);
    expect(events[0].payload).toMatchObject({ internal: 1, external: 1, accepted: 0 });
    const box = (await ok(x.s, 'email.mailboxes', {}, x.owner.key)).mailboxes.find((m: any) => m.id === x.mailboxId);
    expect(box.delivery).toBe('outbox');

    // Only inside: delivered, nothing outboxed.
    const inside = await ok(x.s, 'email.send', { mailboxId: x.mailboxId, to: [x.opsAddress], subject: 'Inside only' }, x.owner.key);
    expect(await delivered(x, inside.message.id)).toMatchObject({ delivery: 'internal', last_error: null });
    await until('nothing more in the outbox', async () => ((await outboxed(x)).length === 1 ? true : undefined), 2000);
  });
});
