import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../../helpers/canary.js';
import { CHARTER_DECIDER } from './setup.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of the charter
 * (title, mission, heading, body, clauses, every colleague text field), written directly, held, approved and amended,
 * shows in no ledger event and no log line.
 */

const CANARY = 'Zebra-Canary-7731';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary: charter', () => {
  it('no title, mission, heading, body, clause or colleague text in any event or log line', async () => {
    const mint = async (spec: object, name: string) => s.client.ok('settings.mintApiKey', { name, ...spec });
    const ceo = await mint({ scopes: CHARTER_DECIDER, principalKind: 'human' }, 'ceo');
    const agent = await mint({ tier: 'agent' }, 'agent');
    await s.client.ok('governance.set_decision_rights', { rights: [{ area: 'pricing', decidedBy: 'humans' }] });
    const t = (field: string) => `${field} ${CANARY}`;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };
    await call('charter.update', { title: t('title'), mission: t('mission') });
    const sec = (await call('charter.addSection', { key: 'conduct', heading: t('heading'), body: t('body'), clauses: [{ text: t('clause') }] })).section;
    await call('charter.updateSection', { sectionId: sec.id, heading: t('heading 2'), body: t('body 2') }, agent.apiKey);
    const hold = await call('charter.updateClauses', { sectionId: sec.id, clauses: [{ text: t('held clause') }] }, agent.apiKey);
    expect(hold.status).toBe('approval_required');
    const filed = await call(
      'approval.request',
      { actionClass: hold.approval.actionClass, payloadHash: hold.approval.payloadHash, subject: hold.approval.subject },
      agent.apiKey,
    );
    await call('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, ceo.apiKey);
    await call('charter.updateClauses', { sectionId: sec.id, clauses: [{ text: t('held clause') }], approvalId: filed.approvalId }, agent.apiKey);
    for (const [field, value] of [
      ['title', t('ctitle')],
      ['summary', t('summary')],
      ['contact', t('contact')],
      ['accountabilities', [t('acc')]],
      ['domains', [t('domain')]],
    ] as const) {
      await call('charter.editColleagueField', { principalId: agent.principal.id, field, value }, agent.apiKey);
    }
    await call('charter.editColleagueField', { principalId: agent.principal.id, field: 'domains', value: [t('domain 2')] });
    const d = (
      await call(
        'decision.propose',
        {
          title: t('decision'),
          area: 'charter',
          decision: t('decision text'),
          amendment: {
            ops: [
              { op: 'update', params: { mission: t('amended mission') } },
              { op: 'updateClauses', params: { sectionId: sec.id, clauses: [{ text: t('amended clause') }] } },
            ],
          },
        },
        ceo.apiKey,
      )
    ).decision;
    await call('decision.adopt', { decisionId: d.id, version: 1 }, ceo.apiKey);
    await call('charter.amend', { decisionId: d.id }, agent.apiKey);
    const got = await call('charter.get', { diffFrom: 0 });
    expect(got.diff.markdown).toContain(CANARY);
    await call('charter.deleteSection', { sectionId: sec.id });

    const ledger = await s.ledgerText();
    expect(ledger).toContain('charter.document.amend');
    expect(ledger).toContain('charter.signature.hold');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });
});
