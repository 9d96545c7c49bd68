import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, ok, refused } from '../../helpers/calls.js';
import { arrive, messageAs, sendWorld, submissionOf, type SendWorld } from './send-kit.js';

/*
 * email.send, draftSend and redirect (M): a message is made or taken and submitted; a human's is scheduled (a
 * submission and its delivery job), an agent's the gate holds waits for a human (held_for_review, "not sent", a
 * review with reasons). Bad input changes nothing. No worker runs here: what was scheduled stays scheduled
 * (delivery is tests/domain/email/deliver.test.ts).
 */

let w: SendWorld;
beforeAll(async () => {
  w = await sendWorld({ workers: false });
});
afterAll(() => w.close());

const send = (params: Record<string, unknown>, by = w.owner) =>
  ok(w.s, 'email.send', { mailboxId: w.mailboxId, subject: `Quote ${Math.random()}`, text: 'Hi Ann, the quote.', ...params }, by.key);

describe('email.send', () => {
  it("a human's mail is scheduled: a submission in its undo window, one event of ids and counts", async () => {
    const { result, event } = await mutate(
      w.s,
      'email.send',
      { mailboxId: w.mailboxId, to: ['Ann Lee <ann@client.example>'], cc: ['bob@client.example'], subject: 'Quote', text: 'Hi Ann', undoSeconds: 30 },
      'email.message.send',
      { key: w.owner.key, entityId: (r) => r.message.id },
    );
    expect(result).toMatchObject({ status: 'scheduled', review: null, changed: true, submission: { undoStatus: 'pending', delivery: null, error: null } });
    expect(result.message).toMatchObject({ state: 'scheduled', authorId: w.owner.id, subject: 'Quote' });
    const at = Date.parse(result.submission.sendAt) - Date.parse(result.message.createdAt);
    expect(at).toBeGreaterThanOrEqual(29_000);
    expect(at).toBeLessThanOrEqual(31_000);
    expect(result.note).toMatch(/^Scheduled: it leaves at .*; until then undoSend eml_\w+ takes it back to a draft\.$/);
    expect(event.payload).toEqual({
      mailboxId: w.mailboxId,
      threadId: result.message.threadId,
      messageId: result.message.id,
      submissionId: result.submission.id,
      sendAt: result.submission.sendAt,
      recipients: 2,
      external: 2,
      files: 0,
      isReply: false,
    });
  });

  it("an agent's mail to someone outside is held, not sent: a review with the reason, the message uneditable", async () => {
    const { result, event } = await mutate(
      w.s,
      'email.send',
      { mailboxId: w.mailboxId, to: ['ann@client.example'], subject: 'Offer', text: 'Our offer' },
      'email.message.hold',
      { key: w.agent.key, entityId: (r) => r.message.id },
    );
    expect(result.status).toBe('held_for_review');
    expect(result.submission).toBeNull();
    expect(result.message.state).toBe('held');
    expect(result.review.reasons).toEqual([{ code: 'external_recipient', text: '1 recipient is outside the org (policy review_external)' }]);
    expect(result.review.deciders.sort()).toEqual([w.mia.id, w.owner.id].sort());
    expect(result.note).toMatch(/^Held, not sent: a human of the mailbox reviews it first \(approval apr_\w+/);
    expect(result.note).toContain('Do not send it again');
    expect(event.payload).toEqual({
      mailboxId: w.mailboxId,
      threadId: result.message.threadId,
      messageId: result.message.id,
      approvalId: result.review.approvalId,
      reasons: ['external_recipient'],
      payloadHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      recipients: 1,
      external: 1,
      files: 0,
      isReply: false,
    });
    // Held mail is not edited or discarded: undoSend withdraws it first.
    await refused(w.s, 'email.draftSave', { draftId: result.message.id, text: 'changed' }, 'CONFLICT', {
      key: w.agent.key,
      message: /is held for review and cannot be edited while a human decides it: undoSend withdraws it/,
    });
    await refused(w.s, 'email.draftDiscard', { draftId: result.message.id }, 'CONFLICT', { key: w.agent.key, message: /withdraw it with undoSend first/ });
    expect(await submissionOf(w, result.message.id)).toBeUndefined();
    // The approval behind it: release mode, decided by the mailbox's owners and reviewers, the content behind its hash.
    const approval = await ok(w.s, 'approval.get', { approvalId: result.review.approvalId });
    expect(approval).toMatchObject({
      status: 'pending',
      actionClass: 'email.send',
      completion: 'release',
      subject: { kind: 'email.outbound', subjectId: result.message.id },
      heldAct: { method: 'email.send', params: { to: [{ address: 'ann@client.example', name: '' }], subject: 'Offer', text: 'Our offer' } },
      amendable: ['to', 'cc', 'bcc', 'subject', 'text', 'html'],
      payloadHash: event.payload.payloadHash,
    });
    expect(approval.subject.summary).toMatch(/^Agent Smith \(agt_\w+\) sends "Offer" from sales@.* to ann@client.example: held because 1 recipient is outside/);
  });

  it("an agent's mail inside the org (another mailbox of the org) is not held", async () => {
    const r = await send({ to: [w.opsAddress] }, w.agent);
    expect(r).toMatchObject({ status: 'scheduled', review: null });
  });

  it('the gate: more than 20 recipients, a reply to DMARC-failed mail, review_all, attachments going out', async () => {
    const many = Array.from({ length: 21 }, (_, i) => `person${i}@${w.domain}`);
    expect((await send({ to: many }, w.agent)).review.reasons.map((r: any) => r.code)).toEqual(['many_recipients']);
    const spoof = await arrive(w, { from: 'ceo@client.example', dmarc: 'fail' });
    const reply = await ok(w.s, 'email.send', { replyToMessageId: spoof.messageId, to: [w.opsAddress], text: 'Done' }, w.agent.key);
    expect(reply.review.reasons.map((r: any) => r.code)).toEqual(['dmarc_failed_reply']);
    const file = (await ok(w.s, 'files.uploadRegister', { name: 'quote.txt', contentBase64: Buffer.from('quote body').toString('base64') })).file;
    const files = await ok(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['ann@client.example'], subject: 'With a file', fileIds: [file.id] }, w.owner.key);
    expect(files.status).toBe('scheduled');
    expect(files.message.attachments).toEqual([expect.objectContaining({ filename: 'quote.txt', sha256: file.sha256, size: 10 })]);
    // The agent's attachment going out: two reasons.
    const agentFiles = await send({ to: ['ann@client.example'], fileIds: [file.id] }, w.agent);
    expect(agentFiles.review.reasons.map((r: any) => r.code)).toEqual(['external_recipient', 'attachments']);
    // review_all: every agent message, even inside the org.
    await w.s.runtime.db.query(`UPDATE email_mailboxes SET policy = 'review_all' WHERE org_id = $1 AND mailbox_id = $2`, [w.s.org.orgId, w.mailboxId]);
    try {
      expect((await send({ to: [w.opsAddress] }, w.agent)).review.reasons.map((r: any) => r.code)).toEqual(['review_all']);
    } finally {
      await w.s.runtime.db.query(`UPDATE email_mailboxes SET policy = 'review_external' WHERE org_id = $1 AND mailbox_id = $2`, [w.s.org.orgId, w.mailboxId]);
    }
    // A doc is not an upload: only uploads are attached.
    const doc = (await ok(w.s, 'files.create', { kind: 'doc', name: 'Notes' })).file;
    await refused(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['ann@client.example'], fileIds: [doc.id] }, 'BAD_REQUEST', {
      message: /^fileIds\.0: fil_\w+ is a doc: only uploaded files are attached to mail/,
    });
  });

  it('humans are never held, whatever the policy or the recipients', async () => {
    const many = Array.from({ length: 30 }, (_, i) => `p${i}@client.example`);
    expect((await send({ to: many }, w.mia)).status).toBe('scheduled');
    expect((await send({ to: ['x@client.example'] }, w.max)).status).toBe('scheduled');
  });

  it('bad input changes nothing: an address, too many recipients, no recipient, a time in the past', async () => {
    await refused(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['not-an-address'] }, 'BAD_REQUEST', { message: 'to.0: must be an email address' });
    const hundred = Array.from({ length: 100 }, (_, i) => `p${i}@client.example`);
    await refused(w.s, 'email.send', { mailboxId: w.mailboxId, to: [...hundred, 'one-more@client.example'] }, 'BAD_REQUEST', {
      message: 'to: must list at most 100 recipients',
    });
    await refused(w.s, 'email.send', { mailboxId: w.mailboxId, to: hundred, cc: ['one-more@client.example'] }, 'BAD_REQUEST', {
      message: 'to: at most 100 recipients in to, cc and bcc together',
    });
    await refused(w.s, 'email.send', { mailboxId: w.mailboxId, subject: 'Nobody' }, 'BAD_REQUEST', {
      message: 'to: names no recipient: give to, cc or bcc',
    });
    await refused(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['a@client.example'], sendAt: '2020-01-01T00:00:00Z' }, 'BAD_REQUEST', {
      message: /^sendAt: must not be in the past/,
    });
    await refused(w.s, 'email.send', { mailboxId: w.mailboxId, to: ['a@client.example'], body: 'x' }, 'BAD_REQUEST', { message: /body/ });
    // Another mailbox, or one the caller is not in: NOT_FOUND.
    await refused(w.s, 'email.send', { mailboxId: w.opsId, to: ['a@client.example'] }, 'NOT_FOUND', { key: w.agent.key });
  });

  it('the same content to the same recipients within 10 minutes is CONFLICT, unless allowDuplicate', async () => {
    const params = { mailboxId: w.mailboxId, to: ['dup@client.example'], subject: 'Twice', text: 'Same words' };
    const first = await ok(w.s, 'email.send', params, w.owner.key);
    const message = await refused(w.s, 'email.send', params, 'CONFLICT', { key: w.owner.key });
    expect(message).toMatch(
      new RegExp(
        `^the same message went to the same recipients at \\S+ \\(${first.message.id}, sent or scheduled\\): nothing was sent again; pass allowDuplicate: true to send it anyway$`,
      ),
    );
    expect((await ok(w.s, 'email.send', { ...params, allowDuplicate: true }, w.owner.key)).status).toBe('scheduled');
    // Held mail counts too: an agent sending again what waits for review.
    const agentParams = { ...params, to: ['dup2@client.example'] };
    await ok(w.s, 'email.send', agentParams, w.agent.key);
    await refused(w.s, 'email.send', agentParams, 'CONFLICT', { key: w.agent.key, message: /\(eml_\w+, held for review\): nothing was sent again/ });
  });
});

describe('email.draftSend', () => {
  it('sends a draft; again (scheduled, held) is a no-op with its one event', async () => {
    const draft = (await ok(w.s, 'email.draftSave', { mailboxId: w.mailboxId, to: ['ann@client.example'], subject: 'Draft', text: 'x' }, w.max.key)).draft;
    const { result } = await mutate(w.s, 'email.draftSend', { draftId: draft.id }, 'email.message.send', { key: w.max.key });
    expect(result).toMatchObject({ status: 'scheduled', changed: true, message: { id: draft.id, state: 'scheduled' } });
    const again = await mutate(w.s, 'email.draftSend', { draftId: draft.id }, 'email.message.send', { key: w.max.key });
    expect(again.result).toMatchObject({ status: 'scheduled', changed: false, submission: { id: result.submission.id } });
    expect(again.result.note).toMatch(/^Already scheduled: nothing was sent again\./);
    expect(again.event.payload).toMatchObject({ messageId: draft.id, noop: true });

    const agentDraft = (await ok(w.s, 'email.draftSave', { mailboxId: w.mailboxId, to: ['ann@client.example'], subject: 'Agent draft' }, w.agent.key)).draft;
    const held = await mutate(w.s, 'email.draftSend', { draftId: agentDraft.id }, 'email.message.hold', { key: w.agent.key });
    expect(held.result.status).toBe('held_for_review');
    const heldAgain = await mutate(w.s, 'email.draftSend', { draftId: agentDraft.id }, 'email.message.hold', { key: w.agent.key });
    expect(heldAgain.result).toMatchObject({ status: 'held_for_review', changed: false, review: { approvalId: held.result.review.approvalId } });
  });

  it("an agent sends only its own drafts; received mail is no draft; another mailbox's draft is NOT_FOUND", async () => {
    const humans = (await ok(w.s, 'email.draftSave', { mailboxId: w.mailboxId, to: [w.opsAddress], subject: 'Mine' }, w.max.key)).draft;
    await refused(w.s, 'email.draftSend', { draftId: humans.id }, 'FORBIDDEN_SCOPE', {
      key: w.agent.key,
      message: "missing role owner or reviewer or member in this mailbox (yours is agent), needed to send another member's draft",
    });
    const got = await arrive(w);
    await refused(w.s, 'email.draftSend', { draftId: got.messageId }, 'CONFLICT', { message: /is received, not a draft/ });
    await refused(w.s, 'email.draftSend', { draftId: humans.id }, 'NOT_FOUND', { key: w.stranger.key });
  });
});

describe('email.redirect', () => {
  it('a human redirects mail on unchanged: a row of its own, scheduled; its original untouched', async () => {
    const got = await arrive(w, { subject: 'Invoice 42', text: 'Please pay.' });
    const { result, event } = await mutate(w.s, 'email.redirect', { messageId: got.messageId, to: ['accounts@client.example'] }, 'email.message.redirect', {
      key: w.owner.key,
      entityId: (r) => r.message.id,
    });
    expect(result.status).toBe('scheduled');
    expect(result.message).toMatchObject({ threadId: got.threadId, state: 'scheduled', subject: 'Invoice 42', from: { address: 'ann@client.example' } });
    expect(result.message.text.trim()).toBe('Please pay.');
    expect(result.message.id).not.toBe(got.messageId);
    expect((await messageAs(w, got.messageId, w.owner)).state).toBe('received');
    expect(event.payload).toMatchObject({ redirectOf: got.messageId, status: 'scheduled', recipients: 1, external: 1, approvalId: null });
  });

  it("an agent's redirect outside is held (redirect_outside); inside the org it is not", async () => {
    const got = await arrive(w, { subject: 'Forward me' });
    const out = await ok(w.s, 'email.redirect', { messageId: got.messageId, to: ['someone@client.example'] }, w.agent.key);
    expect(out.status).toBe('held_for_review');
    expect(out.review.reasons.map((r: any) => r.code)).toEqual(['redirect_outside']);
    const approval = await ok(w.s, 'approval.get', { approvalId: out.review.approvalId });
    expect(approval).toMatchObject({
      actionClass: 'email.redirect',
      amendable: ['to'],
      heldAct: { method: 'email.redirect', params: { redirectOf: got.messageId } },
    });
    const inside = await ok(w.s, 'email.redirect', { messageId: got.messageId, to: [w.opsAddress] }, w.agent.key);
    expect(inside.status).toBe('scheduled');
  });

  it('only mail received or sent is redirected; a bad address changes nothing', async () => {
    const draft = (await ok(w.s, 'email.draftSave', { mailboxId: w.mailboxId, subject: 'd' }, w.owner.key)).draft;
    await refused(w.s, 'email.redirect', { messageId: draft.id, to: ['a@client.example'] }, 'BAD_REQUEST', {
      message: /^messageId: message eml_\w+ is draft: only mail received or sent is redirected$/,
    });
    const got = await arrive(w);
    await refused(w.s, 'email.redirect', { messageId: got.messageId, to: ['nope'] }, 'BAD_REQUEST', { message: 'to.0: must be an email address' });
  });
});

describe('the hourly cap', () => {
  it("past it, an agent's external mail waits for a human even under review_new_contacts", async () => {
    const c = await sendWorld({ workers: false, config: { hourlyExternalCap: 3 } });
    try {
      await c.s.runtime.db.query(`UPDATE email_mailboxes SET policy = 'review_new_contacts' WHERE org_id = $1 AND mailbox_id = $2`, [
        c.s.org.orgId,
        c.mailboxId,
      ]);
      await arrive(c, { from: 'known@client.example' });
      const go = (to: string) => ok(c.s, 'email.send', { mailboxId: c.mailboxId, to: [to], subject: `S ${Math.random()}` }, c.agent.key);
      // Known contacts go out; the fourth within the hour (the cap here is 3) waits.
      for (let i = 0; i < 3; i++) expect((await go('known@client.example')).status).toBe('scheduled');
      expect((await go('known@client.example')).review.reasons).toEqual([
        { code: 'hourly_cap', text: 'the agent already sent 3 external messages in the last hour (at most 3 without review)' },
      ]);
      // Someone the mailbox never heard from: a new contact.
      expect((await go('stranger@client.example')).review.reasons.map((r: any) => r.code)).toEqual(['new_contact', 'hourly_cap']);
      // Mail inside the org does not count and is not capped.
      expect((await go(c.opsAddress)).status).toBe('scheduled');
    } finally {
      await c.close();
    }
  });
});
