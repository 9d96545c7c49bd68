import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMailbox, receiveMessage } from '../../../domain/email/index.js';
import { mutate, noop, ok, read, refused } from '../../helpers/calls.js';
import { person, type Person } from '../../helpers/people.js';
import { mime } from '../email/kit.js';
import { account, contact, crmOrg, deal, uniq, type CrmOrg } from './kit.js';

/*
 * linkEmail (a thread through email's face: mailbox members only; participants matched to contacts; the subject only
 * for email.read holders) and linkFiles (files through files' canReadFile: {linked, alreadyLinked}).
 */

let o: CrmOrg;
let mailbox: string;
/** crm scopes, no email.read: in the mailbox, so it may link, but never sees a subject. */
let crmOnly: Person;
beforeAll(async () => {
  o = await crmOrg('2026-07-01');
  crmOnly = await person(o.s, 'Crm Only', { scopes: ['org.read', 'crm.read', 'crm.write'], principalKind: 'human' });
  mailbox = `sales-${uniq()}@acme.example`;
  await o.s.runtime.db.tx((q) =>
    createMailbox(q, o.s.org.orgId, {
      address: mailbox,
      displayName: 'Sales',
      members: [
        { principalId: o.owner.id, role: 'owner' },
        { principalId: crmOnly.id, role: 'member' },
      ],
    }),
  );
});
afterAll(() => o.s.close());

/** A message from `from` to the mailbox: its thread id. */
async function thread(from: string, subject: string): Promise<string> {
  const raw = await mime({ from, to: mailbox, subject, messageId: `<${uniq()}@buyer.example>`, text: 'Hello.' });
  const got = await receiveMessage(o.s.runtime.deps, { orgId: o.s.org.orgId, raw, envelope: { from, to: [mailbox] } });
  return got.messages[0].threadId;
}

describe('crm.linkEmail', () => {
  it('one email interaction per thread, linked to the target and the contacts among its participants; subject for email.read only', async () => {
    const a = await account(o);
    const d = await deal(o, a.id);
    const c = await contact(o, { accountId: a.id });
    const threadId = await thread(c.email, 'Pricing question from the buyer');
    o.clock.set('2026-07-02');
    const { result, event } = await mutate(o.s, 'crm.linkEmail', { threadId, dealId: d.id }, 'crm.email.link', { entityId: (r) => r.interaction.id });
    expect(result).toMatchObject({ threadId, contactIds: [c.id], subject: 'Pricing question from the buyer', changed: true });
    expect(result.interaction).toMatchObject({ kind: 'email', direction: 'inbound' });
    expect(result.interaction.links).toEqual([
      { id: d.id, kind: 'deal' },
      { id: a.id, kind: 'account' },
      { id: c.id, kind: 'contact' },
    ]);
    expect(event.payload).toEqual({ interactionId: result.interaction.id, threadId, targetId: d.id, contactIds: [c.id], created: true });
    expect(JSON.stringify(event)).not.toContain('Pricing');
    await noop(o.s, 'crm.linkEmail', { threadId, dealId: d.id }, 'crm.email.link');
    // Another target: the same interaction, one more link.
    const other = await account(o);
    const again = await mutate(o.s, 'crm.linkEmail', { threadId, accountId: other.id }, 'crm.email.link', { key: crmOnly.key });
    expect(again.result).toMatchObject({ interaction: { id: result.interaction.id }, subject: null, changed: true });
    const mine = await read(o.s, 'crm.listInteractions', { contactId: c.id });
    expect(mine.interactions.map((x: { summary: string; threadId: string }) => [x.summary, x.threadId])).toEqual([
      ['Pricing question from the buyer', threadId],
    ]);
    const theirs = await read(o.s, 'crm.listInteractions', { dealId: d.id }, crmOnly.key);
    expect(theirs.interactions.map((x: { summary: string | null }) => x.summary)).toEqual([null]);
  });

  it('misuse: a thread outside your mailboxes, two targets, unknown ids, a viewer', async () => {
    const d = await deal(o, (await account(o)).id);
    const threadId = await thread(`ann.${uniq()}@buyer.example`, 'Hello');
    await refused(o.s, 'crm.linkEmail', { threadId, dealId: d.id }, 'NOT_FOUND', { key: o.max.key, message: `thread ${threadId} not found` });
    await refused(o.s, 'crm.linkEmail', { threadId: 'thr_nosuch', dealId: d.id }, 'NOT_FOUND');
    await refused(o.s, 'crm.linkEmail', { threadId, dealId: d.id, accountId: d.accountId }, 'BAD_REQUEST', { message: /^accountId: give exactly one/ });
    await refused(o.s, 'crm.linkEmail', { threadId }, 'BAD_REQUEST', { message: /^dealId: give exactly one/ });
    await refused(o.s, 'crm.linkEmail', { threadId, dealId: 'deal_nosuch' }, 'NOT_FOUND');
    await refused(o.s, 'crm.linkEmail', { threadId: 'eml_x', dealId: d.id }, 'BAD_REQUEST', { message: /^threadId: / });
    await mutate(o.s, 'crm.deleteDeal', { dealId: d.id }, 'crm.deal.delete');
    await refused(o.s, 'crm.linkEmail', { threadId, dealId: d.id }, 'CONFLICT');
    await refused(o.s, 'crm.linkEmail', { threadId, accountId: d.accountId }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.linkFiles', () => {
  it('links files you can read; those linked before come back in alreadyLinked', async () => {
    const d = await deal(o, (await account(o)).id);
    const f1 = (await ok(o.s, 'files.create', { kind: 'doc', name: 'Proposal', content: { markdown: 'Our offer.' } })).file;
    const f2 = (await ok(o.s, 'files.create', { kind: 'doc', name: 'Security review', content: { markdown: 'SOC 2.' } })).file;
    const { result, event } = await mutate(o.s, 'crm.linkFiles', { dealId: d.id, fileIds: [f1.id] }, 'crm.files.link', { entityId: () => d.id });
    expect(result).toEqual({ linked: [f1.id], alreadyLinked: [] });
    expect(event.payload).toEqual({ dealId: d.id, fileIds: [f1.id], count: 1, alreadyLinked: 0 });
    const second = await mutate(o.s, 'crm.linkFiles', { dealId: d.id, fileIds: [f1.id, f2.id, f2.id] }, 'crm.files.link');
    expect(second.result).toEqual({ linked: [f2.id], alreadyLinked: [f1.id] });
    const none = await mutate(o.s, 'crm.linkFiles', { dealId: d.id, fileIds: [f1.id] }, 'crm.files.link');
    expect(none.event.payload).toMatchObject({ count: 0, alreadyLinked: 1, noop: true });
  });

  it('misuse: a file you cannot read, too many, a deleted deal, another org, a viewer', async () => {
    const d = await deal(o, (await account(o)).id);
    const f = (await ok(o.s, 'files.create', { kind: 'doc', name: 'Mine', content: { markdown: 'x' } })).file;
    const theirs = (await o.other.ok('files.create', { kind: 'doc', name: 'Theirs', content: { markdown: 'x' } })).file;
    await refused(o.s, 'crm.linkFiles', { dealId: d.id, fileIds: [f.id, theirs.id] }, 'NOT_FOUND', { message: `file ${theirs.id} (fileIds[1]) not found` });
    await refused(o.s, 'crm.linkFiles', { dealId: d.id, fileIds: [] }, 'BAD_REQUEST', { message: /^fileIds: / });
    await refused(o.s, 'crm.linkFiles', { dealId: d.id, fileIds: Array.from({ length: 51 }, () => f.id) }, 'BAD_REQUEST', { message: /^fileIds: / });
    await refused(o.other, 'crm.linkFiles', { dealId: d.id, fileIds: [theirs.id] }, 'NOT_FOUND');
    await refused(o.s, 'crm.linkFiles', { dealId: d.id, fileIds: [f.id] }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await mutate(o.s, 'crm.deleteDeal', { dealId: d.id }, 'crm.deal.delete');
    await refused(o.s, 'crm.linkFiles', { dealId: d.id, fileIds: [f.id] }, 'CONFLICT', { message: /is deleted; nothing can be linked/ });
  });
});
