import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, read, refused } from '../../helpers/calls.js';
import { account, crmOrg, deal, type CrmOrg } from './kit.js';

/*
 * Acceptance scenario 3 (docs/families/crm.md): target Q3 AUD 100k; won 60k -> 6000 bps; a USD win is counted, not
 * priced; reopening the deal removes it; one's own target -> FORBIDDEN_SCOPE.
 */

let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg('2026-08-15');
});
afterAll(() => o.s.close());

describe('scenario 3: targets', () => {
  it('Q3 AUD 100k, won 60k -> 6000 bps; USD uncounted; reopen removes it; own target refused', async () => {
    await mutate(o.s, 'crm.setTarget', { ownerId: o.mia.id, period: '2026-Q3', currency: 'AUD', amountCents: 10_000_000 }, 'crm.target.set');
    const a = await account(o, undefined, { ownerId: o.mia.id }, o.mia.key);
    const aud = await deal(o, a.id, { amountCents: 6_000_000, closeDate: '2026-08-30', stage: 'contract' }, o.mia.key);
    const usd = await deal(o, a.id, { amountCents: 2_500_000, currency: 'USD', closeDate: '2026-09-10' }, o.mia.key);
    await mutate(o.s, 'crm.closeDeal', { dealId: aud.id, outcome: 'won' }, 'crm.deal.close', { key: o.mia.key });
    await mutate(o.s, 'crm.closeDeal', { dealId: usd.id, outcome: 'won' }, 'crm.deal.close', { key: o.mia.key });

    let t = await read(o.s, 'crm.getTargets', { period: '2026-Q3', ownerId: o.mia.id }, o.mia.key);
    expect(t.targets[0]).toMatchObject({ wonCents: 6_000_000, attainmentBps: 6000, gapCents: 4_000_000, openCents: 0 });
    expect(t.uncounted).toEqual([{ ownerId: o.mia.id, currency: 'USD', won: 1, open: 0 }]);

    await mutate(o.s, 'crm.moveStage', { dealId: aud.id, stage: 'negotiation' }, 'crm.deal.move', { key: o.mia.key });
    t = await read(o.s, 'crm.getTargets', { period: '2026-Q3', ownerId: o.mia.id }, o.mia.key);
    expect(t.targets[0]).toMatchObject({ wonCents: 0, attainmentBps: 0, openCents: 6_000_000, weightedCents: 4_500_000, commitCents: 6_000_000 });

    await refused(o.s, 'crm.setTarget', { ownerId: o.mia.id, period: '2026-Q3', currency: 'AUD', amountCents: 1 }, 'FORBIDDEN_SCOPE', { key: o.mia.key });
  });
});
