import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../../../protocol/scopes.js';
import { revokeInvitationsOf } from '../../../../domain/people/invitation/index.js';
import { one } from '../../../../db/types.js';
import { testServer, type TestClient, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, fileAndApprove, head, otherOrg } from '../../../helpers/calls.js';

/** invitation.create / resend / revoke (acceptance is the /join page: tests/gateway/join.test.ts). */

const CANARY = 'zq-canary-7731';
let s: TestServer;
let other: TestClient;
let agentAdmin: string;
let reader: string;
let n = 0;
beforeAll(async () => {
  s = await testServer();
  other = await otherOrg(s);
  agentAdmin = (await s.client.mint({ scopes: [...SCOPES], principalKind: 'agent' }, 'ops agent')).apiKey;
  reader = (await s.client.mint({ tier: 'reader' }, 'reader')).apiKey;
});
afterAll(() => s.close());

const email = (label: string) => `${label}.${CANARY}.${++n}@example.com`;
const invite = async (params: Record<string, unknown>, opts: { key?: string; idem?: string } = {}) =>
  expectOk('invitation.create', await s.client.rpc('invitation.create', { role: 'member', message: `Hello ${CANARY}`, ...params }, opts));
const err = async (method: string, params: unknown, key?: string) => (await s.client.rpc(method, params, { key })).body.error;
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
const hashOf = async (invitationId: string) =>
  one(
    await s.runtime.db.query<{ token_hash: string }>('SELECT token_hash FROM invitations WHERE org_id = $1 AND invitation_id = $2', [
      s.org.orgId,
      invitationId,
    ]),
  ).token_hash;

describe('invitation.create', () => {
  it('makes an invited member, returns the link once, stores only the hash; one event with ids only', async () => {
    const before = await head(s.client);
    const to = email('dan.ortega');
    const r = await invite({ email: to, role: 'approver', name: `Dan ${CANARY}`, title: undefined });
    expect(r.changed).toBe(true);
    expect(r.member).toMatchObject({ kind: 'human', status: 'invited', email: to, name: `Dan ${CANARY}` });
    expect(r.invitation).toMatchObject({ memberId: r.member.id, email: to, role: 'approver', status: 'pending', sends: 1 });
    expect(Date.parse(r.invitation.expiresAt) - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    const token = tokenOf(r.acceptUrl);
    expect(r.acceptUrl.startsWith('http://localhost:8080/join?token=')).toBe(true);
    expect(token.startsWith(`${s.org.orgId}.${r.invitation.id}.wjt_`)).toBe(true);
    const stored = await hashOf(r.invitation.id);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(stored).not.toContain(token.split('.')[2]);
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => e.kind)).toEqual(['invitation.invite.create']);
    expect(events[0].payload).toEqual({ invitationId: r.invitation.id, memberId: r.member.id, role: 'approver', createdMember: true, memberStatus: 'invited' });
    expect(JSON.stringify(events)).not.toContain(CANARY);
    expect(JSON.stringify(events)).not.toContain(token.split('.')[2]);
    // The new member's name comes from the address when none is given.
    expect((await invite({ email: `ana.maria-lopez@${CANARY}.example.com` })).member.name).toBe('Ana Maria Lopez');
  });

  it('is idempotent: the same key replays the same frame and appends nothing; another key of the caller gets the link withheld', async () => {
    const params = { email: email('replay'), role: 'viewer' };
    const first = await s.client.rpc('invitation.create', params, { idem: 'ivt-replay-1' });
    const seq = await head(s.client);
    const again = await s.client.rpc('invitation.create', params, { idem: 'ivt-replay-1' });
    expect(again.raw).toBe(first.raw);
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(await head(s.client)).toBe(seq);
    // The stored frame never holds the link in clear.
    const rows = await s.runtime.db.query<{ frame: string }>(`SELECT frame FROM idempotency WHERE org_id = $1 AND key = 'ivt-replay-1'`, [s.org.orgId]);
    expect(rows).toHaveLength(1);
    expect(one(rows).frame).not.toContain(tokenOf(first.body.result.acceptUrl));
    expect(JSON.parse(one(rows).frame).result).toMatchObject({ acceptUrl: null, secretWithheld: expect.stringMatching(/invitation\.resend/) });
  });

  it('a second invitation to a pending address, a member with access, an agent -> refused naming it; nothing appended', async () => {
    const to = email('twice');
    const first = await invite({ email: to });
    const seq = await head(s.client);
    const again = await err('invitation.create', { email: to.toUpperCase(), role: 'member' });
    expect(again.code).toBe('CONFLICT');
    expect(again.message).toMatch(
      new RegExp(`^email: invitation ${first.invitation.id} to this address is pending until .+; resend it \\(invitation.resend\\) or revoke it first$`),
    );
    const who = (await s.client.get('org/whoami')).body.principal.id;
    const me = expectOk('member.get', await s.client.rpc('member.get', { memberId: who })).member;
    const withAccess = await err('invitation.create', { email: me.email ?? email('me'), memberId: who, role: 'member' });
    expect(withAccess.code).toBe('CONFLICT');
    expect(withAccess.message).toMatch(new RegExp(`^memberId: member ${who} already has access`));
    const agentId = (await s.client.get('org/whoami', {}, { key: agentAdmin })).body.principal.id;
    expect((await err('invitation.create', { email: email('agent'), memberId: agentId, role: 'member' })).message).toMatch(/^memberId: agt_\w+ is an agent/);
    expect((await err('invitation.create', { email: 'not-mail', role: 'member' })).message).toMatch(/^email: /);
    expect((await err('invitation.create', { email: email('x'), role: 'owner' })).message).toMatch(/^role: /);
    expect((await err('invitation.create', { email: email('x'), role: 'member', colour: 1 })).message).toMatch(/^colour: unknown field/);
    expect((await err('invitation.create', { email: email('x'), role: 'member' }, reader)).code).toBe('FORBIDDEN_SCOPE');
    expect((await err('invitation.create', { email: email('x'), role: 'member', managerId: 'usr_nobody' })).message).toBe(
      'managerId: no member usr_nobody in this org',
    );
    expect(await head(s.client)).toBe(seq);
  });

  it('links a directory-only member (by memberId or by its address), keeping it active until it accepts', async () => {
    const to = email('directory');
    const m = expectOk('member.create', await s.client.rpc('member.create', { name: 'Directory Only', email: to })).member;
    const byAddress = await invite({ email: to, role: 'viewer' });
    expect(byAddress.member).toMatchObject({ id: m.id, status: 'active' });
    expect(byAddress.invitation.memberId).toBe(m.id);
    const m2 = expectOk('member.create', await s.client.rpc('member.create', { name: 'No Mail Yet' })).member;
    const byId = await invite({ email: email('nomail'), memberId: m2.id });
    expect(byId.member.email).toBe(byId.invitation.email);
    const mismatch = await err('invitation.create', { email: email('mismatch'), memberId: m.id, role: 'member' });
    expect(mismatch.message).toMatch(/^email: member usr_\w+ has another email address/);
  });

  it('an agent caller is held (action class invitation.create); the retry with the approval runs it once', async () => {
    const params = { email: email('held'), role: 'member' };
    const before = await head(s.client);
    const held = (await s.client.rpc('invitation.create', params, { key: agentAdmin })).body.result;
    expect(held).toMatchObject({ status: 'approval_required', approval: { actionClass: 'invitation.create', subject: { kind: 'invitation.signature' } } });
    const events = await eventsAfter(s.client, before);
    expect(events.map((e) => e.kind)).toEqual(['invitation.signature.hold']);
    expect(JSON.stringify(events)).not.toContain(CANARY);
    const approvalId = await fileAndApprove(s.client, held.approval, { requester: agentAdmin });
    const done = expectOk('invitation.create', await s.client.rpc('invitation.create', { ...params, approvalId }, { key: agentAdmin }));
    expect(done.invitation).toMatchObject({ status: 'pending', email: params.email });
  });
});

describe('invitation.resend and revoke', () => {
  it('resend: a new link (the old hash is gone), a new expiry, one more send; never a no-op; more than 5 a day -> RATE_LIMITED', async () => {
    const r = await invite({ email: email('resend') });
    await s.runtime.db.query(`UPDATE invitations SET expires_at = now() - interval '1 minute' WHERE org_id = $1 AND invitation_id = $2`, [
      s.org.orgId,
      r.invitation.id,
    ]);
    const oldHash = await hashOf(r.invitation.id);
    const seq = await head(s.client);
    const again = expectOk('invitation.resend', await s.client.rpc('invitation.resend', { invitationId: r.invitation.id }));
    expect(again).toMatchObject({ changed: true, invitation: { status: 'pending', sends: 2 } });
    expect(tokenOf(again.acceptUrl)).not.toBe(tokenOf(r.acceptUrl));
    expect(await hashOf(r.invitation.id)).not.toBe(oldHash);
    const events = await eventsAfter(s.client, seq);
    expect(events.map((e) => [e.kind, e.payload.sends, e.payload.wasExpired])).toEqual([['invitation.invite.resend', 2, true]]);
    expect(JSON.stringify(events)).not.toContain(CANARY);
    for (let i = 0; i < 4; i++) expectOk('invitation.resend', await s.client.rpc('invitation.resend', { invitationId: r.invitation.id }));
    const limited = await s.client.rpc('invitation.resend', { invitationId: r.invitation.id });
    expect(limited.status).toBe(429);
    expect(limited.body.error.message).toMatch(/was resent 5 times in 24 hours; retry in \d+ seconds/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(80_000);
  });

  it('revoke: the member it made is archived and its address let go (the person can be invited again); again -> changed:false', async () => {
    const to = email('revoke');
    const r = await invite({ email: to });
    const seq = await head(s.client);
    const out = expectOk('invitation.revoke', await s.client.rpc('invitation.revoke', { invitationId: r.invitation.id }));
    expect(out).toMatchObject({ changed: true, invitation: { status: 'revoked' } });
    const m = expectOk('member.get', await s.client.rpc('member.get', { memberId: r.member.id })).member;
    expect(m).toMatchObject({ status: 'archived', email: null });
    const noop = expectOk('invitation.revoke', await s.client.rpc('invitation.revoke', { invitationId: r.invitation.id }));
    expect(noop.changed).toBe(false);
    expect((await eventsAfter(s.client, seq)).map((e) => [e.kind, e.payload.memberArchived, e.payload.noop])).toEqual([
      ['invitation.invite.revoke', true, undefined],
      ['invitation.invite.revoke', undefined, true],
    ]);
    expect((await err('invitation.resend', { invitationId: r.invitation.id })).message).toMatch(/was revoked; create a new one/);
    const again = await invite({ email: to });
    expect(again.member.id).not.toBe(r.member.id);
  });

  it('revoking a link to an existing member leaves that member as it was', async () => {
    const m = expectOk('member.create', await s.client.rpc('member.create', { name: 'Stays', email: email('stays') })).member;
    const r = await invite({ email: m.email, memberId: m.id });
    expectOk('invitation.revoke', await s.client.rpc('invitation.revoke', { invitationId: r.invitation.id }));
    expect(expectOk('member.get', await s.client.rpc('member.get', { memberId: m.id })).member).toMatchObject({ status: 'active', email: m.email });
  });

  it("revokeInvitationsOf revokes a member's pending invitations and counts them", async () => {
    const r = await invite({ email: email('bulk') });
    expect(await s.runtime.db.tx((q) => revokeInvitationsOf(q, s.org.orgId, r.member.id))).toBe(1);
    expect(await s.runtime.db.tx((q) => revokeInvitationsOf(q, s.org.orgId, r.member.id))).toBe(0);
  });

  it("another org's or an unknown invitation -> NOT_FOUND", async () => {
    const foreign = expectOk('invitation.create', await other.rpc('invitation.create', { email: email('foreign'), role: 'member' }));
    for (const id of [foreign.invitation.id, 'ivt_unknown1']) {
      expect((await err('invitation.resend', { invitationId: id })).code).toBe('NOT_FOUND');
      expect((await err('invitation.revoke', { invitationId: id })).code).toBe('NOT_FOUND');
    }
  });
});
