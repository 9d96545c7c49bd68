import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, noop, read, refused } from '../../helpers/calls.js';
import { account, crmOrg, deal, type CrmOrg } from './kit.js';

/* crm.setTarget and getTargets: quotas nobody sets for themselves; attainment in basis points; open pipeline by forecast. */

let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg('2026-07-01');
});
afterAll(() => o.s.close());

describe('crm.setTarget', () => {
  it('upserts per owner, period and currency; the same amount is a noop; own target is FORBIDDEN_SCOPE', async () => {
    const { result, event } = await mutate(
      o.s,
      'crm.setTarget',
      { ownerId: o.mia.id, period: '2026', currency: 'AUD', amountCents: 50_000_000 },
      'crm.target.set',
    );
    expect(result.target).toMatchObject({ ownerId: o.mia.id, period: '2026', currency: 'AUD', amountCents: 50_000_000, version: 1, setBy: o.owner.id });
    expect(event.payload).toEqual({
      targetId: result.target.id,
      ownerId: o.mia.id,
      period: '2026',
      currency: 'AUD',
      amountCents: 50_000_000,
      previousCents: null,
      version: 1,
    });
    const raised = await mutate(o.s, 'crm.setTarget', { ownerId: o.mia.id, period: '2026', currency: 'AUD', amountCents: 60_000_000 }, 'crm.target.set');
    expect(raised.result.target).toMatchObject({ id: result.target.id, version: 2 });
    expect(raised.event.payload.previousCents).toBe(50_000_000);
    await noop(o.s, 'crm.setTarget', { ownerId: o.mia.id, period: '2026', currency: 'AUD', amountCents: 60_000_000 }, 'crm.target.set');
    await refused(o.s, 'crm.setTarget', { ownerId: o.mia.id, period: '2026', currency: 'AUD', amountCents: 1 }, 'FORBIDDEN_SCOPE', {
      key: o.mia.key,
      message: `missing role target setter on ${o.mia.id}: nobody sets their own target; ask a manager or an admin to set it`,
    });
    await refused(o.s, 'crm.setTarget', { ownerId: o.mia.id, period: '2026-Q5', currency: 'AUD', amountCents: 1 }, 'BAD_REQUEST', { message: /^period: / });
    await refused(o.s, 'crm.setTarget', { ownerId: o.mia.id, period: '2026', currency: 'AUDX', amountCents: 1 }, 'BAD_REQUEST', {
      message: 'currency: unknown currency AUDX',
    });
    await refused(o.s, 'crm.setTarget', { ownerId: 'someone', period: '2026', currency: 'AUD', amountCents: 1 }, 'BAD_REQUEST', { message: /^ownerId: / });
    await refused(o.s, 'crm.setTarget', { ownerId: o.mia.id, period: '2026', currency: 'AUD', amountCents: 1 }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
  });
});

describe('crm.getTargets', () => {
  it('won, open, weighted, commit, best case and gap per target; org sums every owner; months and years', async () => {
    const a = await account(o);
    await mutate(o.s, 'crm.setTarget', { ownerId: o.max.id, period: '2026-08', currency: 'AUD', amountCents: 1_000_000 }, 'crm.target.set');
    await mutate(o.s, 'crm.setTarget', { ownerId: 'org', period: '2026-08', currency: 'AUD', amountCents: 3_000_000 }, 'crm.target.set');
    const won = await deal(o, a.id, { ownerId: o.max.id, amountCents: 250_000, closeDate: '2026-08-10' });
    await mutate(o.s, 'crm.closeDeal', { dealId: won.id, outcome: 'won', closedOn: '2026-08-05' }, 'crm.deal.close');
    await deal(o, a.id, { ownerId: o.max.id, amountCents: 400_000, closeDate: '2026-08-20', stage: 'negotiation' });
    await deal(o, a.id, { ownerId: o.max.id, amountCents: 100_000, closeDate: '2026-08-21', stage: 'proposal' });
    await deal(o, a.id, { ownerId: o.mia.id, amountCents: 1_000_000, closeDate: '2026-08-22', stage: 'lead' });
    await deal(o, a.id, { ownerId: o.max.id, amountCents: 999, closeDate: '2026-09-01' });
    const got = await read(o.s, 'crm.getTargets', { period: '2026-08' });
    expect(got).toMatchObject({ period: '2026-08', from: '2026-08-01', to: '2026-08-31', uncounted: [] });
    expect(
      got.targets.map((t: any) => [t.target.ownerId, t.wonCents, t.attainmentBps, t.openCents, t.weightedCents, t.commitCents, t.bestCaseCents, t.gapCents]),
    ).toEqual([
      ['org', 250_000, 833, 1_500_000, 450_000, 400_000, 500_000, 2_750_000],
      [o.max.id, 250_000, 2500, 500_000, 350_000, 400_000, 500_000, 750_000],
    ]);
    const mine = await read(o.s, 'crm.getTargets', { period: '2026-08', ownerId: o.max.id });
    expect(mine.targets).toHaveLength(1);
    expect((await read(o.s, 'crm.getTargets', { period: '2026-Q3' })).targets).toEqual([]);
    await refused(o.s, 'crm.getTargets', { period: '26' }, 'BAD_REQUEST', { message: /^period: / });
  });
});
