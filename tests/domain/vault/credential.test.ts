import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileAndApprove, held, mutate, noop, otherOrg, read, refused, rpc } from '../../helpers/calls.js';
import { newTask } from '../../helpers/tasks.js';
import { vaultOrg, type VaultOrg } from './kit.js';

/*
 * credential.put, lease, list, revoke: a value is written once per change, leased only by those granted it (others
 * cannot tell it exists), a break-glass secret holds for a human every time, and each misuse is refused naming
 * what is wrong, writing nothing.
 */

let v: VaultOrg;
beforeAll(async () => {
  v = await vaultOrg();
});
afterAll(() => v.close());

const put = (params: object) => mutate(v.s, 'credential.put', params, 'credential.secret.put');

describe('credential.put', () => {
  it('creates, adds a version for a new value, writes nothing for the same value, re-enables', async () => {
    const first = (await put({ name: 'put.one', value: 'v1', leasableBy: [v.agent.id] })).result;
    expect(first).toMatchObject({ created: true, changed: true, version: 1 });
    expect(first.credential).toMatchObject({ name: 'put.one', state: 'active', leasableBy: [v.agent.id], defaultTtlSeconds: 900, versionsKept: 1 });
    const same = await noop(v.s, 'credential.put', { name: 'put.one', value: 'v1', leasableBy: [v.agent.id] }, 'credential.secret.put');
    expect(same.version).toBe(1);
    const second = (await put({ name: 'put.one', value: 'v2' })).result;
    expect(second).toMatchObject({ created: false, changed: true, version: 2 });
    await mutate(v.s, 'credential.revoke', { credentialId: first.credential.id, disable: true }, 'credential.lease.revoke');
    const again = (await put({ name: 'put.one', value: 'v2' })).result;
    expect(again).toMatchObject({ changed: true, version: 2 });
    expect(again.credential.state).toBe('active');
  });

  it('keeps ten sealed versions', async () => {
    for (let i = 1; i <= 12; i++) await v.s.client.ok('credential.put', { name: 'put.many', value: `value ${i}` });
    const listed = await read(v.s, 'credential.list', { prefix: 'put.many' });
    expect(listed.credentials[0]).toMatchObject({ version: 12, versionsKept: 10 });
  });

  it('refuses a 65 KiB value, a bad name, an unknown field, a TTL out of range, naming the field; an agent is FORBIDDEN_SCOPE', async () => {
    await refused(v.s, 'credential.put', { name: 'big', value: 'x'.repeat(65 * 1024) }, 'BAD_REQUEST', { message: /^value: must be at most 65536 bytes/ });
    await refused(v.s, 'credential.put', { name: ' bad', value: 'x' }, 'BAD_REQUEST', { message: /^name: / });
    await refused(v.s, 'credential.put', { name: 'ok', value: 'x', colour: 'red' }, 'BAD_REQUEST', { message: /^colour: unknown field/ });
    await refused(v.s, 'credential.put', { name: 'ok', value: 'x', defaultTtlSeconds: 5 }, 'BAD_REQUEST', { message: /^defaultTtlSeconds: must be >= 30/ });
    await refused(v.s, 'credential.put', { name: 'ok', value: 'x', defaultTtlSeconds: 600, maxTtlSeconds: 300 }, 'BAD_REQUEST', {
      message: /^defaultTtlSeconds: must be at most maxTtlSeconds/,
    });
    await refused(v.s, 'credential.put', { name: 'ok', value: 'x' }, 'FORBIDDEN_SCOPE', { key: v.agent.key, message: /^missing scope admin/ });
  });
});

describe('credential.lease', () => {
  it('answers the value to a granted caller with a lease; NOT_FOUND to anyone else, as for an unknown name', async () => {
    const { credential } = (await put({ name: 'lease.one', value: 's3cret-lease', leasableBy: [v.agent.id], defaultTtlSeconds: 60 })).result;
    const { result, event } = await mutate(v.s, 'credential.lease', { name: 'lease.one', purpose: 'deploy' }, 'credential.lease.issue', { key: v.agent.key });
    expect(result.value).toBe('s3cret-lease');
    expect(result.lease).toMatchObject({ credentialId: credential.id, version: 1, principalId: v.agent.id, status: 'active', purpose: 'deploy' });
    expect(event.payload).toEqual({ leaseId: result.lease.id, credentialId: credential.id, version: 1, ttlSeconds: 60, approvalId: null });
    const hidden = await refused(v.s, 'credential.lease', { name: 'lease.one', purpose: 'x' }, 'NOT_FOUND', { key: v.other.key });
    const unknown = await refused(v.s, 'credential.lease', { name: 'lease.nothing', purpose: 'x' }, 'NOT_FOUND', { key: v.other.key });
    expect(hidden.replace('lease.one', '?')).toBe(unknown.replace('lease.nothing', '?'));
    const elsewhere = await otherOrg(v.s);
    await refused(elsewhere, 'credential.lease', { credentialId: credential.id, purpose: 'x' }, 'NOT_FOUND');
  });

  it('records a taskId of this org; an unknown or another org’s task is NOT_FOUND taskId and leases nothing', async () => {
    await put({ name: 'lease.task', value: 'task-bound', leasableBy: [v.agent.id] });
    const taskId = (await newTask(v.s)).id as string;
    const { result } = await mutate(v.s, 'credential.lease', { name: 'lease.task', purpose: 'deploy', taskId }, 'credential.lease.issue', { key: v.agent.key });
    expect(result.lease.taskId).toBe(taskId);
    const theirs = (await newTask(await otherOrg(v.s))).id as string;
    for (const id of ['task_nosuch', theirs]) {
      const refusal = await refused(v.s, 'credential.lease', { name: 'lease.task', purpose: 'deploy', taskId: id }, 'NOT_FOUND', {
        key: v.agent.key,
        message: /^taskId: task \S+ not found in this organisation/,
      });
      expect(JSON.stringify(refusal)).not.toContain('task-bound');
    }
  });

  it('is never cached: the same call with an idempotency key leases again and stores no frame', async () => {
    await put({ name: 'lease.twice', value: 'twice-value', leasableBy: ['*'] });
    const a = await rpc(v.s, 'credential.lease', { name: 'lease.twice', purpose: 'p' }, v.agent.key, 'same-key');
    const b = await rpc(v.s, 'credential.lease', { name: 'lease.twice', purpose: 'p' }, v.agent.key, 'same-key');
    expect(a.body.result.lease.id).not.toBe(b.body.result.lease.id);
    const rows = await v.s.runtime.db.query(`SELECT * FROM idempotency WHERE org_id = $1 AND method = 'credential.lease'`, [v.s.org.orgId]);
    expect(rows).toEqual([]);
  });

  it('disabled: CONFLICT; a TTL over the secret’s maximum: BAD_REQUEST; both or neither of credentialId and name: BAD_REQUEST', async () => {
    const { credential } = (await put({ name: 'lease.off', value: 'off', leasableBy: ['*'], maxTtlSeconds: 120, defaultTtlSeconds: 60 })).result;
    await refused(v.s, 'credential.lease', { name: 'lease.off', purpose: 'p', ttlSeconds: 600 }, 'BAD_REQUEST', {
      key: v.agent.key,
      message: /^ttlSeconds: must be at most 120/,
    });
    await refused(v.s, 'credential.lease', { purpose: 'p' }, 'BAD_REQUEST', { key: v.agent.key, message: /^credentialId: give exactly one/ });
    await refused(v.s, 'credential.lease', { name: 'lease.off', credentialId: credential.id, purpose: 'p' }, 'BAD_REQUEST', { key: v.agent.key });
    await v.s.client.ok('credential.revoke', { credentialId: credential.id, disable: true });
    await refused(v.s, 'credential.lease', { name: 'lease.off', purpose: 'p' }, 'CONFLICT', { key: v.agent.key, message: /is disabled: nothing was leased/ });
    await refused(v.s, 'credential.lease', { name: 'lease.off', purpose: 'p' }, 'FORBIDDEN_SCOPE', {
      key: (await v.s.client.mint({ scopes: ['org.read'], principalKind: 'agent' })).apiKey,
      message: /^missing scope credential.use/,
    });
  });

  it('a break-glass secret holds every lease; the approval opens one lease only', async () => {
    await put({ name: 'lease.glass', value: 'glass-value', leasableBy: [v.agent.id], approval: 'each_lease' });
    const params = { name: 'lease.glass', purpose: 'incident 7' };
    const approval = await held(v.s, 'credential.lease', params, { key: v.agent.key, holdKind: 'credential.signature.hold' });
    expect(approval.actionClass).toBe('credential.lease');
    const approvalId = await fileAndApprove(v.s, approval, { requester: v.agent.key });
    const { result } = await mutate(v.s, 'credential.lease', { ...params, approvalId }, 'credential.lease.issue', { key: v.agent.key });
    expect(result.value).toBe('glass-value');
    expect(result.lease.approvalId).toBe(approvalId);
    await refused(v.s, 'credential.lease', { ...params, approvalId }, 'GOVERNANCE_NOT_READY', { key: v.agent.key, message: /a proof is single-use/ });
  });
});

describe('credential.list and revoke', () => {
  it('lists metadata with active and stale leases and overdue rotation, never a value', async () => {
    const { credential } = (await put({ name: 'list.one', value: 'list-value-1', leasableBy: [v.agent.id], rotationPeriodDays: 30 })).result;
    await v.s.client.ok('credential.lease', { name: 'list.one', purpose: 'first' }, { key: v.agent.key });
    await put({ name: 'list.one', value: 'list-value-2' });
    await v.s.client.ok('credential.lease', { name: 'list.one', purpose: 'second' }, { key: v.agent.key });
    const listed = await read(v.s, 'credential.list', { prefix: 'list.' });
    const row = listed.credentials.find((c: any) => c.id === credential.id);
    expect(row.leases.map((l: any) => [l.purpose, l.status])).toEqual([
      ['first', 'stale'],
      ['second', 'active'],
    ]);
    expect(row.rotationDueAt).toBeTruthy();
    expect(row.overdue).toBe(false);
    expect(JSON.stringify(listed)).not.toContain('list-value');
    await refused(v.s, 'credential.list', {}, 'FORBIDDEN_SCOPE', { key: v.agent.key, message: /^missing scope admin/ });
  });

  it('revokes by lease, credential or principal; exactly one target; unknown lease NOT_FOUND; nothing left: changed:false', async () => {
    await put({ name: 'rev.one', value: 'r', leasableBy: [v.agent.id, v.other.id] });
    const l1 = (await v.s.client.ok('credential.lease', { name: 'rev.one', purpose: 'a' }, { key: v.agent.key })).lease;
    await v.s.client.ok('credential.lease', { name: 'rev.one', purpose: 'b' }, { key: v.other.key });
    const one = await mutate(v.s, 'credential.revoke', { leaseId: l1.id }, 'credential.lease.revoke');
    expect(one.result).toEqual({ revoked: 1, disabled: false, changed: true });
    await noop(v.s, 'credential.revoke', { leaseId: l1.id }, 'credential.lease.revoke');
    const theirs = await mutate(v.s, 'credential.revoke', { principalId: v.other.id }, 'credential.lease.revoke');
    expect(theirs.result.revoked).toBe(1);
    await refused(v.s, 'credential.revoke', { leaseId: l1.id, principalId: v.other.id }, 'BAD_REQUEST', { message: /^principalId: give exactly one of/ });
    await refused(v.s, 'credential.revoke', {}, 'BAD_REQUEST', { message: /^leaseId: give exactly one of/ });
    await refused(v.s, 'credential.revoke', { principalId: v.other.id, disable: true }, 'BAD_REQUEST', { message: /^disable: only with credentialId/ });
    await refused(v.s, 'credential.revoke', { leaseId: 'crl_unknown0000000000' }, 'NOT_FOUND');
    await refused(v.s, 'credential.revoke', { credentialId: 'cred_unknown000000000' }, 'NOT_FOUND');
    await refused(v.s, 'credential.revoke', { leaseId: l1.id }, 'FORBIDDEN_SCOPE', { key: v.agent.key });
  });
});
