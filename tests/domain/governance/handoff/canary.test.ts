import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../../helpers/canary.js';

/*
 * Redaction (docs/security.md, Free text stays out of the ledger): a canary in every free-text field of escalation
 * and handoff (an escalation's title and resolution, an offer's brief, a decline's and a cancel's reason) shows in no
 * ledger event and no log line, across every method, the held offer included.
 */

const CANARY = 'Okapi-Canary-4412';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary', () => {
  it('no title, resolution, brief or reason in any event or log line', async () => {
    const mint = async (spec: object, name: string) => s.client.ok('settings.mintApiKey', { name, ...spec });
    const a = await mint({ tier: 'agent' }, 'agent a');
    const b = await mint({ tier: 'agent' }, 'agent b');
    const member = await mint({ tier: 'member' }, 'member');
    const me = (await s.client.get('org/whoami')).body.principal.id;
    await s.client.ok('governance.set_decision_rights', { rights: [{ area: 'handoff.legal', decidedBy: me }] });
    const text = (field: string) => `${field} ${CANARY}`;
    const call = async (method: string, params: object, key?: string) => {
      const res = await s.client.rpc(method, params, { key });
      expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
      return res.body.result;
    };

    const t = await call('board.createTask', { title: 'plain task' });
    await call('board.assignTask', { taskId: t.id, assignee: a.principal.id });
    const e = (await call('escalation.create', { title: text('title'), reason: 'blocked', subject: t.id, to: member.principal.id }, a.apiKey)).escalation;
    await call('escalation.create', { title: text('title again'), reason: 'blocked', subject: t.id }, a.apiKey);
    await call('escalation.list', { subjectId: t.id });

    const offer = (brief: string, to: string, extra: object = {}) => ({ subject: { kind: 'task', id: t.id }, to, brief: text(brief), ...extra });
    const declined = (await call('handoff.offer', offer('brief 1', b.principal.id), a.apiKey)).handoff;
    await call('handoff.decline', { handoffId: declined.id, reason: text('decline reason') }, b.apiKey);
    const cancelled = (await call('handoff.offer', offer('brief 2', b.principal.id), a.apiKey)).handoff;
    await call('handoff.cancel', { handoffId: cancelled.id, reason: text('cancel reason') }, a.apiKey);
    const hold = await call('handoff.offer', offer('held brief', b.principal.id, { area: 'legal' }), a.apiKey);
    expect(hold.status).toBe('approval_required');
    const accepted = (await call('handoff.offer', offer('brief 3', b.principal.id), a.apiKey)).handoff;
    await call('handoff.accept', { handoffId: accepted.id }, b.apiKey);
    const escalated = (await call('handoff.offer', { subject: { kind: 'escalation', id: e.id }, to: me, brief: text('escalation brief') }, member.apiKey))
      .handoff;
    await call('handoff.accept', { handoffId: escalated.id });
    await call('escalation.resolve', { escalationId: e.id, outcome: 'directed', resolution: text('resolution') });
    expect((await s.client.get('board.context', { taskId: t.id })).raw).toContain('plain task');

    const ledger = await s.ledgerText();
    expect(ledger).toContain('escalation.case.resolve');
    expect(ledger).toContain('handoff.signature.hold');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });
});
