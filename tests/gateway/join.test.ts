import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactUrl } from '../../gateway/app.js';
import { JOIN_PER_ADDRESS_PER_MINUTE } from '../../domain/people/invitation/accept.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { eventsAfter, expectOk, head } from '../helpers/calls.js';

/** The /join page's server side through app.inject: the page, viewing and accepting an invitation, refusals. */

const CANARY = 'zq-canary-5120';
let s: TestServer;
let n = 0;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

const invite = async (role = 'member') =>
  expectOk('invitation.create', await s.client.rpc('invitation.create', { email: `join.${++n}.${CANARY}@example.com`, role, message: CANARY }));
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
const ORIGIN = { origin: 'http://localhost:80', host: 'localhost:80' };
const post = async (path: string, payload: unknown, headers: Record<string, string> = ORIGIN, remoteAddress = '127.0.0.1') => {
  const res = await s.app.inject({
    method: 'POST',
    url: `/join/api/${path}`,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(payload),
    remoteAddress,
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
};

describe('the /join page', () => {
  it('serves the page with a strict policy and no referrer, and its files', async () => {
    const page = await s.app.inject({ method: 'GET', url: '/join?token=abc' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'self' 'sha256-/);
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.body).toContain('/join/assets/app.js');
    expect((await s.app.inject({ method: 'GET', url: '/join/assets/app.js' })).headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect((await s.app.inject({ method: 'GET', url: '/join/vendor/preact.mjs' })).statusCode).toBe(200);
    expect((await s.app.inject({ method: 'GET', url: '/join/assets/nope.js' })).statusCode).toBe(404);
  });

  it('the token never reaches a log line', () => {
    expect(redactUrl('/join?token=org_a.ivt_b.wjt_secret&x=1')).toBe('/join?token=[Redacted]&x=1');
  });
});

describe('viewing and accepting', () => {
  it('shows the invitation, accepts it once: member active, a key of its role that works; one event by the new member', async () => {
    const r = await invite('approver');
    const token = tokenOf(r.acceptUrl);
    const view = await post('invitation', { token });
    expect(view.status).toBe(200);
    expect(view.headers['cache-control']).toBe('no-store');
    expect(view.body.result).toMatchObject({
      state: 'pending',
      role: 'approver',
      email: r.invitation.email,
      org: { slug: s.org.slug },
      memberName: r.member.name,
    });
    const seq = await head(s.client);
    const accepted = await post('accept', { token });
    expect(accepted.status).toBe(200);
    const a = accepted.body.result;
    expect(a).toMatchObject({ memberId: r.member.id, role: 'approver', org: { slug: s.org.slug } });
    expect(a.apiKey).toMatch(/^wops_/);
    const who = await s.client.get('org/whoami', {}, { key: a.apiKey });
    expect(who.body).toMatchObject({ principal: { id: r.member.id, kind: 'human' }, tier: 'approver', keyId: a.keyId });
    const m = expectOk('member.get', await s.client.rpc('member.get', { memberId: r.member.id }));
    expect(m).toMatchObject({ member: { status: 'active' }, access: { liveKeys: 1 } });
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.actor, e.entity_id])).toEqual([['invitation.invite.accept', r.member.id, r.invitation.id]]);
    expect(events[0].payload).toEqual({ invitationId: r.invitation.id, memberId: r.member.id, role: 'approver', keyId: a.keyId, from: 'invited' });
    expect(JSON.stringify(events)).not.toContain(CANARY);
    expect(JSON.stringify(events)).not.toContain(a.apiKey);
    // Used: the page says so and what to do; the invitation cannot be revoked any more.
    expect((await post('invitation', { token })).body.result.state).toBe('accepted');
    const again = await post('accept', { token });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/^this invitation was already accepted: its key was shown once/);
    expect((await s.client.rpc('invitation.revoke', { invitationId: r.invitation.id })).body.error.message).toMatch(/was accepted/);
  });

  it('a malformed, unknown or tampered token -> NOT_FOUND with one message; an old link after resend too', async () => {
    const r = await invite();
    const token = tokenOf(r.acceptUrl);
    const bad = [undefined, 'x', `${token}x`, token.replace(/wjt_.{4}/, 'wjt_0000'), token.replace(s.org.orgId, 'org_0000000000000000')];
    const messages = new Set<string>();
    for (const t of bad) {
      const res = await post('invitation', { token: t });
      expect(res.status).toBe(404);
      messages.add(res.body.error.message);
    }
    expect([...messages]).toEqual([expect.stringMatching(/^this invitation link is not valid: use the whole link from the newest invitation mail/)]);
    const resent = expectOk('invitation.resend', await s.client.rpc('invitation.resend', { invitationId: r.invitation.id }));
    expect((await post('accept', { token })).status).toBe(404);
    expect((await post('accept', { token: tokenOf(resent.acceptUrl) })).status).toBe(200);
  });

  it('expired and revoked: the page says which; accepting is a CONFLICT saying what to do', async () => {
    const r = await invite();
    await s.runtime.db.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE org_id = $1 AND invitation_id = $2`, [
      s.org.orgId,
      r.invitation.id,
    ]);
    const token = tokenOf(r.acceptUrl);
    expect((await post('invitation', { token })).body.result.state).toBe('expired');
    expect((await post('accept', { token })).body.error.message).toMatch(/^this invitation expired on .+; ask an admin of .+ to resend it/);
    const v = await invite();
    expectOk('invitation.revoke', await s.client.rpc('invitation.revoke', { invitationId: v.invitation.id }));
    expect((await post('invitation', { token: tokenOf(v.acceptUrl) })).body.result.state).toBe('revoked');
    expect((await post('accept', { token: tokenOf(v.acceptUrl) })).body.error.message).toMatch(/^this invitation was withdrawn/);
  });

  it('accepting from another site is refused (Origin check); nothing changes', async () => {
    const r = await invite();
    const token = tokenOf(r.acceptUrl);
    const attempts: Record<string, string>[] = [{}, { origin: 'https://evil.example', host: 'localhost:80' }, { ...ORIGIN, 'sec-fetch-site': 'cross-site' }];
    for (const headers of attempts) {
      const res = await post('accept', { token }, headers);
      expect(res.status).toBe(403);
    }
    expect((await post('invitation', { token })).body.result.state).toBe('pending');
  });

  it(`guesses are limited per address: call ${JOIN_PER_ADDRESS_PER_MINUTE + 1} of a minute -> RATE_LIMITED with Retry-After`, async () => {
    const address = '203.0.113.77';
    for (let i = 0; i < JOIN_PER_ADDRESS_PER_MINUTE; i++) expect((await post('invitation', { token: `guess-${i}` }, ORIGIN, address)).status).toBe(404);
    const limited = await post('invitation', { token: 'guess' }, ORIGIN, address);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await post('invitation', { token: 'guess' }, ORIGIN, '203.0.113.78')).status).toBe(404);
  });
});
