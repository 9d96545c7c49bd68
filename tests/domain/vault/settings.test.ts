import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileAndApprove, held, mutate, noop, otherOrg, read, refused } from '../../helpers/calls.js';
import { paramsHash } from '../../../ledger/idempotency.js';
import { settingsSecrets } from '../../../protocol/methods/credential.js';
import { vaultOrg, type VaultOrg } from './kit.js';

/*
 * The settings family's secret methods over the same vault: upsertSecret (create needs a value; without one only
 * the policy changes), deleteSecret (confirmName, crypto-shredding, an agent holds for a human) and
 * recordSecretRotation (restarts the clock; a value adds a version and makes older leases stale).
 */

let v: VaultOrg;
beforeAll(async () => {
  v = await vaultOrg();
});
afterAll(() => v.close());

describe('settings.upsertSecret', () => {
  it('creates with a value, changes only the policy without one, and the same again is changed:false', async () => {
    await refused(v.s, 'settings.upsertSecret', { name: 'up.none' }, 'BAD_REQUEST', { message: /^value: required to create a secret/ });
    const { result } = await mutate(v.s, 'settings.upsertSecret', { name: 'up.one', value: 'u1' }, 'settings.secret.put', { idem: 'up-1' });
    expect(result).toMatchObject({ created: true, version: 1 });
    const policy = await mutate(v.s, 'settings.upsertSecret', { credentialId: result.credential.id, name: 'up.one', leasableBy: ['*'] }, 'settings.secret.put');
    expect(policy.result).toMatchObject({ created: false, changed: true, version: 1, credential: { leasableBy: ['*'] } });
    await noop(v.s, 'settings.upsertSecret', { name: 'up.one', value: 'u1' }, 'settings.secret.put');
    const other = (await v.s.client.ok('settings.upsertSecret', { name: 'up.two', value: 'u2' })).credential.id;
    await refused(v.s, 'settings.upsertSecret', { credentialId: other, name: 'up.one' }, 'CONFLICT', { message: /the name up.one is taken/ });
    await refused(v.s, 'settings.upsertSecret', { credentialId: 'cred_unknown000000000', name: 'up.x' }, 'NOT_FOUND');
    await refused(v.s, 'settings.upsertSecret', { name: 'up.x', value: 'x' }, 'FORBIDDEN_SCOPE', { key: v.agent.key, message: /^missing scope admin/ });
  });
});

describe('idempotency rows of a secret-carrying method', () => {
  it('keep an HMAC of the params under the instance secret, not a plain hash a short value could be guessed from', async () => {
    const params = { name: 'up.hashed', value: 'pin-1234' };
    const first = await v.s.client.rpc('settings.upsertSecret', params, { idem: 'up-hashed' });
    const again = await v.s.client.rpc('settings.upsertSecret', params, { idem: 'up-hashed' });
    expect(again.body).toEqual(first.body);
    const [row] = await v.s.runtime.db.query<{ params_hash: string }>(
      `SELECT params_hash FROM idempotency WHERE org_id = $1 AND method = 'settings.upsertSecret' AND key = 'up-hashed'`,
      [v.s.org.orgId],
    );
    const validated = settingsSecrets.upsertSecret.params.parse(params);
    expect(row!.params_hash).toBe(paramsHash(validated, [], v.s.runtime.deps.signingKey));
    expect(row!.params_hash).not.toBe(paramsHash(validated));
  });
});

describe('settings.recordSecretRotation', () => {
  it('restarts the clock; a new value makes older leases stale', async () => {
    const { credential } = await v.s.client.ok('credential.put', { name: 'rot.one', value: 'r1', leasableBy: [v.agent.id], rotationPeriodDays: 1 });
    await v.s.client.ok('credential.lease', { name: 'rot.one', purpose: 'before' }, { key: v.agent.key });
    const { result, event } = await mutate(
      v.s,
      'settings.recordSecretRotation',
      { credentialId: credential.id, value: 'r2', rotatedAt: new Date(Date.now() - 3 * 86_400_000).toISOString() },
      'settings.secret.rotate',
    );
    expect(result).toMatchObject({ version: 2, changed: true, credential: { overdue: true } });
    expect(event.payload).toMatchObject({ credentialId: credential.id, version: 2, newVersion: true });
    const listed = await read(v.s, 'credential.list', { prefix: 'rot.' });
    expect(listed.credentials[0].leases.map((l: any) => l.status)).toEqual(['stale']);
    const now = await mutate(v.s, 'settings.recordSecretRotation', { credentialId: credential.id }, 'settings.secret.rotate');
    expect(now.result.credential.overdue).toBe(false);
    await refused(v.s, 'settings.recordSecretRotation', { credentialId: credential.id, rotatedAt: '2999-01-01T00:00:00Z' }, 'BAD_REQUEST', {
      message: /^rotatedAt: must not be in the future/,
    });
    await refused(v.s, 'settings.recordSecretRotation', { credentialId: credential.id, rotatedAt: 'yesterday' }, 'BAD_REQUEST', { message: /^rotatedAt: / });
    await refused(await otherOrg(v.s), 'settings.recordSecretRotation', { credentialId: credential.id }, 'NOT_FOUND');
  });
});

describe('settings.deleteSecret', () => {
  it('crypto-shreds: values and data keys gone, metadata kept, leases revoked; again: changed:false', async () => {
    const { credential } = await v.s.client.ok('credential.put', { name: 'del.one', value: 'gone soon', leasableBy: [v.agent.id] });
    await v.s.client.ok('credential.put', { name: 'del.one', value: 'gone soon 2' });
    await v.s.client.ok('credential.lease', { name: 'del.one', purpose: 'p' }, { key: v.agent.key });
    await refused(v.s, 'settings.deleteSecret', { credentialId: credential.id, confirmName: 'del.other' }, 'BAD_REQUEST', { message: /^confirmName: / });
    const { result, event } = await mutate(v.s, 'settings.deleteSecret', { credentialId: credential.id, confirmName: 'del.one' }, 'settings.secret.destroy');
    expect(result).toMatchObject({ versionsDestroyed: 2, leasesRevoked: 1, changed: true, credential: { state: 'destroyed', version: 0, versionsKept: 0 } });
    expect(event.payload).toMatchObject({ credentialId: credential.id, versions: 2, leasesRevoked: 1 });
    const rows = await v.s.runtime.db.query<{ n: number; kept: number }>(
      'SELECT count(*)::int AS n, count(sealed)::int + count(wrapped_dek)::int AS kept FROM credential_versions WHERE org_id = $1 AND credential_id = $2',
      [v.s.org.orgId, credential.id],
    );
    expect(rows[0]).toEqual({ n: 2, kept: 0 });
    await noop(v.s, 'settings.deleteSecret', { credentialId: credential.id, confirmName: 'del.one' }, 'settings.secret.destroy');
    await refused(v.s, 'credential.lease', { name: 'del.one', purpose: 'p' }, 'CONFLICT', { key: v.agent.key, message: /is destroyed/ });
    await refused(v.s, 'credential.put', { name: 'del.one', value: 'again' }, 'CONFLICT', { message: /destroyed for good and keeps its name/ });
  });

  it('an agent with admin holds for a human; an agent without admin is FORBIDDEN_SCOPE', async () => {
    const { credential } = await v.s.client.ok('credential.put', { name: 'del.agent', value: 'x' });
    const params = { credentialId: credential.id, confirmName: 'del.agent' };
    await refused(v.s, 'settings.deleteSecret', params, 'FORBIDDEN_SCOPE', { key: v.agent.key, message: /^missing scope admin/ });
    const approval = await held(v.s, 'settings.deleteSecret', params, { key: v.adminAgent.key, holdKind: 'settings.signature.hold' });
    expect(approval.actionClass).toBe('settings.delete_secret');
    const approvalId = await fileAndApprove(v.s, approval, { requester: v.adminAgent.key });
    await mutate(v.s, 'settings.deleteSecret', { ...params, approvalId }, 'settings.secret.destroy', { key: v.adminAgent.key });
  });
});
