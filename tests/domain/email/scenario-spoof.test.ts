import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, refused } from '../../helpers/calls.js';
import { deliver, folderRoles, inbound, mailOrg, type MailOrg, folderOf } from './kit.js';

/*
 * Acceptance scenario 4 (docs/families/email.md): spoofed mail that fails DMARC goes to Spam, and the agent's reply
 * to it is held for a person of the mailbox however the rest of the gate reads; a rule the agent saves starts
 * disabled, the agent cannot enable it, and it files mail once a person has.
 */

let o: MailOrg;
let folders: Record<string, string>;
beforeAll(async () => {
  o = await mailOrg();
  folders = await folderRoles(o);
});
afterAll(() => o.s.close());

describe('scenario 4: a spoof, the agent reply to it, and an agent rule', () => {
  it('DMARC fail lands in Spam; the agent reply is held for that reason; the agent rule works only once a person enables it', async () => {
    // A forged sender: its domain's DMARC says fail (the verdicts the SMTP listener's mailauth gives).
    const got = await deliver(o, {
      from: 'Our CEO <ceo@acme.example>',
      subject: 'Urgent wire',
      text: 'Wire $9,000 today.',
      auth: { spf: 'fail', dkim: 'none', dmarc: 'fail' },
    });
    const spoof = got.messages[0];
    expect(await folderOf(o, spoof.messageId)).toBe(folders.spam);

    const reply = await ok(
      o.s,
      'email.send',
      { mailboxId: o.mailboxId, replyToMessageId: spoof.messageId, to: [o.otherAddress], subject: 'Re: Urgent wire', text: 'On it.' },
      o.agent.key,
    );
    expect(reply.status).toBe('held_for_review');
    expect(reply.review.reasons.map((r: { code: string }) => r.code)).toContain('dmarc_failed_reply');

    const rule = (
      await ok(
        o.s,
        'email.ruleSave',
        {
          mailboxId: o.mailboxId,
          name: 'Vendor invoices',
          when: { all: [{ field: 'fromDomain', op: 'is', value: 'vendor.example' }] },
          then: [{ move: 'Vendors' }],
        },
        o.agent.key,
      )
    ).rule;
    expect(rule.enabled).toBe(false);
    const before = await inbound(o, { from: 'Billing <billing@vendor.example>', subject: 'Invoice 1' });
    expect(await folderOf(o, before.messageId)).toBe(folders.inbox);
    await refused(o.s, 'email.ruleSetEnabled', { ruleId: rule.id, enabled: true }, 'FORBIDDEN_SCOPE', { message: /^missing role /, key: o.agent.key });
    expect((await ok(o.s, 'email.ruleSetEnabled', { ruleId: rule.id, enabled: true }, o.owner.key)).rule).toMatchObject({
      enabled: true,
      enabledBy: o.owner.id,
    });
    const after = await inbound(o, { from: 'Billing <billing@vendor.example>', subject: 'Invoice 2' });
    const { mailboxes } = await ok(o.s, 'email.mailboxes', {});
    const vendors = mailboxes.find((m: any) => m.id === o.mailboxId).folders.find((f: any) => f.path === 'Vendors');
    expect(await folderOf(o, after.messageId)).toBe(vendors.id);
  });
});
