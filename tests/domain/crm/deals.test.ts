import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { err, mutate, noop, read, refused } from '../../helpers/calls.js';
import { account, contact, crmOrg, deal, uniq, type CrmOrg } from './kit.js';

/* Deals: create, update (pushes), moveStage (reopen), closeDeal, delegate, deleteDeal, getDeal, listDeals (rot, risk, totals). */

let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg('2026-07-01');
});
afterAll(() => o.s.close());

describe('crm.createDeal and updateDeal', () => {
  it('history rows per stage, amount and close date; a later close date is a push; possible duplicates', async () => {
    const a = await account(o);
    const { result, event } = await mutate(
      o.s,
      'crm.createDeal',
      { name: 'Acme renewal 2026', accountId: a.id, amountCents: 4_800_000, currency: 'AUD', closeDate: '2026-09-30', stage: 'qualified' },
      'crm.deal.create',
    );
    const d = result.deal;
    expect(d).toMatchObject({ stage: 'qualified', status: 'open', probability: 25, weightedCents: 1_200_000, forecastCategory: 'pipeline', version: 1 });
    expect(event.payload).toEqual({
      dealId: d.id,
      accountId: a.id,
      ownerId: o.owner.id,
      stage: 'qualified',
      amountCents: 4_800_000,
      currency: 'AUD',
      possibleDuplicates: [],
    });
    const dup = await mutate(
      o.s,
      'crm.createDeal',
      { name: 'Acme renewal 2026!', accountId: a.id, amountCents: 1, currency: 'AUD', closeDate: '2026-09-30' },
      'crm.deal.create',
    );
    expect(dup.result.possibleDuplicates).toEqual([{ dealId: d.id, name: 'Acme renewal 2026' }]);

    const pushed = await mutate(
      o.s,
      'crm.updateDeal',
      { dealId: d.id, amountCents: 5_000_000, closeDate: '2026-10-31', expectedVersion: 1 },
      'crm.deal.update',
    );
    expect(pushed.result.deal).toMatchObject({ amountCents: 5_000_000, closeDate: '2026-10-31', closeDatePushes: 1, version: 2 });
    expect(pushed.event.payload).toEqual({
      dealId: d.id,
      fields: ['amountCents', 'closeDate'],
      amountCents: 5_000_000,
      currency: 'AUD',
      push: true,
      version: 2,
    });
    await mutate(o.s, 'crm.updateDeal', { dealId: d.id, closeDate: '2026-10-15' }, 'crm.deal.update');
    await noop(o.s, 'crm.updateDeal', { dealId: d.id, closeDate: '2026-10-15' }, 'crm.deal.update');
    const got = await read(o.s, 'crm.getDeal', { dealId: d.id });
    expect(got.deal.closeDatePushes).toBe(1);
    expect(got.history.map((h: any) => [h.stage, h.amountCents, h.closeDate, h.changed, h.push])).toEqual([
      ['qualified', 4_800_000, '2026-09-30', ['stage', 'amount', 'closeDate'], false],
      ['qualified', 5_000_000, '2026-10-31', ['amount', 'closeDate'], true],
      ['qualified', 5_000_000, '2026-10-15', ['closeDate'], false],
    ]);
  });

  it('bad inputs write nothing', async () => {
    const a = await account(o);
    const d = await deal(o, a.id);
    const base = { name: 'x', accountId: a.id, amountCents: 1, currency: 'AUD', closeDate: '2026-10-01' };
    await refused(o.s, 'crm.createDeal', { ...base, currency: 'AUDX' }, 'BAD_REQUEST', { message: 'currency: unknown currency AUDX' });
    await refused(o.s, 'crm.createDeal', { ...base, currency: 'aud' }, 'BAD_REQUEST', { message: 'currency: unknown currency aud' });
    await refused(o.s, 'crm.createDeal', { ...base, amountCents: -1 }, 'BAD_REQUEST', { message: 'amountCents: must be >= 0' });
    await refused(o.s, 'crm.createDeal', { ...base, stage: 'won' }, 'BAD_REQUEST', { message: /^stage: / });
    await refused(o.s, 'crm.createDeal', { ...base, accountId: 'acct_nosuch' }, 'NOT_FOUND', { message: 'account acct_nosuch not found' });
    expect((await err(o.other, 'crm.createDeal', base)).code).toBe('NOT_FOUND');
    await refused(o.s, 'crm.updateDeal', { dealId: d.id, stage: 'proposal' }, 'BAD_REQUEST', {
      message: 'stage: use crm.moveStage (won or lost: crm.closeDeal)',
    });
    await refused(o.s, 'crm.moveStage', { dealId: d.id, stage: 'won' }, 'BAD_REQUEST', { message: /^stage: / });
    await refused(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'lost' }, 'BAD_REQUEST', { message: 'lostReason: required when the outcome is lost' });
    await refused(o.s, 'crm.updateDeal', { dealId: d.id, name: 'y', expectedVersion: 9 }, 'CONFLICT', { message: /is at version 1, not 9/ });
  });
});

describe('crm.moveStage, closeDeal, delegate, deleteDeal', () => {
  it('moves skip and go back; close; the other outcome is CONFLICT; reopen from won; delete refuses won', async () => {
    const a = await account(o);
    const d = await deal(o, a.id);
    const moved = await mutate(o.s, 'crm.moveStage', { dealId: d.id, stage: 'negotiation' }, 'crm.deal.move');
    expect(moved.event.payload).toEqual({ dealId: d.id, from: 'lead', to: 'negotiation', reopened: false, version: 2 });
    await mutate(o.s, 'crm.moveStage', { dealId: d.id, stage: 'qualified' }, 'crm.deal.move');
    await noop(o.s, 'crm.moveStage', { dealId: d.id, stage: 'qualified' }, 'crm.deal.move');
    const won = await mutate(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'won', amountCents: 900_000 }, 'crm.deal.close');
    expect(won.result.deal).toMatchObject({ status: 'won', stage: 'won', amountCents: 900_000, closedOn: '2026-07-01', probability: 100 });
    expect(won.event.payload).toMatchObject({ outcome: 'won', amountCents: 900_000, currency: 'AUD' });
    await noop(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'won' }, 'crm.deal.close');
    await refused(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'lost', lostReason: 'x' }, 'CONFLICT', { message: /is won; reopen it \(crm\.moveStage\)/ });
    await refused(o.s, 'crm.updateDeal', { dealId: d.id, name: 'x' }, 'CONFLICT', { message: /is won; reopen it/ });
    await refused(o.s, 'crm.deleteDeal', { dealId: d.id }, 'CONFLICT', { message: /is won and counts toward targets/ });
    const reopened = await mutate(o.s, 'crm.moveStage', { dealId: d.id, stage: 'contract' }, 'crm.deal.move');
    expect(reopened.result.deal).toMatchObject({ status: 'open', stage: 'contract', closedOn: null });
    expect(reopened.event.payload.reopened).toBe(true);

    const del = await mutate(o.s, 'crm.delegate', { dealId: d.id, to: o.agent.id }, 'crm.deal.delegate');
    expect(del.result.deal).toMatchObject({ ownerId: o.owner.id, delegateId: o.agent.id });
    await noop(o.s, 'crm.delegate', { dealId: d.id, to: o.agent.id }, 'crm.deal.delegate');
    await refused(o.s, 'crm.delegate', { dealId: d.id, to: 'usr_nosuchmember' }, 'BAD_REQUEST', { message: 'to: no member usr_nosuchmember in this org' });

    const gone = await mutate(o.s, 'crm.deleteDeal', { dealId: d.id }, 'crm.deal.delete');
    expect(gone.result).toMatchObject({ changed: true, roomsRevoked: 0, deal: { status: 'deleted' } });
    await noop(o.s, 'crm.deleteDeal', { dealId: d.id }, 'crm.deal.delete');
    await refused(o.s, 'crm.moveStage', { dealId: d.id, stage: 'lead' }, 'CONFLICT', {
      message: `deal ${d.id} is deleted; nothing can change it (create a new deal)`,
    });
    await refused(o.s, 'crm.closeDeal', { dealId: d.id, outcome: 'won' }, 'CONFLICT');
  });
});

describe('crm.getDeal and listDeals', () => {
  it('rot and risk at the injected clock; filters; per-currency weighted totals over every match; cursor', async () => {
    const a = await account(o, `Risky ${uniq()}`);
    const d1 = await deal(o, a.id, { stage: 'contract', amountCents: 1_000_000, closeDate: '2026-07-20' });
    const d2 = await deal(o, a.id, { stage: 'proposal', amountCents: 333, currency: 'USD', closeDate: '2026-07-10' });
    const d3 = await deal(o, a.id, { stage: 'lead', amountCents: 2_000_001, closeDate: '2026-08-01' });
    let got = await read(o.s, 'crm.getDeal', { dealId: d1.id });
    expect(got.deal).toMatchObject({ rotting: false, daysInStage: 0 });
    expect(got.risk).toEqual(['singleThreaded', 'noPower']);
    expect(got).toMatchObject({ offer: null, escalation: null, rooms: [], tasks: [], account: { id: a.id } });
    const c1 = await contact(o, { accountId: a.id });
    const c2 = await contact(o, { accountId: a.id });
    await mutate(o.s, 'crm.linkContact', { dealId: d1.id, contactId: c1.id, role: 'champion' }, 'crm.contact.link');
    await mutate(o.s, 'crm.linkContact', { dealId: d1.id, contactId: c2.id, role: 'decision_maker' }, 'crm.contact.link');
    expect((await read(o.s, 'crm.getDeal', { dealId: d1.id })).roles.map((r: any) => r.role)).toEqual(['champion', 'decision_maker']);
    o.clock.set('2026-07-09');
    got = await read(o.s, 'crm.getDeal', { dealId: d1.id });
    expect(got.deal).toMatchObject({ rotting: true, daysInStage: 8 });
    expect(got.risk).toEqual(['stalled']);
    o.clock.set('2026-07-25');
    expect((await read(o.s, 'crm.getDeal', { dealId: d1.id })).risk).toEqual(['noActivity', 'stalled', 'overdue']);

    const listed = await read(o.s, 'crm.listDeals', { accountId: a.id });
    expect(listed.deals.map((d: any) => d.id)).toEqual([d2.id, d1.id, d3.id]);
    expect(listed.totals).toEqual([
      { currency: 'AUD', count: 2, amountCents: 3_000_001, weightedCents: 1_100_000 },
      { currency: 'USD', count: 1, amountCents: 333, weightedCents: 167 },
    ]);
    const page1 = await read(o.s, 'crm.listDeals', { accountId: a.id, limit: 2 });
    expect(page1.deals.map((d: any) => d.id)).toEqual([d2.id, d1.id]);
    expect(page1.totals).toEqual(listed.totals);
    const page2 = await read(o.s, 'crm.listDeals', { accountId: a.id, limit: 2, cursor: page1.nextCursor });
    expect(page2.deals.map((d: any) => d.id)).toEqual([d3.id]);
    expect(page2.nextCursor).toBeNull();
    expect((await read(o.s, 'crm.listDeals', { accountId: a.id, risk: 'overdue' })).deals.map((d: any) => d.id)).toEqual([d2.id, d1.id]);
    expect((await read(o.s, 'crm.listDeals', { accountId: a.id, risk: 'noPower' })).deals.map((d: any) => d.id)).toEqual([d2.id, d3.id]);
    expect((await read(o.s, 'crm.listDeals', { accountId: a.id, stage: 'lead' })).deals.map((d: any) => d.id)).toEqual([d3.id]);
    expect((await read(o.s, 'crm.listDeals', { accountId: a.id, closeFrom: '2026-07-15', closeTo: '2026-07-31' })).deals.map((d: any) => d.id)).toEqual([
      d1.id,
    ]);
    const named = await deal(o, a.id, { name: `Quokka expansion ${uniq()}` });
    expect((await read(o.s, 'crm.listDeals', { q: 'quokka' })).deals.map((d: any) => d.id)).toEqual([named.id]);
    await refused(o.s, 'crm.listDeals', { closeFrom: '2026-08-01', closeTo: '2026-07-01' }, 'BAD_REQUEST', { message: /^closeTo: / });
    await refused(o.s, 'crm.getDeal', { dealId: 'deal_nosuch' }, 'NOT_FOUND', { message: 'deal deal_nosuch not found' });
    expect((await err(o.other, 'crm.getDeal', { dealId: d1.id })).code).toBe('NOT_FOUND');
    o.clock.set('2026-07-01');
  });

  it('q: the name’s words when they match, near spellings only when they match nothing; totals over every match, paged', async () => {
    const a = await account(o, `Marsupials ${uniq()}`);
    const d1 = await deal(o, a.id, { name: 'Wombat renewal', stage: 'contract', amountCents: 1_000_000, closeDate: '2026-07-20' });
    const d2 = await deal(o, a.id, { name: 'Wombat expansion', stage: 'lead', amountCents: 500_000, closeDate: '2026-08-01' });
    const d3 = await deal(o, a.id, { name: 'Numbat renewal', stage: 'proposal', amountCents: 333, currency: 'USD', closeDate: '2026-07-10' });
    const list = (params: Record<string, unknown>) => read(o.s, 'crm.listDeals', { accountId: a.id, ...params });
    const ids = async (params: Record<string, unknown>) => (await list(params)).deals.map((d: any) => d.id);
    // Both words: only the deal holding both (not every renewal sharing trigrams with the query).
    expect(await list({ q: 'wombat renewal' })).toMatchObject({
      deals: [{ id: d1.id }],
      totals: [{ currency: 'AUD', count: 1, amountCents: 1_000_000, weightedCents: 900_000 }],
    });
    const renewals = await list({ q: 'renewal' });
    expect(renewals.deals.map((d: any) => d.id)).toEqual([d3.id, d1.id]);
    // 333 x 50% = 166.5 rounds half away from zero.
    expect(renewals.totals).toEqual([
      { currency: 'AUD', count: 1, amountCents: 1_000_000, weightedCents: 900_000 },
      { currency: 'USD', count: 1, amountCents: 333, weightedCents: 167 },
    ]);
    const page1 = await list({ q: 'renewal', limit: 1 });
    expect(page1.deals.map((d: any) => d.id)).toEqual([d3.id]);
    expect(page1.totals).toEqual(renewals.totals);
    const page2 = await list({ q: 'renewal', limit: 1, cursor: page1.nextCursor });
    expect(page2).toMatchObject({ deals: [{ id: d1.id }], totals: renewals.totals, nextCursor: null });
    // A typo matches no word: near spellings.
    expect(await ids({ q: 'wombt' })).toEqual([d1.id, d2.id]);
    expect(await list({ q: 'zzyzx' })).toMatchObject({ deals: [], totals: [], nextCursor: null });
    expect(await ids({ q: 'renewal', stage: 'lead' })).toEqual([]);
  });
});
