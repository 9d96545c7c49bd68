import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, noop, read, refused } from '../../helpers/calls.js';
import { account, contact, crmOrg, deal, type CrmOrg } from './kit.js';

/* The timeline: logInteraction (last activity, ghosted by direction), logDealDecision, pinNote, redactInteraction, listInteractions. */

let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg('2026-07-01');
});
afterAll(() => o.s.close());

const log = async (params: Record<string, unknown>, key?: string) =>
  (await mutate(o.s, 'crm.logInteraction', { kind: 'note', summary: 'A note.', ...params }, 'crm.interaction.log', { key })).result.interaction;
const risk = async (dealId: string): Promise<string[]> => (await read(o.s, 'crm.getDeal', { dealId })).risk;

describe('crm.logInteraction', () => {
  it('links the deal and its account, moves last activity, never echoes or emits the summary', async () => {
    const a = await account(o);
    const d = await deal(o, a.id);
    const c = await contact(o, { accountId: a.id });
    o.clock.set('2026-07-20');
    expect(await risk(d.id)).toContain('noActivity');
    const { result, event } = await mutate(
      o.s,
      'crm.logInteraction',
      { kind: 'call', summary: 'Budget confirmed for Q3.', dealId: d.id, contactIds: [c.id], direction: 'outbound' },
      'crm.interaction.log',
      { entityId: (r) => r.interaction.id },
    );
    const ixn = result.interaction;
    expect(ixn).toMatchObject({ kind: 'call', direction: 'outbound', pinned: false, status: 'live', occurredAt: '2026-07-20T09:00:00.000Z' });
    expect(ixn.links).toEqual([
      { id: d.id, kind: 'deal' },
      { id: a.id, kind: 'account' },
      { id: c.id, kind: 'contact' },
    ]);
    expect(JSON.stringify(result)).not.toContain('Budget');
    expect(event.payload).toEqual({
      interactionId: ixn.id,
      kind: 'call',
      direction: 'outbound',
      occurredAt: '2026-07-20T09:00:00.000Z',
      dealIds: [d.id],
      accountIds: [a.id],
      contactIds: [c.id],
    });
    expect(await risk(d.id)).not.toContain('noActivity');
    for (const target of [{ dealId: d.id }, { accountId: a.id }, { contactId: c.id }]) {
      const list = await read(o.s, 'crm.listInteractions', target);
      expect(list.interactions.map((x: { id: string; summary: string }) => [x.id, x.summary])).toEqual([[ixn.id, 'Budget confirmed for Q3.']]);
    }
  });

  it('ghosted: our outbound 14 days old with no inbound since; an inbound reply clears it', async () => {
    o.clock.set('2026-07-01');
    const d = await deal(o, (await account(o)).id);
    await log({ kind: 'email', dealId: d.id, direction: 'outbound', occurredAt: '2026-07-01T08:00:00Z' });
    o.clock.set('2026-07-20');
    expect(await risk(d.id)).toContain('ghosted');
    await log({ kind: 'email', dealId: d.id, direction: 'inbound' });
    expect(await risk(d.id)).not.toContain('ghosted');
  });

  it('misuse: no target, the future, unknown and other org ids, a deleted deal, a deleted contact, a viewer', async () => {
    o.clock.set('2026-07-01');
    const a = await account(o);
    const d = await deal(o, a.id);
    await refused(o.s, 'crm.logInteraction', { kind: 'note', summary: 'x' }, 'BAD_REQUEST', { message: /^dealId: name what it is about/ });
    await refused(o.s, 'crm.logInteraction', { kind: 'note', summary: 'x', dealId: d.id, occurredAt: '2026-08-01T00:00:00Z' }, 'BAD_REQUEST', {
      message: /^occurredAt: must not be in the future/,
    });
    await refused(o.s, 'crm.logInteraction', { kind: 'decision', summary: 'x', dealId: d.id }, 'BAD_REQUEST', { message: /^kind: / });
    await refused(o.s, 'crm.logInteraction', { kind: 'note', summary: 'x', dealId: 'deal_nosuch' }, 'NOT_FOUND', { message: 'deal deal_nosuch not found' });
    const theirs = (await o.other.ok('crm.createAccount', { name: 'Theirs' })).account;
    await refused(o.s, 'crm.logInteraction', { kind: 'note', summary: 'x', accountId: theirs.id }, 'NOT_FOUND');
    const c = await contact(o);
    await mutate(o.s, 'crm.deleteContact', { contactId: c.id }, 'crm.contact.delete');
    await refused(o.s, 'crm.logInteraction', { kind: 'note', summary: 'x', contactIds: [c.id] }, 'CONFLICT', {
      message: /^contactIds\.0: contact .* is deleted; create a new contact/,
    });
    const gone = await deal(o, a.id);
    await mutate(o.s, 'crm.deleteDeal', { dealId: gone.id }, 'crm.deal.delete');
    await refused(o.s, 'crm.logInteraction', { kind: 'note', summary: 'x', dealId: gone.id }, 'CONFLICT', { message: /is deleted; nothing can be added/ });
    await refused(o.s, 'crm.logInteraction', { kind: 'note', summary: 'x', dealId: d.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.logDealDecision', () => {
  it('a decision interaction: the decision, who decided, the rationale as its summary', async () => {
    const a = await account(o);
    const d = await deal(o, a.id);
    const c = await contact(o, { accountId: a.id });
    const { result, event } = await mutate(
      o.s,
      'crm.logDealDecision',
      { dealId: d.id, decision: 'Take the 24-month term', rationale: 'Legal prefers it.', decidedBy: c.id },
      'crm.decision.log',
    );
    expect(result.interaction).toMatchObject({ kind: 'decision', direction: 'internal' });
    expect(event.payload).toEqual({ interactionId: result.interaction.id, dealId: d.id, decidedBy: c.id, occurredAt: '2026-07-01T09:00:00.000Z' });
    const [x] = (await read(o.s, 'crm.listInteractions', { dealId: d.id, kinds: ['decision'] })).interactions;
    expect(x).toMatchObject({ decision: 'Take the 24-month term', summary: 'Legal prefers it.', decidedBy: c.id });
    const byMe = (await mutate(o.s, 'crm.logDealDecision', { dealId: d.id, decision: 'Go', rationale: 'Why not.' }, 'crm.decision.log')).event;
    expect(byMe.payload.decidedBy).toBe(o.owner.id);
  });

  it('misuse', async () => {
    const d = await deal(o, (await account(o)).id);
    const base = { dealId: d.id, decision: 'Go', rationale: 'Because.' };
    await refused(o.s, 'crm.logDealDecision', { ...base, decidedBy: 'ctc_nosuch' }, 'NOT_FOUND');
    await refused(o.s, 'crm.logDealDecision', { ...base, decidedBy: 'per_x' }, 'BAD_REQUEST', { message: /^decidedBy: / });
    await refused(o.s, 'crm.logDealDecision', { ...base, decision: '' }, 'BAD_REQUEST', { message: /^decision: / });
    await refused(o.s, 'crm.logDealDecision', { ...base, dealId: 'deal_nosuch' }, 'NOT_FOUND');
    await mutate(o.s, 'crm.deleteDeal', { dealId: d.id }, 'crm.deal.delete');
    await refused(o.s, 'crm.logDealDecision', base, 'CONFLICT');
    await refused(o.s, 'crm.logDealDecision', base, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.pinNote and the order of a timeline', () => {
  it('pinned first, then newest; a sixth pin is CONFLICT; pinning twice is a no-op', async () => {
    const d = await deal(o, (await account(o)).id);
    const notes = [];
    for (let i = 0; i < 7; i++) notes.push(await log({ dealId: d.id, summary: `Note ${i}`, occurredAt: `2026-06-0${i + 1}T10:00:00Z` }));
    for (const n of notes.slice(0, 5)) {
      const { result, event } = await mutate(o.s, 'crm.pinNote', { interactionId: n.id }, 'crm.interaction.pin');
      expect(result).toMatchObject({ changed: true, interaction: { pinned: true } });
      expect(event.payload).toEqual({ interactionId: n.id, pinned: true });
    }
    await refused(o.s, 'crm.pinNote', { interactionId: notes[5].id }, 'CONFLICT', {
      // The deal and its account hold the same five: the first by id is named.
      message: /^(deal|acct)_\w+ has 5 pinned interactions already \(the most\); unpin one/,
    });
    await noop(o.s, 'crm.pinNote', { interactionId: notes[0].id, pinned: true }, 'crm.interaction.pin');
    await mutate(o.s, 'crm.pinNote', { interactionId: notes[0].id, pinned: false }, 'crm.interaction.pin');
    const list = await read(o.s, 'crm.listInteractions', { dealId: d.id });
    expect(list.interactions.map((x: { summary: string }) => x.summary)).toEqual(['Note 4', 'Note 3', 'Note 2', 'Note 1', 'Note 6', 'Note 5', 'Note 0']);
    // Pages keep that order.
    const first = await read(o.s, 'crm.listInteractions', { dealId: d.id, limit: 3 });
    const rest = await read(o.s, 'crm.listInteractions', { dealId: d.id, cursor: first.nextCursor });
    expect([...first.interactions, ...rest.interactions].map((x: { id: string }) => x.id)).toEqual(list.interactions.map((x: { id: string }) => x.id));
    expect(rest.nextCursor).toBeNull();
  });

  it('misuse: unknown, other org, redacted, viewer', async () => {
    const n = await log({ accountId: (await account(o)).id });
    await refused(o.s, 'crm.pinNote', { interactionId: 'ixn_nosuch' }, 'NOT_FOUND', { message: 'interaction ixn_nosuch not found' });
    await refused(o.other, 'crm.pinNote', { interactionId: n.id }, 'NOT_FOUND');
    await refused(o.s, 'crm.pinNote', { interactionId: n.id, pinned: 'yes' }, 'BAD_REQUEST', { message: /^pinned: / });
    await refused(o.s, 'crm.pinNote', { interactionId: n.id }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await mutate(o.s, 'crm.redactInteraction', { interactionId: n.id, reason: 'wrong_record' }, 'crm.interaction.redact');
    await refused(o.s, 'crm.pinNote', { interactionId: n.id }, 'CONFLICT', { message: /is redacted; there is nothing left to pin/ });
  });
});

describe('crm.redactInteraction', () => {
  it('the summary reads [redacted] for good, the decision goes; again is a no-op', async () => {
    const d = await deal(o, (await account(o)).id);
    const x = (await mutate(o.s, 'crm.logDealDecision', { dealId: d.id, decision: 'Secret call', rationale: 'Private matter.' }, 'crm.decision.log')).result
      .interaction;
    const { result, event } = await mutate(o.s, 'crm.redactInteraction', { interactionId: x.id, reason: 'personal_data' }, 'crm.interaction.redact');
    expect(result).toMatchObject({ changed: true, interaction: { status: 'redacted' } });
    expect(event.payload).toEqual({ interactionId: x.id, reason: 'personal_data' });
    const [row] = (await read(o.s, 'crm.listInteractions', { dealId: d.id })).interactions;
    expect(row).toMatchObject({ summary: '[redacted]', decision: null, status: 'redacted', redactedReason: 'personal_data' });
    await noop(o.s, 'crm.redactInteraction', { interactionId: x.id, reason: 'other' }, 'crm.interaction.redact');
  });

  it('misuse', async () => {
    const n = await log({ accountId: (await account(o)).id });
    await refused(o.s, 'crm.redactInteraction', { interactionId: n.id, reason: 'because' }, 'BAD_REQUEST', { message: /^reason: / });
    await refused(o.s, 'crm.redactInteraction', { interactionId: 'ixn_nosuch', reason: 'other' }, 'NOT_FOUND');
    await refused(o.other, 'crm.redactInteraction', { interactionId: n.id, reason: 'other' }, 'NOT_FOUND');
    await refused(o.s, 'crm.redactInteraction', { interactionId: n.id, reason: 'other' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.listInteractions', () => {
  it('filters by kinds and since; one target at most; unknown ids, bad cursors and scopes refused', async () => {
    const a = await account(o);
    await log({ accountId: a.id, kind: 'meeting', occurredAt: '2026-05-01T00:00:00Z' });
    await log({ accountId: a.id, kind: 'call', occurredAt: '2026-06-01T00:00:00Z' });
    const kinds = await read(o.s, 'crm.listInteractions', { accountId: a.id, kinds: ['meeting'] });
    expect(kinds.interactions.map((x: { kind: string }) => x.kind)).toEqual(['meeting']);
    const since = await read(o.s, 'crm.listInteractions', { accountId: a.id, since: '2026-05-15T00:00:00Z' });
    expect(since.interactions.map((x: { kind: string }) => x.kind)).toEqual(['call']);
    const all = await read(o.s, 'crm.listInteractions', { limit: 500 });
    expect(all.interactions.length).toBeGreaterThan(2);
    await refused(o.s, 'crm.listInteractions', { accountId: a.id, dealId: 'deal_x' }, 'BAD_REQUEST', { message: /^accountId: give one of/ });
    await refused(o.s, 'crm.listInteractions', { accountId: a.id, cursor: 'nope' }, 'BAD_REQUEST', { message: /^cursor: / });
    await refused(o.s, 'crm.listInteractions', { accountId: 'acct_nosuch' }, 'NOT_FOUND');
    await refused(o.other, 'crm.listInteractions', { accountId: a.id }, 'NOT_FOUND');
    await refused(o.s, 'crm.listInteractions', { accountId: a.id }, 'FORBIDDEN_SCOPE', { key: o.noCrm.key });
    expect((await read(o.s, 'crm.listInteractions', { accountId: a.id }, o.viewer.key)).interactions).toHaveLength(2);
  });
});
