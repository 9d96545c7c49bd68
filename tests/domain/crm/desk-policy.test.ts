import { describe, expect, it } from 'vitest';
import { held, mutate, refused } from '../../helpers/calls.js';
import { crmOrgHooks, type CrmOrg } from './kit.js';
import { openDeal, propose } from './desk-kit.js';

/*
 * The deal desk's thresholds are set by policy.publish (settings crm.*, in publish's transaction): published
 * thresholds are what proposeTerms holds against, beyond them held and escalated, within them offered; a bad
 * setting is BAD_REQUEST naming it and sets nothing; an agent's publish holds for a human.
 */

let o: CrmOrg;
crmOrgHooks((org) => (o = org));

const publish = (settings: Record<string, number>, extra: Record<string, unknown> = {}) =>
  mutate(
    o.s,
    'policy.publish',
    { key: 'crm.deal-desk', title: 'Deal desk', body: 'What the desk may offer without a signature.', settings, ...extra },
    'policy.version.publish',
  );
const crmPolicy = async () => (await o.s.client.get('policy')).body.crm;

describe('policy.publish sets the CRM policy', () => {
  it('published thresholds: terms beyond them hold and escalate, terms within them do not', async () => {
    const d = await openDeal(o);
    // The default 15%: 20% holds.
    expect((await propose(o, d.id, { discountBps: 2000 }, o.agent.key)).result.terms.status).toBe('held');
    const published = {
      'crm.maxDiscountBps': 2500,
      'crm.maxPaymentDays': 60,
      'crm.minTermMonths': 6,
      'crm.maxTermMonths': 48,
      'crm.signOffNetCents.AUD': 50_000_00,
      'crm.tokenMaxDays': 7,
    };
    const { result, event } = await publish(published);
    expect(result.policy.settings).toMatchObject({ 'crm.maxDiscountBps': 2500, 'crm.signOffNetCents.AUD': 50_000_00 });
    expect(event.payload.settings).toMatchObject({ 'crm.maxDiscountBps': { from: 1500, to: 2500 }, 'crm.signOffNetCents.AUD': { from: null, to: 50_000_00 } });
    expect(await crmPolicy()).toMatchObject({
      maxDiscountBps: 2500,
      maxPaymentDays: 60,
      minTermMonths: 6,
      maxTermMonths: 48,
      signOffNetCents: { AUD: 50_000_00 },
      tokenMaxDays: 7,
    });

    // Within: offered (no escalation), whoever proposes.
    const within = await propose(o, d.id, { listCents: 5_000_000, discountBps: 2000, paymentDays: 60, termMonths: 6 }, o.agent.key);
    expect(within.result.terms).toMatchObject({ status: 'offered', breaches: [] });
    expect(within.result.escalation).toBeNull();
    // Beyond each: held, escalated, with the approval block.
    const cases: [Record<string, unknown>, string[]][] = [
      [{ discountBps: 2501 }, ['discount']],
      [{ paymentDays: 61 }, ['payment_days']],
      [{ termMonths: 5 }, ['term_months']],
      [{ termMonths: 49 }, ['term_months']],
      [{ listCents: 6_000_000, discountBps: 0 }, ['net']],
    ];
    for (const [extra, breaches] of cases) {
      const beyond = (await propose(o, d.id, { listCents: 5_000_000, discountBps: 2000, paymentDays: 60, termMonths: 6, ...extra }, o.agent.key)).result;
      expect(beyond.terms, JSON.stringify(extra)).toMatchObject({ status: 'held', breaches });
      expect(beyond.escalation).toMatchObject({ status: 'open', kind: 'terms' });
      expect(beyond.approval).toMatchObject({ actionClass: 'crm.sign_escalation' });
    }
    // A guest link may not outlive the published 7 days.
    const room = (await mutate(o.s, 'crm.shareDeal', { dealId: d.id, show: { nextSteps: true } }, 'crm.share.create')).result.room;
    await refused(o.s, 'crm.mintGuestToken', { shareId: room.id, email: 'buyer@example.com', expiresInDays: 8 }, 'BAD_REQUEST', {
      message: /^expiresInDays: /,
    });

    // Published again unchanged: a no-op; one key changed: only it moves.
    expect((await publish(published)).result.changed).toBe(false);
    const moved = await publish({ 'crm.maxDiscountBps': 1000 });
    expect(moved.event.payload.settings).toEqual({ 'crm.maxDiscountBps': { from: 2500, to: 1000 } });
    expect(await crmPolicy()).toMatchObject({ maxDiscountBps: 1000, maxPaymentDays: 60, signOffNetCents: { AUD: 50_000_00 } });
  });

  it('a bad setting is BAD_REQUEST naming it and sets nothing', async () => {
    const before = await crmPolicy();
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ 'crm.maxDiscountBps': 10_001 }, /^settings\.crm\.maxDiscountBps: must be at most 10000/],
      [{ 'crm.minTermMonths': 0 }, /^settings\.crm\.minTermMonths: must be >= 1/],
      [{ 'crm.tokenMaxDays': 1.5 }, /^settings\.crm\.tokenMaxDays: must be an integer/],
      [{ 'crm.signOffNetCents.XYZ': 100 }, /^settings\.crm\.signOffNetCents\.XYZ: unknown currency XYZ/],
      [{ 'crm.signOffNetCents.USD': -1 }, /^settings\.crm\.signOffNetCents\.USD: must be >= 0/],
      [{ 'crm.colour': 1 }, /^settings\.crm\.colour: unknown field$/],
      [{ 'crm.signOffNetCents.AUD': 'lots' }, /^settings\.crm\.signOffNetCents\.AUD: must be an integer/],
      [{ 'crm.minTermMonths': 100 }, /^settings\.crm\.minTermMonths: the term range would be 100 to \d+ months/],
      [{ 'crm.minTermMonths': 24, 'crm.maxTermMonths': 12 }, /^settings\.crm\.minTermMonths: /],
    ];
    for (const [settings, message] of bad) {
      await refused(o.s, 'policy.publish', { key: 'crm.bad', title: 'Bad', body: 'Bad.', settings }, 'BAD_REQUEST', { message });
    }
    expect(await crmPolicy()).toEqual(before);
  });

  it('an agent’s publish of CRM settings holds for a human', async () => {
    const agent = await o.s.client.mint({ scopes: ['org.read', 'admin', 'approval.request'], principalKind: 'agent' }, 'policy agent');
    const params = { key: 'crm.agent', title: 'Agent', body: 'Looser.', settings: { 'crm.maxDiscountBps': 5000 } };
    const approval = await held(o.s, 'policy.publish', params, { key: agent.apiKey });
    expect(approval.subject.summary).toContain('crm.maxDiscountBps from');
    expect((await crmPolicy()).maxDiscountBps).not.toBe(5000);
  });
});
