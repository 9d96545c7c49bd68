import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../../helpers/canary.js';
import { DECIDER_SCOPES } from './setup.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of the decision
 * family (title, context, decision, consequences, amendment, link, outcome, reason, comment and adjustment bodies)
 * shows in no ledger event and no log line, across every method, holds included.
 */

const CANARY = 'Zebra-Canary-7731';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary', () => {
  it('no title, context, decision, consequences, outcome, reason or comment text in any event or log line', async () => {
    const mint = async (spec: object, name: string) => s.client.ok('settings.mintApiKey', { name, ...spec });
    const ceo = await mint({ scopes: DECIDER_SCOPES, principalKind: 'human' }, 'ceo');
    const agent = await mint({ tier: 'agent' }, 'agent');
    await s.client.ok('governance.set_decision_rights', { rights: [{ area: 'charter', decidedBy: ceo.principal.id, agree: ['agents'] }] });
    const text = (field: string) => `${field} ${CANARY}`;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    const d = (
      await call(
        'decision.propose',
        {
          title: text('title'),
          area: 'charter',
          decision: text('decision'),
          context: text('context'),
          consequences: text('consequences'),
          amendment: { ops: [{ op: 'update', params: { mission: text('mission') } }] },
          links: [{ rel: 'see_also', target: `https://example.com/${CANARY}` }],
        },
        agent.apiKey,
      )
    ).decision;
    await call('decision.propose', { decisionId: d.id, title: text('title v2') }, agent.apiKey);
    await call('decision.comment', { decisionId: d.id, body: text('comment') }, ceo.apiKey);
    await call('decision.requestAdjustment', { decisionId: d.id, version: 2, body: text('adjustment') }, ceo.apiKey);
    await call('decision.propose', { decisionId: d.id, decision: text('decision v3') }, agent.apiKey);
    await call('decision.sign', { decisionId: d.id, version: 3 }, agent.apiKey);
    const hold = await call('decision.sign', { decisionId: d.id, version: 3, onBehalfOf: ceo.principal.id }, agent.apiKey);
    expect(hold.status).toBe('approval_required');
    const adoptHold = await call('decision.adopt', { decisionId: d.id, version: 3, outcome: text('outcome') }, (await mint({ tier: 'agent' }, 'a2')).apiKey);
    expect(adoptHold.status).toBe('approval_required');
    await call('decision.adopt', { decisionId: d.id, version: 3, outcome: text('outcome') }, ceo.apiKey);
    const n = (await call('decision.propose', { title: text('next'), area: 'charter', decision: text('next decision') }, agent.apiKey)).decision;
    await call('decision.sign', { decisionId: n.id, version: 1 }, agent.apiKey);
    await call('decision.supersede', { decisionId: n.id, version: 1, supersedes: [d.id], outcome: text('supersede outcome') }, ceo.apiKey);
    await call('decision.reverse', { decisionId: n.id, reason: text('reason') }, ceo.apiKey);
    await call('decision.listComments', { decisionId: d.id });
    // Searching for it works; the query is left out here because the gateway's request log keeps GET query strings.
    expect((await s.client.get('decision.list', { q: 'zebra' })).body.decisions.map((x: any) => x.id)).toContain(n.id);
    expect((await s.client.get('decision.list', { id: d.id })).raw).toContain(CANARY);

    const ledger = await s.ledgerText();
    expect(ledger).toContain('decision.record.supersede');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });
});
