import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../../protocol/scopes.js';
import { freshOrg, TestClient, testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, fileAndApprove, head } from '../../../helpers/calls.js';

/** billing.update, GET /api/v1/org/billing and the seat checks of every access grant (scenario 6's seat half). */

const CANARY = 'zq-canary-4410';
let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

/** A fresh org of its own, so seat counts start from its one admin. */
async function org() {
  const o = await freshOrg(s.runtime, 'bill');
  return new TestClient(s.app, o.adminKey);
}
const usage = async (c: TestClient) => (await c.get('org/billing')).body;
let n = 0;
const email = () => `seat.${++n}@example.com`;

describe('billing.update and GET /org/billing', () => {
  it('no subscription: billing null, no limits; the first update needs seats; the plan must be configured', async () => {
    const c = await org();
    const read = await c.get('org/billing');
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ billing: null, usage: { seats: 1, agentSeats: 0, pendingInvitations: 0 } });
    const seq = await head(c);
    expect((await c.rpc('billing.update', { plan: 'team' })).body.error.message).toBe('seats: required: the org has no subscription yet');
    expect((await c.rpc('billing.update', { plan: 'gold', seats: 5, agentSeats: 5 })).body.error.message).toBe(
      'plan: must be one of the plans this server offers: starter, team, business, enterprise',
    );
    expect((await c.rpc('billing.update', { seats: -1, agentSeats: 1 })).body.error.message).toMatch(/^seats: /);
    expect((await c.rpc('billing.update', { seats: 5, agentSeats: 1, contact: 'nope' })).body.error.message).toMatch(/^contact: must be an email address/);
    expect(await head(c)).toBe(seq);
  });

  it('sets the subscription (one event: figures and field names, never contact or tax id); the same again -> changed:false, noop', async () => {
    const c = await org();
    const seq = await head(c);
    const params = { plan: 'team', cycle: 'annual', seats: 10, agentSeats: 3, contact: `billing.${CANARY}@example.com`, taxId: `DE-${CANARY}` } as const;
    const out = expectOk('billing.update', await c.rpc('billing.update', params));
    expect(out).toMatchObject({ changed: true, billing: { ...params, version: 1 }, usage: { seats: 1, agentSeats: 0 } });
    const same = expectOk('billing.update', await c.rpc('billing.update', { seats: 10 }));
    expect(same).toMatchObject({ changed: false, billing: { version: 1 } });
    const more = expectOk('billing.update', await c.rpc('billing.update', { seats: 12, taxId: null }));
    expect(more).toMatchObject({ changed: true, billing: { seats: 12, taxId: null, contact: params.contact, version: 2 } });
    const events = await eventsAfter(c, seq);
    expect(events.map((e) => [e.kind, e.payload.fields, e.payload.noop])).toEqual([
      ['billing.subscription.update', ['plan', 'cycle', 'seats', 'agentSeats', 'contact', 'taxId'], undefined],
      ['billing.subscription.update', [], true],
      ['billing.subscription.update', ['seats', 'taxId'], undefined],
    ]);
    expect(events[2].payload).toMatchObject({ plan: 'team', cycle: 'annual', seats: 12, agentSeats: 3, version: 2 });
    expect(JSON.stringify(events)).not.toContain(CANARY);
    expect((await c.get('org/billing')).body.billing).toMatchObject({ seats: 12, contact: params.contact });
  });

  it('an agent caller is held (action class billing.update); the retry with the approval runs it', async () => {
    const c = await org();
    const agent = (await c.mint({ scopes: [...SCOPES], principalKind: 'agent' }, 'finance agent')).apiKey;
    const params = { plan: 'business', seats: 20, agentSeats: 5 };
    const held = (await c.rpc('billing.update', params, { key: agent })).body.result;
    expect(held).toMatchObject({ status: 'approval_required', approval: { actionClass: 'billing.update', subject: { kind: 'billing.signature' } } });
    expect((await usage(c)).billing).toBeNull();
    const approvalId = await fileAndApprove(c, held.approval, { requester: agent });
    expect(expectOk('billing.update', await c.rpc('billing.update', { ...params, approvalId }, { key: agent })).billing).toMatchObject(params);
  });
});

describe('seats', () => {
  it('full seats -> invitation CONFLICT; seats below usage -> BAD_REQUEST; a pending invitation holds a seat until revoked', async () => {
    const c = await org();
    expectOk('billing.update', await c.rpc('billing.update', { seats: 2, agentSeats: 1 }));
    const first = expectOk('invitation.create', await c.rpc('invitation.create', { email: email(), role: 'member' }));
    expect((await usage(c)).usage).toEqual({ seats: 2, agentSeats: 0, pendingInvitations: 1 });
    const seq = await head(c);
    const full = (await c.rpc('invitation.create', { email: email(), role: 'member' })).body.error;
    expect(full).toEqual({ code: 'CONFLICT', message: 'email: seats full: 2 of 2 used; raise seats with billing.update or free one' });
    const below = (await c.rpc('billing.update', { seats: 1 })).body.error;
    expect(below.code).toBe('BAD_REQUEST');
    expect(below.message).toMatch(/^seats: 1 is below the 2 seats in use \(1 by pending invitations\)/);
    // Directory-only members use no seat; a minted human key does.
    expectOk('member.create', await c.rpc('member.create', { name: 'Future Hire' }));
    expect((await c.rpc('settings.mintApiKey', { name: 'x', tier: 'viewer' })).body.error.message).toMatch(/^tier: seats full: 2 of 2 used/);
    expect(await head(c)).toBe(seq + 1);
    expectOk('invitation.revoke', await c.rpc('invitation.revoke', { invitationId: first.invitation.id }));
    expect((await usage(c)).usage.seats).toBe(1);
    expectOk('invitation.create', await c.rpc('invitation.create', { email: email(), role: 'member' }));
  });

  it('agent seats: a new agent key and pairing.approve need a free agent seat; a revoked key frees it', async () => {
    const c = await org();
    expectOk('billing.update', await c.rpc('billing.update', { seats: 5, agentSeats: 1 }));
    const agent = await c.mint({ tier: 'agent' }, 'bot one');
    expect((await c.rpc('settings.mintApiKey', { name: 'bot two', tier: 'agent' })).body.error.message).toBe(
      'tier: agent seats full: 1 of 1 used; raise agentSeats with billing.update or free one',
    );
    // A second key for the same agent takes no new seat.
    expectOk('settings.mintApiKey', await c.rpc('settings.mintApiKey', { name: 'bot one b', tier: 'agent', principalId: agent.principal.id }));
    const slug = (await c.get('org/whoami')).body.slug;
    const asked = (await c.rpc('pairing.request', { orgSlug: slug, agentName: 'Paired Bot' })).body.result;
    const refused = (await c.rpc('pairing.approve', { pairingId: asked.pairingId, code: asked.code, tier: 'agent' })).body.error;
    expect(refused.message).toMatch(/^pairingId: agent seats full: 1 of 1 used/);
    const keys = await s.runtime.db.query<{ key_id: string }>('SELECT key_id FROM api_keys WHERE principal_id = $1 AND revoked_at IS NULL', [
      agent.principal.id,
    ]);
    for (const k of keys) expectOk('settings.revokeApiKey', await c.rpc('settings.revokeApiKey', { keyId: k.key_id }));
    expect((await usage(c)).usage.agentSeats).toBe(0);
    expect((await c.rpc('pairing.approve', { pairingId: asked.pairingId, code: asked.code, tier: 'agent' })).body.ok).toBe(true);
  });

  it('two concurrent invitations for the last seat: exactly one wins (the seat lock; PostgreSQL runs them in parallel)', async () => {
    for (let round = 0; round < 4; round++) {
      const c = await org();
      expectOk('billing.update', await c.rpc('billing.update', { seats: 2, agentSeats: 0 }));
      const results = await Promise.all([0, 1, 2].map(() => c.rpc('invitation.create', { email: email(), role: 'member' })));
      expect(results.map((r) => r.body.ok).filter(Boolean)).toHaveLength(1);
      for (const r of results.filter((x) => !x.body.ok)) expect(r.body.error.message).toMatch(/seats full: 2 of 2 used/);
      expect((await usage(c)).usage.seats).toBe(2);
    }
  });
});
