import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, ok, refused, rpc } from '../../helpers/calls.js';
import { onPostgres } from '../../helpers/harness.js';
import { messageAs, sendWorld, submissionOf, type SendWorld } from './send-kit.js';

/*
 * Review of agent mail: email.approvals (R) and the human acts approve, amend, approveAll and return (M), and the
 * same decisions taken in the approval inbox (approval.resolve, the /approvals page). Only an owner or reviewer of
 * the mailbox decides; an agent never. No worker runs: a release leaves the message scheduled with its submission.
 */

const ORIGIN = 'http://localhost:8080';
let w: SendWorld;
beforeAll(async () => {
  w = await sendWorld({ workers: false });
});
afterAll(() => w.close());

/** An agent's message held for review: its result. */
const held = async (params: Record<string, unknown> = {}) => {
  const r = await ok(
    w.s,
    'email.send',
    {
      mailboxId: w.mailboxId,
      to: ['ann@client.example'],
      cc: ['boss@client.example'],
      subject: `Offer ${Math.random()}`,
      text: 'Our offer: 10% off.',
      ...params,
    },
    w.agent.key,
  );
  expect(r.status).toBe('held_for_review');
  return r;
};

describe('email.approvals', () => {
  it('humans of the mailbox see its reviews with reasons, recipients, subject, snippet, expiry; an agent sees only its own', async () => {
    const mine = await held({ text: 'Hello Ann,\n\nthe offer stands.\n\nOn Mon, Ann wrote:\n> old text' });
    const { reviews } = await ok(w.s, 'email.approvals', { mailboxId: w.mailboxId }, w.mia.key);
    const review = reviews.find((r: any) => r.approvalId === mine.review.approvalId);
    expect(review).toMatchObject({
      status: 'pending',
      kind: 'send',
      messageId: mine.message.id,
      requestedBy: w.agent.id,
      reasons: [{ code: 'external_recipient', text: '2 recipients are outside the org (policy review_external)' }],
      from: { address: w.address, name: 'Acme Sales' },
      to: [{ address: 'ann@client.example', name: '' }],
      cc: [{ address: 'boss@client.example', name: '' }],
      snippet: 'Hello Ann, the offer stands.',
      releasedHash: null,
      mayDecide: true,
    });
    expect(Date.parse(review.expiresAt) - Date.parse(review.requestedAt)).toBeGreaterThan(6.9 * 86_400_000);
    // The member reads it but may not decide; the agent sees its own; the other agent (not in the mailbox) nothing.
    expect((await ok(w.s, 'email.approvals', {}, w.max.key)).reviews.find((r: any) => r.approvalId === mine.review.approvalId).mayDecide).toBe(false);
    expect((await ok(w.s, 'email.approvals', {}, w.agent.key)).reviews.every((r: any) => r.requestedBy === w.agent.id)).toBe(true);
    expect((await ok(w.s, 'email.approvals', { status: 'all' }, w.stranger.key)).reviews).toEqual([]);
    await refused(w.s, 'email.approvals', { mailboxId: w.mailboxId }, 'NOT_FOUND', { key: w.stranger.key });
  });
});

describe('email.approve', () => {
  it('starts the undo window: scheduled with a submission naming the review; approving again is changed:false', async () => {
    const h = await held();
    const { result, event } = await mutate(w.s, 'email.approve', { approvalId: h.review.approvalId, note: 'ok to go' }, 'email.review.approve', {
      key: w.mia.key,
      entityId: () => h.review.approvalId,
    });
    expect(result).toMatchObject({ changed: true, message: { state: 'scheduled' }, review: { status: 'approved', decidedBy: w.mia.id, note: 'ok to go' } });
    expect(result.submission).toMatchObject({ undoStatus: 'pending', delivery: null });
    expect(event.payload).toEqual({
      mailboxId: w.mailboxId,
      threadId: h.message.threadId,
      messageId: h.message.id,
      approvalId: h.review.approvalId,
      submissionId: result.submission.id,
      sendAt: result.submission.sendAt,
      payloadHash: h.review ? expect.stringMatching(/^[0-9a-f]{64}$/) : null,
      noteSha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(await ok(w.s, 'approval.get', { approvalId: h.review.approvalId })).toMatchObject({ status: 'approved', used: true, decidedBy: w.mia.id });
    const again = await mutate(w.s, 'email.approve', { approvalId: h.review.approvalId }, 'email.review.approve', { key: w.owner.key });
    expect(again.result).toMatchObject({ changed: false, review: { status: 'approved', decidedBy: w.mia.id } });
    expect(again.event.payload.noop).toBe(true);
  });

  it('an agent, a member or another mailbox cannot decide; returned or expired is CONFLICT', async () => {
    const h = await held();
    await refused(w.s, 'email.approve', { approvalId: h.review.approvalId }, 'FORBIDDEN_SCOPE', {
      key: w.agent.key,
      message: 'missing role owner or reviewer in this mailbox (yours is agent), needed to approve mail',
    });
    await refused(w.s, 'email.approve', { approvalId: h.review.approvalId }, 'FORBIDDEN_SCOPE', {
      key: w.max.key,
      message: 'missing role owner or reviewer in this mailbox (yours is member), needed to approve mail',
    });
    await refused(w.s, 'email.approve', { approvalId: h.review.approvalId }, 'NOT_FOUND', { key: w.stranger.key });
    await refused(w.s, 'email.approve', { approvalId: 'apr_doesnotexist00' }, 'NOT_FOUND', { key: w.mia.key });
    await ok(w.s, 'email.return', { approvalId: h.review.approvalId, note: 'no' }, w.mia.key);
    await refused(w.s, 'email.approve', { approvalId: h.review.approvalId }, 'CONFLICT', {
      key: w.mia.key,
      message: `review ${h.review.approvalId} is returned to its author: it cannot be approved now`,
    });
  });

  it('approving after expiry is CONFLICT; the approval reads expired', async () => {
    const x = await sendWorld({ workers: false, config: { reviewTtlMs: 300 } });
    try {
      const h = await ok(x.s, 'email.send', { mailboxId: x.mailboxId, to: ['ann@client.example'], subject: 'Late' }, x.agent.key);
      await new Promise((r) => setTimeout(r, 600));
      await refused(x.s, 'email.approve', { approvalId: h.review.approvalId }, 'CONFLICT', {
        key: x.mia.key,
        message: /^review apr_\w+ expired at .*: its message went back/,
      });
      expect((await ok(x.s, 'approval.get', { approvalId: h.review.approvalId })).status).toBe('expired');
      expect((await ok(x.s, 'email.approvals', { status: 'expired' }, x.mia.key)).reviews.map((r: any) => r.approvalId)).toEqual([h.review.approvalId]);
    } finally {
      await x.close();
    }
  });
});

describe('email.amend and email.return', () => {
  it('amend releases the edited message: both hashes in the event, the review says what changed', async () => {
    const h = await held();
    const { result, event } = await mutate(
      w.s,
      'email.amend',
      { approvalId: h.review.approvalId, changes: { cc: [], text: 'Our offer.' } },
      'email.review.amend',
      {
        key: w.owner.key,
      },
    );
    expect(result.message).toMatchObject({ state: 'scheduled', cc: [], text: 'Our offer.', version: 2 });
    expect(result.review).toMatchObject({ status: 'approved', amended: ['cc', 'text'] });
    expect(event.payload).toMatchObject({ amended: ['cc', 'text'], payloadHash: result.review.payloadHash, releasedHash: result.review.releasedHash });
    expect(event.payload.releasedHash).not.toBe(event.payload.payloadHash);
    const approval = await ok(w.s, 'approval.get', { approvalId: h.review.approvalId });
    expect(approval.released).toMatchObject({ payloadHash: result.review.releasedHash, amended: ['cc', 'text'], params: { cc: [], text: 'Our offer.' } });
    await refused(w.s, 'email.amend', { approvalId: h.review.approvalId, changes: { subject: 'x' } }, 'CONFLICT', {
      key: w.owner.key,
      message: /is approved already/,
    });
  });

  it('amend: bad changes change nothing', async () => {
    const h = await held();
    await refused(w.s, 'email.amend', { approvalId: h.review.approvalId, changes: { to: ['nope'] } }, 'BAD_REQUEST', {
      key: w.mia.key,
      message: 'changes.to.0: must be an email address',
    });
    await refused(w.s, 'email.amend', { approvalId: h.review.approvalId, changes: { to: [], cc: [] } }, 'BAD_REQUEST', {
      key: w.mia.key,
      message: 'changes.to: the message would name no recipient',
    });
    await refused(w.s, 'email.amend', { approvalId: h.review.approvalId, changes: {} }, 'BAD_REQUEST', { key: w.mia.key, message: /must change at least one/ });
    expect((await messageAs(w, h.message.id, w.mia)).state).toBe('held');
  });

  it('return: back to the agent as a draft carrying the note; returning again is changed:false', async () => {
    const h = await held();
    const { result, event } = await mutate(w.s, 'email.return', { approvalId: h.review.approvalId, note: 'Drop the discount.' }, 'email.review.return', {
      key: w.mia.key,
    });
    expect(result).toMatchObject({ changed: true, message: { state: 'draft' }, review: { status: 'returned', note: 'Drop the discount.' } });
    expect(event.payload).toMatchObject({ state: 'draft', noteSha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(event.payload)).not.toContain('discount');
    const { drafts } = await ok(w.s, 'email.drafts', { mine: true }, w.agent.key);
    expect(drafts.find((d: any) => d.id === h.message.id).note).toBe('Drop the discount.');
    expect(await ok(w.s, 'approval.get', { approvalId: h.review.approvalId })).toMatchObject({ status: 'rejected', note: 'Drop the discount.' });
    expect((await ok(w.s, 'email.return', { approvalId: h.review.approvalId, note: 'again' }, w.owner.key)).changed).toBe(false);
    // Revised and sent again: a new review; the draft no longer carries the old note once it is sent.
    await ok(w.s, 'email.draftSave', { draftId: h.message.id, text: 'Our offer.' }, w.agent.key);
    const again = await ok(w.s, 'email.draftSend', { draftId: h.message.id }, w.agent.key);
    expect(again.review.approvalId).not.toBe(h.review.approvalId);
  });
});

describe('email.approveAll', () => {
  it('all or nothing: one not pending is CONFLICT naming it and nothing is approved; then all go', async () => {
    const a = await held();
    const b = await held();
    const c = await held();
    await ok(w.s, 'email.return', { approvalId: b.review.approvalId, note: 'no' }, w.mia.key);
    const message = await refused(w.s, 'email.approveAll', { approvalIds: [a.review.approvalId, b.review.approvalId, c.review.approvalId] }, 'CONFLICT', {
      key: w.mia.key,
    });
    expect(message).toBe(
      `review ${b.review.approvalId} is returned to its author: it cannot be approved now. approveAll is all or nothing: none of the 3 reviews was approved`,
    );
    expect((await messageAs(w, a.message.id, w.mia)).state).toBe('held');
    const { result, event } = await mutate(w.s, 'email.approveAll', { approvalIds: [a.review.approvalId, c.review.approvalId] }, 'email.review.approve_all', {
      key: w.mia.key,
    });
    expect(result.reviews.map((r: any) => r.status)).toEqual(['approved', 'approved']);
    expect(result.submissions).toHaveLength(2);
    expect(event.payload).toMatchObject({ mailboxIds: [w.mailboxId], count: 2, approvalIds: [a.review.approvalId, c.review.approvalId] });
    await refused(w.s, 'email.approveAll', { approvalIds: Array.from({ length: 51 }, (_, i) => `apr_x${i}`) }, 'BAD_REQUEST', {
      key: w.mia.key,
      message: 'approvalIds: must list at most 50 reviews',
    });
    await refused(w.s, 'email.approveAll', { approvalIds: [a.review.approvalId] }, 'FORBIDDEN_SCOPE', {
      key: w.agent.key,
      message: /^missing role owner or reviewer/,
    });
  });

  it(`two reviewers approving at once: one releases it, the other is changed:false (${onPostgres ? 'PostgreSQL, concurrent' : 'PGlite, serialised'})`, async () => {
    for (let round = 0; round < 3; round++) {
      const h = await held();
      const other = await held();
      const [x, y, z] = await Promise.all([
        rpc(w.s, 'email.approve', { approvalId: h.review.approvalId }, w.mia.key),
        rpc(w.s, 'email.approve', { approvalId: h.review.approvalId }, w.owner.key),
        rpc(w.s, 'email.approveAll', { approvalIds: [other.review.approvalId, h.review.approvalId] }, w.owner.key),
      ]);
      expect([x.body.ok, y.body.ok]).toEqual([true, true]);
      const changed = [x.body.result.changed, y.body.result.changed].filter(Boolean).length + (z.body.ok ? 1 : 0);
      // Exactly one decision released it: one approve, or approveAll (which then also approved the other).
      expect(changed, JSON.stringify([x.body, y.body, z.body]).slice(0, 500)).toBe(1);
      if (!z.body.ok) expect(z.body.error.code).toBe('CONFLICT');
      const subs = await w.s.runtime.db.query('SELECT 1 FROM email_submissions WHERE org_id = $1 AND message_id = $2', [w.s.org.orgId, h.message.id]);
      expect(subs).toHaveLength(1);
    }
  });
});

describe('in the approval inbox', () => {
  it('approval.resolve approves, amends or rejects (returns) an email review in its own transaction', async () => {
    const a = await held();
    const approved = await ok(w.s, 'approval.resolve', { approvalId: a.review.approvalId, decision: 'approve', amendments: { cc: null } });
    expect(approved).toMatchObject({ status: 'approved', released: { amended: ['cc'] } });
    expect(await messageAs(w, a.message.id, w.owner)).toMatchObject({ state: 'scheduled', cc: [] });
    expect(await submissionOf(w, a.message.id)).toMatchObject({ undo_status: 'pending' });
    const b = await held();
    expect(await ok(w.s, 'approval.resolve', { approvalId: b.review.approvalId, decision: 'reject', note: 'Not now.' })).toMatchObject({ status: 'rejected' });
    expect((await ok(w.s, 'email.drafts', { mine: true }, w.agent.key)).drafts.find((d: any) => d.id === b.message.id).note).toBe('Not now.');
    const c = await held();
    const bad = await rpc(w.s, 'approval.resolve', { approvalId: c.review.approvalId, decision: 'approve', amendments: { from: 'x@y.example' } });
    expect(bad.body.error).toEqual({ code: 'BAD_REQUEST', message: expect.stringMatching(/^amendments: /) });
    // Deciders are the mailbox's owners and reviewers: another approver of the org is told who decides.
    const dana = await w.s.client.mint({ tier: 'approver' }, 'Dana Approver');
    const other = await rpc(w.s, 'approval.resolve', { approvalId: c.review.approvalId, decision: 'approve' }, dana.apiKey);
    expect(other.body.error).toEqual({ code: 'CONFLICT', message: expect.stringMatching(/may be decided only by .*Mia Reviewer/) });
    expect((await messageAs(w, c.message.id, w.owner)).state).toBe('held');
  });

  it('the /approvals page lists held mail in plain words, the content behind its hash, and decides it', async () => {
    const h = await held({ subject: 'Renewal', text: 'Dear Ann, renewal attached.' });
    const signIn = await w.s.app.inject({
      method: 'POST',
      url: '/approvals/api/session',
      headers: { 'content-type': 'application/json', origin: ORIGIN },
      payload: { apiKey: w.owner.key },
    });
    expect(signIn.statusCode, signIn.body).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0];
    const csrf = signIn.json().result.csrfToken;
    const list = (await w.s.app.inject({ method: 'GET', url: '/approvals/api/approvals?view=pending', headers: { cookie } })).json().result.approvals;
    const item = list.find((i: any) => i.approvalId === h.review.approvalId);
    const facts = Object.fromEntries(item.plain.facts.map((f: any) => [f.label, f.value]));
    expect(item.plain.title).toBe("Send an agent's email");
    expect(facts).toMatchObject({
      From: `Acme Sales <${w.address}>`,
      To: 'ann@client.example',
      Cc: 'boss@client.example',
      Subject: 'Renewal',
      Text: 'Dear Ann, renewal attached.',
      'Held because': '2 recipients are outside the org (policy review_external)',
    });
    const detail = (await w.s.app.inject({ method: 'GET', url: `/approvals/api/approvals/${h.review.approvalId}`, headers: { cookie } })).json().result;
    expect(detail.hashMatches).toBe(true);
    const res = await w.s.app.inject({
      method: 'POST',
      url: `/approvals/api/approvals/${h.review.approvalId}/decision`,
      headers: { cookie, origin: ORIGIN, 'x-csrf-token': csrf, 'content-type': 'application/json' },
      payload: JSON.stringify({ decision: 'approve' }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect((await messageAs(w, h.message.id, w.owner)).state).toBe('scheduled');
  });
});
