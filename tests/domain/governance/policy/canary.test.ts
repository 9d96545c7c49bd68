import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canaryServer, expectNoCanary, type CanaryServer } from '../../../helpers/canary.js';

/* Redaction: a canary in a policy's title and body (published, held, approved, retired) shows in no event or log line. */

const CANARY = 'Zebra-Canary-7731';
let s: CanaryServer;
beforeAll(async () => {
  s = await canaryServer();
});
afterAll(() => s.close());

describe('redaction canary: policy', () => {
  it('no policy title or body in any event or log line', async () => {
    const approver = await s.client.ok('settings.mintApiKey', { name: 'approver', tier: 'approver' });
    const params = { key: 'floor', title: `title ${CANARY}`, body: `body ${CANARY}`, settings: { 'books.materialityFloorCents': 900_000 } };
    const hold = (await s.client.rpc('policy.publish', params)).body.result;
    expect(hold.status).toBe('approval_required');
    const filed = await s.client.ok('approval.request', {
      actionClass: hold.approval.actionClass,
      payloadHash: hold.approval.payloadHash,
      subject: hold.approval.subject,
    });
    await s.client.ok('approval.resolve', { approvalId: filed.approvalId, decision: 'approve' }, { key: approver.apiKey });
    await s.client.ok('policy.publish', { ...params, approvalId: filed.approvalId });
    await s.client.ok('policy.publish', { key: 'floor', body: `body 2 ${CANARY}` });
    await s.client.ok('policy.publish', { key: 'floor', retire: true });
    expect((await s.client.get('policy', { key: 'floor' })).raw).toContain(CANARY);
    const ledger = await s.ledgerText();
    expect(ledger).toContain('policy.version.publish');
    expectNoCanary(CANARY, { ledger, logs: s.logs() });
  });
});
