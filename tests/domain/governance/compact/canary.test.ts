import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../../helpers/canary.js';

/* Redaction: a canary in every commitment of a compact (written, held, approved, acknowledged) shows in no event or log line. */

const CANARY = 'Zebra-Canary-7731';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary: compact', () => {
  it('no commitment text in any event or log line', async () => {
    const sponsor = await s.client.ok('settings.mintApiKey', { name: 'sponsor', tier: 'approver' });
    const gen = await s.client.ok('persona.generateAgentId', { name: 'Bot', role: 'Clerk', goal: 'Work', sponsorId: sponsor.principal.id });
    const bot = await s.client.ok('settings.mintApiKey', { name: 'bot key', tier: 'agent', principalId: gen.agent.id });
    const terms = (n: number) => ({ commitments: { agent: [`agent ${n} ${CANARY}`], sponsor: [`sponsor ${n} ${CANARY}`] }, limits: { maxOpenHandoffs: n } });
    await s.client.ok('compact.upsert', { scope: 'org', terms: terms(1) });
    const first = await s.client.ok('compact.upsert', { scope: gen.agent.id, terms: terms(2) });
    const hold = (await s.client.rpc('compact.upsert', { scope: gen.agent.id, terms: terms(3) }, { key: bot.apiKey })).body.result;
    expect(hold.status).toBe('approval_required');
    const filed = await s.client.ok(
      'approval.request',
      { actionClass: hold.approval.actionClass, payloadHash: hold.approval.payloadHash, subject: hold.approval.subject },
      { key: bot.apiKey },
    );
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: sponsor.apiKey });
    const done = await s.client.ok('compact.upsert', { scope: gen.agent.id, terms: terms(3), approvalId: filed.approvalId }, { key: bot.apiKey });
    expect(done.compact.version).toBe(first.compact.version + 1);
    await s.client.ok('compact.upsert', { scope: gen.agent.id, acknowledgeVersion: done.compact.version }, { key: bot.apiKey });
    expect((await s.client.get('policy', {}, { key: bot.apiKey })).raw).toContain(CANARY);
    const ledger = await s.ledgerText();
    expect(ledger).toContain('compact.terms.upsert');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });
});
