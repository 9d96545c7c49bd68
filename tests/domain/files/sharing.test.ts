import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import { startSink, type Sink } from '../../mail/sink.js';
import { relayConfig } from '../../mail/kit.js';
import { driveOrg, folder, type DriveOrg, upload } from './drive-kit.js';
import { approved, held, mutate, ok, refused } from '../../helpers/calls.js';

/* files.shareGrant / shareRevoke and the guest page GET /share/<token>. */

let o: DriveOrg;
beforeAll(async () => {
  o = await driveOrg();
});
afterAll(() => o.s.close());

const page = (path: string) => o.s.app.inject({ method: 'GET', url: path.replace(/^https?:\/\/[^/]+/, '') });

describe('files.shareGrant and files.shareRevoke', () => {
  it('grants a member a role on a restricted folder (its subtree inherits); granting again changes the role; the same grant is changed:false', async () => {
    const vault = await folder(o.s, o.mia.key, 'Board papers', { restricted: true });
    const doc = await upload(o.s, o.mia.key, 'minutes.txt', 'minutes', { parentId: vault.id });
    await refused(o.s, 'files.get', { fileId: doc.id }, 'NOT_FOUND', { key: o.max.key });
    const { result, event } = await mutate(
      o.s,
      'files.shareGrant',
      { fileId: vault.id, grantee: { principalId: o.max.id }, role: 'viewer' },
      'files.share.grant',
      { key: o.mia.key },
    );
    expect(result).toMatchObject({
      changed: true,
      grant: { fileId: vault.id, granteeKind: 'principal', grantee: o.max.id, role: 'viewer', status: 'active', inherited: false },
    });
    expect(result.guestUrl).toBeUndefined();
    expect(event.payload).toMatchObject({ grantId: result.grant.id, granteeKind: 'principal', grantee: o.max.id, role: 'viewer' });
    const seen = await ok(o.s, 'files.get', { fileId: doc.id }, o.max.key);
    expect(seen.myRole).toBe('viewer');
    expect(seen.grants).toEqual([expect.objectContaining({ id: result.grant.id, inherited: true })]);
    expect(await refused(o.s, 'files.uploadRegister', { fileId: doc.id, contentBase64: 'AA==' }, 'FORBIDDEN_SCOPE', { key: o.max.key })).toContain(
      'missing role editor',
    );

    const up = await mutate(o.s, 'files.shareGrant', { fileId: vault.id, grantee: { principalId: o.max.id }, role: 'editor' }, 'files.share.grant', {
      key: o.mia.key,
    });
    expect(up.result.grant).toMatchObject({ id: result.grant.id, role: 'editor' });
    expect(up.event.payload.previousRole).toBe('viewer');
    const same = await mutate(o.s, 'files.shareGrant', { fileId: vault.id, grantee: { principalId: o.max.id }, role: 'editor' }, 'files.share.grant', {
      key: o.mia.key,
    });
    expect(same.result.changed).toBe(false);
    expect(same.event.payload.noop).toBe(true);
    // Managers share: an editor cannot.
    expect(
      await refused(o.s, 'files.shareGrant', { fileId: vault.id, grantee: { org: true }, role: 'viewer' }, 'FORBIDDEN_SCOPE', { key: o.max.key }),
    ).toContain('missing role manager');

    // An inherited grant is revoked where it is.
    expect(await refused(o.s, 'files.shareRevoke', { fileId: doc.id, grantId: result.grant.id }, 'BAD_REQUEST', { key: o.mia.key })).toContain(vault.id);
    const rev = await mutate(o.s, 'files.shareRevoke', { fileId: vault.id, grantId: result.grant.id }, 'files.share.revoke', { key: o.mia.key });
    expect(rev.result).toMatchObject({ changed: true, grant: { status: 'revoked' } });
    await refused(o.s, 'files.get', { fileId: doc.id }, 'NOT_FOUND', { key: o.max.key });
    expect(
      (await mutate(o.s, 'files.shareRevoke', { fileId: vault.id, grantId: result.grant.id }, 'files.share.revoke', { key: o.mia.key })).result.changed,
    ).toBe(false);
  });

  it('team and org grants reach their members', async () => {
    const team = await ok(o.s, 'team.create', { name: 'Finance' });
    await ok(o.s, 'member.assignTeam', { memberId: o.max.id, teamIds: [team.team.id] });
    const vault = await folder(o.s, o.mia.key, 'Ledger', { restricted: true });
    await ok(o.s, 'files.shareGrant', { fileId: vault.id, grantee: { teamId: team.team.id }, role: 'commenter' }, o.mia.key);
    expect((await ok(o.s, 'files.get', { fileId: vault.id }, o.max.key)).myRole).toBe('commenter');
    const other = await folder(o.s, o.mia.key, 'All hands', { restricted: true });
    await ok(o.s, 'files.shareGrant', { fileId: other.id, grantee: { org: true }, role: 'viewer' }, o.mia.key);
    expect((await ok(o.s, 'files.get', { fileId: other.id }, o.agent.key)).myRole).toBe('viewer');
  });

  it('an email grant: viewer only, a guest link shown once, a read-only page counting views, 404 after revoke', async () => {
    const dir = await folder(o.s, o.mia.key, 'For the auditor', { restricted: true });
    const f = await upload(o.s, o.mia.key, 'balance.csv', 'a,b\n1,2\n', { parentId: dir.id });
    expect(
      await refused(o.s, 'files.shareGrant', { fileId: dir.id, grantee: { email: 'aud@ext.example' }, role: 'editor' }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toContain('role');
    const far = new Date(Date.now() + 91 * 86_400_000).toISOString();
    expect(
      await refused(o.s, 'files.shareGrant', { fileId: dir.id, grantee: { email: 'aud@ext.example' }, role: 'viewer', expiresAt: far }, 'BAD_REQUEST', {
        key: o.mia.key,
      }),
    ).toContain('expiresAt');
    expect(
      await refused(o.s, 'files.shareGrant', { fileId: dir.id, grantee: { email: 'not-an-email' }, role: 'viewer' }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toContain('email');

    const { result, event } = await mutate(
      o.s,
      'files.shareGrant',
      { fileId: dir.id, grantee: { email: 'Aud@Ext.example' }, role: 'viewer' },
      'files.share.grant',
      { key: o.mia.key },
    );
    expect(result.guestUrl).toMatch(/\/share\/org_[0-9a-z]+\.wsh_[0-9a-z]{40}$/);
    expect(result.grant).toMatchObject({ granteeKind: 'email', grantee: 'aud@ext.example', role: 'viewer', views: 0 });
    const days = (Date.parse(result.grant.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(13.9);
    expect(days).toBeLessThan(14.1);
    expect(event.payload.grantee).toBe('ext.example');
    expect(JSON.stringify(event)).not.toMatch(/aud@|wsh_|share\//);
    // Non-managers see the domain only.
    expect((await ok(o.s, 'files.get', { fileId: dir.id }, o.owner.key)).grants[0].grantee).toBe('aud@ext.example');

    const home = await page(result.guestUrl);
    expect(home.statusCode).toBe(200);
    expect(home.headers['content-security-policy']).toContain("default-src 'none'");
    expect(home.headers['referrer-policy']).toBe('no-referrer');
    expect(home.body).toContain('For the auditor');
    expect(home.body).toContain('balance.csv');
    const inner = await page(`${result.guestUrl}/f/${f.id}`);
    expect(inner.statusCode).toBe(200);
    const dl = await page(`${result.guestUrl}/f/${f.id}/download`);
    expect(dl.statusCode).toBe(200);
    expect(dl.body).toBe('a,b\n1,2\n');
    const events = await o.s.runtime.db.query<{ kind: string }>("SELECT kind FROM events WHERE org_id = $1 AND kind = 'files.share.download'", [o.s.org.orgId]);
    expect(events.length).toBe(1);
    // Outside the grant: another file, a forged token.
    const elsewhere = await upload(o.s, o.mia.key, 'elsewhere.txt', 'no');
    expect((await page(`${result.guestUrl}/f/${elsewhere.id}`)).statusCode).toBe(404);
    expect((await page(result.guestUrl.replace(/.{4}$/, 'zzzz'))).statusCode).toBe(404);
    const views = (await ok(o.s, 'files.get', { fileId: dir.id }, o.mia.key)).grants[0].views;
    expect(views).toBe(2);

    await ok(o.s, 'files.shareRevoke', { fileId: dir.id, grantId: result.grant.id }, o.mia.key);
    expect((await page(result.guestUrl)).statusCode).toBe(404);
    expect((await page(`${result.guestUrl}/f/${f.id}/download`)).statusCode).toBe(404);
  });

  it('an agent’s email share holds; after approval the retry grants it', async () => {
    const f = await upload(o.s, o.agent.key, 'brochure.txt', 'brochure');
    const params = { fileId: f.id, grantee: { email: 'client@outside.example' }, role: 'viewer' };
    const approval = await held(o.s, 'files.shareGrant', params, { key: o.agent.key, holdKind: 'files.signature.hold' });
    expect(approval.actionClass).toBe('files.share_grant');
    expect(approval.subject.summary).toContain('outside.example');
    expect(approval.subject.summary).not.toContain('client@');
    const approvalId = await approved(o.s, approval, o.agent.key, o.owner.key);
    const { result } = await mutate(o.s, 'files.shareGrant', { ...params, approvalId }, 'files.share.grant', { key: o.agent.key });
    expect(result.guestUrl).toContain('/share/');
    // A member grant by an agent does not hold (it stays inside the org).
    await mutate(o.s, 'files.shareGrant', { fileId: f.id, grantee: { principalId: o.max.id }, role: 'viewer' }, 'files.share.grant', { key: o.agent.key });
  });

  it('refuses unknown grantees and grants, and bad input', async () => {
    const f = await upload(o.s, o.mia.key, 'g.txt', 'g');
    expect(
      await refused(o.s, 'files.shareGrant', { fileId: f.id, grantee: { principalId: 'usr_nobody' }, role: 'viewer' }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toContain('principalId');
    expect(
      await refused(o.s, 'files.shareGrant', { fileId: f.id, grantee: { teamId: 'team_nobody' }, role: 'viewer' }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toContain('teamId');
    expect(await refused(o.s, 'files.shareGrant', { fileId: f.id, grantee: {}, role: 'viewer' }, 'BAD_REQUEST', { key: o.mia.key })).toContain('grantee');
    expect(await refused(o.s, 'files.shareGrant', { fileId: f.id, grantee: { org: true }, role: 'owner' }, 'BAD_REQUEST', { key: o.mia.key })).toContain(
      'role',
    );
    expect(
      await refused(o.s, 'files.shareGrant', { fileId: f.id, grantee: { org: true }, role: 'viewer', expiresAt: '2001-01-01T00:00:00Z' }, 'BAD_REQUEST', {
        key: o.mia.key,
      }),
    ).toContain('expiresAt');
    expect(
      await refused(o.s, 'files.shareGrant', { fileId: f.id, grantee: { org: true }, role: 'viewer', notify: true }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toContain('notify');
    await refused(o.s, 'files.shareRevoke', { fileId: f.id, grantId: 'shr_nothere' }, 'NOT_FOUND', { key: o.mia.key });
  });
});

describe('notify: the guest link by mail, after commit', () => {
  let sink: Sink;
  let m: DriveOrg;
  beforeAll(async () => {
    sink = await startSink();
    m = await driveOrg({ mail: relayConfig(sink.url), config: { publicUrl: 'https://ops.example.test' } });
  });
  afterAll(async () => {
    await m?.s.close();
    await sink?.close();
  });

  it('mails the link to the outside address; the link in the mail opens the page', async () => {
    const f = await upload(m.s, m.mia.key, 'Price list.txt', 'prices');
    const r = await ok(m.s, 'files.shareGrant', { fileId: f.id, grantee: { email: 'buyer@client.example' }, role: 'viewer', notify: true }, m.mia.key);
    let raw: Buffer | string | undefined;
    for (let i = 0; i < 100 && !raw; i++) {
      raw = sink.received.find((x) => x.to.includes('buyer@client.example'))?.raw;
      if (!raw) await new Promise((res) => setTimeout(res, 50));
    }
    const mail = await simpleParser(raw!);
    expect(mail.subject).toContain('Price list.txt');
    const link = /https:\/\/ops\.example\.test\/share\/\S+/.exec(mail.text ?? '')?.[0];
    expect(link).toBe(r.guestUrl);
    const res = await m.s.app.inject({ method: 'GET', url: new URL(link!).pathname });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('Price list.txt');
  });
});
