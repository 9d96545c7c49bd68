import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../../helpers/harness.js';

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

// Its own address: pairing.request is limited per address, in the database other test files may share.
const FROM = `10.${randomBytes(3).join('.')}`;

/** pairing.request runs before any credential exists: no Authorization header at all. */
async function anonymous(params: unknown) {
  const res = await s.app.inject({ method: 'POST', url: '/api/v1/pairing.request', payload: { params }, remoteAddress: FROM });
  return { status: res.statusCode, body: res.json() };
}

describe('pairing handshake', () => {
  it('request (no credential) -> admin approves with the code -> poll delivers a working agent key once', async () => {
    const first = await anonymous({ orgSlug: s.org.slug, agentName: 'invoice bot' });
    expect(first.status).toBe(200);
    const p = first.body.result;
    expect(p).toMatchObject({ status: 'pending', pairingId: expect.stringMatching(/^pair_/), code: expect.stringMatching(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/) });

    const pending = await anonymous({ orgSlug: s.org.slug, pairingId: p.pairingId, pollSecret: p.pollSecret });
    expect(pending.body.result.status).toBe('pending');
    expect(pending.body.result.apiKey).toBeUndefined();

    const wrongCode = await s.client.rpc('pairing.approve', { pairingId: p.pairingId, code: 'AAAA-AAAA' });
    expect(wrongCode.body.error.code).toBe('CONFLICT');
    const approved = await s.client.ok('pairing.approve', { pairingId: p.pairingId, code: p.code });
    expect(approved).toMatchObject({ status: 'approved', tier: 'agent', agentId: expect.stringMatching(/^agt_/) });

    const claimed = (await anonymous({ orgSlug: s.org.slug, pairingId: p.pairingId, pollSecret: p.pollSecret })).body.result;
    expect(claimed).toMatchObject({ status: 'claimed', agentId: approved.agentId, apiKey: expect.stringMatching(/^wops_/) });
    const who = await s.client.get('org/whoami', {}, { key: claimed.apiKey });
    expect(who.body).toMatchObject({ orgId: s.org.orgId, principal: { kind: 'agent', id: approved.agentId, name: 'invoice bot' }, tier: 'agent' });

    const twice = await anonymous({ orgSlug: s.org.slug, pairingId: p.pairingId, pollSecret: p.pollSecret });
    expect(twice.body.error.code).toBe('CONFLICT');

    // Each change of state appended one event (the poll that found it pending appended none); the pre-auth ones
    // with the system actor.
    const events = (await s.client.get('events', { cursor: 0, limit: 500 })).body.events.filter((e: { family: string }) => e.family === 'pairing');
    expect(events.map((e: { kind: string }) => e.kind)).toEqual(['pairing.request.create', 'pairing.request.approve', 'pairing.request.claim']);
    expect(events[0].actor).toBe('');
  });

  it('a wrong poll secret learns nothing (NOT_FOUND) and appends nothing', async () => {
    const p = (await anonymous({ orgSlug: s.org.slug, agentName: 'x' })).body.result;
    const seq = (await s.client.get('snapshot')).body.head.seq;
    expect((await anonymous({ orgSlug: s.org.slug, pairingId: p.pairingId, pollSecret: 'pps_wrong' })).status).toBe(404);
    expect((await s.client.get('snapshot')).body.head.seq).toBe(seq);
  });

  it('validates the two call shapes by field', async () => {
    expect((await anonymous({ orgSlug: s.org.slug })).body.error).toEqual({ code: 'BAD_REQUEST', message: 'agentName: required on the first call' });
    expect((await anonymous({ orgSlug: s.org.slug, pairingId: 'pair_abc' })).body.error).toEqual({
      code: 'BAD_REQUEST',
      message: 'pollSecret: required when polling (give pairingId and pollSecret)',
    });
  });

  it('pairing.approve needs admin', async () => {
    const agent = await s.client.mint({ tier: 'agent' });
    const res = await s.client.rpc('pairing.approve', { pairingId: 'pair_abc', code: 'AAAA-AAAA' }, { key: agent.apiKey });
    expect(res.body.error).toEqual({ code: 'FORBIDDEN_SCOPE', message: 'missing scope admin for pairing.approve' });
  });
});
