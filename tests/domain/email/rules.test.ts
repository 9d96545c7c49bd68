import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, head, mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { expectError } from '../../helpers/frames.js';
import { deliver, folderRoles, inbound, mailOrg, type MailOrg } from './kit.js';

/*
 * email.ruleSave, email.ruleSetEnabled and email.rules: a closed grammar checked with field paths, rules in words,
 * rules that run on arriving mail in order (after threading, in the same transaction) and over existing mail, an
 * agent's rule that waits for a person to enable it, and events that carry ids, counts and hashes only.
 */

let o: MailOrg;
let folders: Record<string, string>;
beforeAll(async () => {
  o = await mailOrg();
  folders = await folderRoles(o);
});
afterAll(() => o.s.close());

const message = async (messageId: string, key?: string) => (await ok(o.s, 'email.message', { messageId }, key)).message;
const pathOf = async (folderId: string) => {
  const { mailboxes } = await ok(o.s, 'email.mailboxes', {});
  return mailboxes.find((m: any) => m.id === o.mailboxId).folders.find((f: any) => f.id === folderId)?.path;
};
let n = 0;
const tag = () => `t${Date.now().toString(36)}${++n}`;

describe('email.ruleSave and rules at receive', () => {
  it("a person's rule is enabled, reads in words, and files matching mail on arrival (marked read for everyone)", async () => {
    const word = tag();
    const { result, event } = await mutate(
      o.s,
      'email.ruleSave',
      {
        mailboxId: o.mailboxId,
        name: `Invoices ${word}`,
        when: {
          all: [
            { field: 'fromDomain', op: 'is', value: 'client.example' },
            { field: 'subject', op: 'contains', value: `Invoice ${word}` },
          ],
        },
        then: [{ move: `Finance/${word}` }, { markRead: true }],
      },
      'email.rule.save',
      { entityId: (r) => r.rule.id },
    );
    expect(result.rule).toMatchObject({ enabled: true, authorId: o.owner.id, enabledBy: o.owner.id, mailboxId: o.mailboxId });
    expect(result.rule.description).toBe(
      `When the sender's domain is client.example and the subject contains 'Invoice ${word}': move to Finance/${word}, mark read for everyone`,
    );
    expect(event.payload).toMatchObject({
      mailboxId: o.mailboxId,
      ruleId: result.rule.id,
      created: true,
      enabled: true,
      conditions: 2,
      actions: ['move', 'markRead'],
    });
    expect(event.payload.ruleSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(event.payload)).not.toContain(word);

    const before = await head(o.s);
    const hit = await inbound(o, { subject: `Your INVOICE ${word} is due` });
    const miss = await inbound(o, { subject: `Lunch ${word}` });
    const other = await inbound(o, { from: 'eve@elsewhere.example', subject: `Invoice ${word}` });
    const filed = await message(hit.messageId);
    expect(await pathOf(filed.folderId)).toBe(`Finance/${word}`);
    expect(filed.unread).toBe(false);
    expect((await message(hit.messageId, o.mia.key)).unread).toBe(false);
    expect((await message(miss.messageId)).folderId).toBe(folders.inbox);
    expect((await message(other.messageId)).folderId).toBe(folders.inbox);
    const events = await eventsAfter(o.s, before);
    expect(events.map((e) => e.payload.ruleIds)).toEqual([[result.rule.id], [], []]);
    expect(events[0].payload).toMatchObject({ folderRole: 'none', spam: null });

    // rules {messageId} explains each rule against a message.
    const explained = (await ok(o.s, 'email.rules', { mailboxId: o.mailboxId, messageId: miss.messageId }, o.agent.key)).rules.find(
      (r: any) => r.id === result.rule.id,
    );
    expect(explained.match).toEqual({ matched: false, because: [`the subject does not contain 'Invoice ${word}'`] });
    const matched = (await ok(o.s, 'email.rules', { mailboxId: o.mailboxId, messageId: hit.messageId })).rules.find((r: any) => r.id === result.rule.id);
    expect(matched.match).toEqual({ matched: true, because: ["the sender's domain is client.example", `the subject contains 'Invoice ${word}'`] });
  });

  it('any, not, listId, hasAttachment and dmarc; rules in order; thread acts: assign, hold, triage', async () => {
    const word = tag();
    const first = await ok(o.s, 'email.ruleSave', {
      mailboxId: o.mailboxId,
      when: {
        any: [
          { field: 'listId', op: 'matchesDomain', value: `${word}.example` },
          { field: 'hasAttachment', op: 'is', value: true },
        ],
      },
      then: [{ move: `Lists ${word}` }, { triage: { category: 'newsletter', priority: 'low' } }],
    });
    const second = await ok(o.s, 'email.ruleSave', {
      mailboxId: o.mailboxId,
      when: { all: [{ field: 'body', op: 'contains', value: word }, { not: { field: 'dmarc', op: 'is', value: 'pass' } }] },
      then: [{ move: 'Archive' }, { assign: o.mia.id }, { holdReplies: true }],
    });
    expect(second.rule.description).toBe(
      `When the body contains '${word}' and the DMARC verdict is not pass: move to Archive, assign to ${o.mia.id} (when no one answers it yet), hold agents' replies for review`,
    );
    const listed = await deliver(o, { subject: 'Weekly', text: `news ${word}`, headers: { 'List-Id': `Weekly <weekly.${word}.example>` } });
    const [got] = listed.messages;
    // Both rules matched; the first to choose a folder decided it, the second's acts still applied.
    expect(got.ruleIds).toEqual([first.rule.id, second.rule.id]);
    expect(await pathOf(got.folderId)).toBe(`Lists ${word}`);
    const { thread } = await ok(o.s, 'email.thread', { threadId: got.threadId });
    expect(thread).toMatchObject({ assigneeId: o.mia.id, hold: true, triage: { category: 'newsletter', priority: 'low' } });
    // DMARC pass: the second rule does not hold.
    const passed = await deliver(o, { subject: 'Plain', text: `more ${word}`, auth: { dmarc: 'pass' } });
    expect(passed.messages[0].ruleIds).toEqual([]);
    expect(passed.messages[0].folderId).toBe(folders.inbox);
    // An attachment alone matches the any.
    const attached = await deliver(o, { subject: 'Doc', attachments: [{ filename: 'a.txt', content: 'x' }] });
    expect(attached.messages[0].ruleIds).toContain(first.rule.id);
    // Disabled rules do not run.
    await ok(o.s, 'email.ruleSetEnabled', { ruleId: first.rule.id, enabled: false });
    await ok(o.s, 'email.ruleSetEnabled', { ruleId: second.rule.id, enabled: false });
    expect((await deliver(o, { subject: 'Doc 2', attachments: [{ filename: 'b.txt', content: 'y' }] })).messages[0].ruleIds).toEqual([]);
  });

  it('applyToExisting files the mail already here (not Spam or Trash); the same rule again is a no-op', async () => {
    const word = tag();
    const a = await inbound(o, { subject: `Report ${word} A` });
    const b = await inbound(o, { subject: `Report ${word} B` });
    const spammed = await inbound(o, { subject: `Report ${word} C` });
    await ok(o.s, 'email.move', { ids: [spammed.messageId], folderId: folders.spam });
    const params = {
      mailboxId: o.mailboxId,
      when: { all: [{ field: 'subject', op: 'startsWith', value: `report ${word}` }] },
      then: [{ move: `Reports ${word}` }, { markRead: true }],
      applyToExisting: true,
    };
    const { result, event } = await mutate(o.s, 'email.ruleSave', params, 'email.rule.save');
    expect(result.existing).toMatchObject({ matched: 2, moved: 2 });
    expect(result.existing.scanned).toBeGreaterThanOrEqual(2);
    expect(event.payload.existing).toMatchObject({ matched: 2, moved: 2 });
    for (const id of [a.messageId, b.messageId]) {
      const m = await message(id, o.mia.key);
      expect(await pathOf(m.folderId)).toBe(`Reports ${word}`);
      expect(m.unread).toBe(false);
    }
    expect((await message(spammed.messageId)).folderId).toBe(folders.spam);
    const { result: again, event: noop } = await mutate(
      o.s,
      'email.ruleSave',
      { ruleId: result.rule.id, when: params.when, then: params.then },
      'email.rule.save',
    );
    expect(again.changed).toBe(false);
    expect(noop.payload.noop).toBe(true);
    // A rename is a change; the order (position) stays.
    const renamed = await ok(o.s, 'email.ruleSave', { ruleId: result.rule.id, name: 'Reports' });
    expect(renamed).toMatchObject({ changed: true, rule: { name: 'Reports', position: result.rule.position } });
  });
});

describe("an agent's rule", () => {
  it('starts disabled and does nothing until a person enables it; an agent cannot enable it; its change disables it again', async () => {
    const word = tag();
    const { result, event } = await mutate(
      o.s,
      'email.ruleSave',
      { mailboxId: o.mailboxId, when: { all: [{ field: 'subject', op: 'contains', value: word }] }, then: [{ move: `Agent ${word}` }] },
      'email.rule.save',
      { key: o.agent.key },
    );
    expect(result.rule).toMatchObject({ enabled: false, authorId: o.agent.id, enabledBy: null });
    expect(event.payload.enabled).toBe(false);
    expect((await inbound(o, { subject: `first ${word}` })).threadId).toBeDefined();
    expect((await deliver(o, { subject: `again ${word}` })).messages[0].folderId).toBe(folders.inbox);

    const refusal = await refused(o.s, 'email.ruleSetEnabled', { ruleId: result.rule.id, enabled: true }, 'FORBIDDEN_SCOPE', { key: o.agent.key });
    expect(refusal).toMatch(/^missing role owner or reviewer or member in this mailbox \(yours is agent\), needed to enable a rule/);
    const { result: on, event: onEvent } = await mutate(o.s, 'email.ruleSetEnabled', { ruleId: result.rule.id, enabled: true }, 'email.rule.set_state', {
      key: o.mia.key,
    });
    expect(on.rule).toMatchObject({ enabled: true, enabledBy: o.mia.id });
    expect(onEvent.payload).toEqual({ mailboxId: o.mailboxId, ruleId: result.rule.id, enabled: true, agentRule: true });
    const moved = await deliver(o, { subject: `third ${word}` });
    expect(await pathOf(moved.messages[0].folderId)).toBe(`Agent ${word}`);
    // Enabling again: a no-op with one event.
    const { result: same, event: noop } = await mutate(o.s, 'email.ruleSetEnabled', { ruleId: result.rule.id, enabled: true }, 'email.rule.set_state');
    expect(same.changed).toBe(false);
    expect(noop.payload.noop).toBe(true);

    // The agent changes its enabled rule: it is disabled again, until a person looks.
    const changedRule = await ok(o.s, 'email.ruleSave', { ruleId: result.rule.id, then: [{ move: `Agent ${word}/2` }] }, o.agent.key);
    expect(changedRule.rule).toMatchObject({ enabled: false, enabledBy: null, updatedBy: o.agent.id });
    expect((await deliver(o, { subject: `fourth ${word}` })).messages[0].folderId).toBe(folders.inbox);
    // It may disable its own rule, not a person's; it may not change a person's rule nor write a Spam rule.
    expect((await ok(o.s, 'email.ruleSetEnabled', { ruleId: result.rule.id, enabled: false }, o.agent.key)).changed).toBe(false);
    const person = await ok(o.s, 'email.ruleSave', {
      mailboxId: o.mailboxId,
      when: { not: { field: 'subject', op: 'contains', value: 'x' } },
      then: [{ markRead: true }],
    });
    await ok(o.s, 'email.ruleSetEnabled', { ruleId: person.rule.id, enabled: false });
    await refused(o.s, 'email.ruleSetEnabled', { ruleId: person.rule.id, enabled: false }, 'FORBIDDEN_SCOPE', {
      key: o.agent.key,
      message: /^missing role .* needed to disable a rule you did not write/,
    });
    await refused(o.s, 'email.ruleSave', { ruleId: person.rule.id, name: 'mine now' }, 'FORBIDDEN_SCOPE', {
      key: o.agent.key,
      message: /^missing role .* needed to change a rule a person wrote/,
    });
    await refused(
      o.s,
      'email.ruleSave',
      { mailboxId: o.mailboxId, when: { all: [{ field: 'from', op: 'endsWith', value: '@spam.example' }] }, then: [{ spam: true }] },
      'FORBIDDEN_SCOPE',
      {
        key: o.agent.key,
        message: /^missing role owner or reviewer or member in this mailbox \(yours is agent\), needed to write a rule that puts mail in Spam/,
      },
    );
    // A person's Spam rule works.
    const spamRule = await ok(o.s, 'email.ruleSave', {
      mailboxId: o.mailboxId,
      when: { all: [{ field: 'from', op: 'matchesDomain', value: `${word}.example` }] },
      then: [{ spam: true }],
    });
    const junk = await deliver(o, { from: `x@mail.${word}.example`, subject: 'Buy' });
    expect(junk.messages[0]).toMatchObject({ folderId: folders.spam, spam: 'rule', ruleIds: [spamRule.rule.id] });
  });
});

describe('bad rules and access', () => {
  const base = { when: { all: [{ field: 'subject', op: 'contains', value: 'x' }] }, then: [{ markRead: true }] };

  it('BAD_REQUEST names the field: unknown ops and fields, regex, forwarding, Trash, duplicates, non-members', async () => {
    const bad = async (patch: object, message: RegExp) =>
      refused(o.s, 'email.ruleSave', { mailboxId: o.mailboxId, ...base, ...patch }, 'BAD_REQUEST', { message });
    await bad({ when: { all: [{ field: 'subject', op: 'regex', value: '.*' }] } }, /^when\.all\.0\.op: must be one of "is", "contains"/);
    await bad({ when: { all: [{ field: 'header', op: 'is', value: 'x' }] } }, /^when\.all\.0(\.field)?: /);
    await bad({ when: { all: [{ field: 'subject', op: 'contains', value: 'x', regex: true }] } }, /^when\.all\.0\.regex: unknown field/);
    await bad({ when: { all: [] } }, /^when\.all: must list at least one condition/);
    await bad({ when: { all: [{ field: 'subject', op: 'matchesDomain', value: 'a.example' }] } }, /^when\.all\.0\.op: matchesDomain compares domains/);
    await bad({ when: { any: [{ not: { field: 'from', op: 'matchesDomain', value: 'not a domain' } }] } }, /^when\.any\.0\.not\.value: must be a domain/);
    await bad({ when: { all: [{ field: 'hasAttachment', op: 'contains', value: true }] } }, /^when\.all\.0\.op: /);
    await bad({ then: [{ forward: 'x@elsewhere.example' }] }, /^then\.0: /);
    await bad({ then: [{ move: 'Trash' }] }, /^then\.0\.move: rules never move mail to Trash/);
    await bad({ then: [{ move: 'spam' }] }, /^then\.0\.move: use the action \{spam: true\}/);
    await bad({ then: [{ markRead: true }, { markRead: true }] }, /^then\.1: markRead is given twice/);
    await bad({ then: [{ move: 'A' }, { spam: true }] }, /^then\.1: move and spam both choose a folder/);
    await bad({ then: [{ assign: o.max.id }] }, /^then\.0\.assign: .* is not a member of mailbox/);
    await bad({ then: [{ triage: {} }] }, /^then\.0\.triage: give category, priority or both/);
    await bad({ then: [] }, /^then: must list at least one action/);
    await refused(o.s, 'email.ruleSave', { mailboxId: o.mailboxId, then: base.then }, 'BAD_REQUEST', { message: /^when: required to create a rule/ });
  });

  it('NOT_FOUND for a mailbox or rule the caller is not in, and for another org', async () => {
    const { rule } = await ok(o.s, 'email.ruleSave', { mailboxId: o.mailboxId, ...base });
    await refused(o.s, 'email.ruleSave', { mailboxId: o.mailboxId, ...base }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.ruleSetEnabled', { ruleId: rule.id, enabled: false }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'email.rules', { mailboxId: o.mailboxId }, 'NOT_FOUND', { key: o.max.key });
    const stranger = await otherOrg(o.s);
    expectError(await stranger.rpc('email.ruleSetEnabled', { ruleId: rule.id, enabled: false }), 'NOT_FOUND');
    expectError(await stranger.rpc('email.rules', { mailboxId: o.mailboxId }), 'NOT_FOUND');
    // rules lists them in order, each in words.
    const { rules } = await ok(o.s, 'email.rules', { mailboxId: o.mailboxId }, o.agent.key);
    expect(rules.length).toBeGreaterThan(3);
    expect(rules.map((r: any) => r.position)).toEqual([...rules.map((r: any) => r.position)].sort((x: number, y: number) => x - y));
    expect(rules.every((r: any) => r.description.startsWith('When '))).toBe(true);
    // A message of another mailbox cannot be explained against this one.
    const theirs = await deliver(o, { envelopeTo: [o.otherAddress], subject: 'Theirs' });
    await refused(o.s, 'email.rules', { mailboxId: o.mailboxId, messageId: theirs.messages[0].messageId }, 'BAD_REQUEST', {
      message: /^messageId: .* is in another mailbox/,
    });
  });
});
