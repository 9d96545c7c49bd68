import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { one } from '../../db/types.js';
import { freshOrg, TestClient, testServer, type TestOrg, type TestServer } from '../helpers/harness.js';
import { expectError } from '../helpers/frames.js';
import { headOf } from '../helpers/ledger.js';

/** Spec: Idempotency rules 1-6. */
let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

async function keyCount(orgId: string) {
  const row = one(await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1', [orgId]));
  return row.n;
}

let org: TestOrg;
let client: TestClient;
beforeAll(async () => {
  org = await freshOrg(s.runtime, 'idem');
  client = new TestClient(s.app, org.adminKey);
});

describe('idempotent (I) methods', () => {
  it('the same key replays the identical body bytes with idempotent-replay: true and appends nothing', async () => {
    const seq0 = (await headOf(s.runtime.db, org.orgId)).seq;
    const keys0 = await keyCount(org.orgId);
    const first = await client.rpc('settings.mintApiKey', { name: 'replayed', tier: 'agent' }, { idem: 'mint-1' });
    expect(first.status).toBe(200);
    expect(first.headers['idempotent-replay']).toBeUndefined();
    for (let i = 0; i < 3; i++) {
      const again = await client.rpc('settings.mintApiKey', { name: 'replayed', tier: 'agent' }, { idem: 'mint-1' });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replay']).toBe('true');
      expect(again.raw).toBe(first.raw);
    }
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(seq0 + 1);
    expect(await keyCount(org.orgId)).toBe(keys0 + 1);
    // The minted key works: the replay handed back the one real secret.
    expect((await client.rpc('org.list', {}, { key: first.body.result.apiKey })).status).toBe(200);
  });

  it('the same key with other params is BAD_REQUEST naming the header: nothing runs, and the true repeat still replays', async () => {
    const first = await client.rpc('org.mintApiKey', { name: 'p1', tier: 'reader' }, { idem: 'mint-2' });
    const seq0 = (await headOf(s.runtime.db, org.orgId)).seq;
    const keys0 = await keyCount(org.orgId);
    const { at } = one(
      await s.runtime.db.query<{ at: string }>('SELECT created_at AS at FROM idempotency WHERE org_id = $1 AND method = $2 AND key = $3', [
        org.orgId,
        'org.mintApiKey',
        'mint-2',
      ]),
    );
    for (const params of [
      { name: 'p2', tier: 'agent' },
      { name: 'p1', tier: 'agent' },
      { name: 'p1', scopes: ['org.read'] },
    ]) {
      const other = await client.rpc('org.mintApiKey', params, { idem: 'mint-2' });
      expectError(other, 'BAD_REQUEST');
      expect(other.body.error.message).toBe(
        `x-idempotency-key: already used for org.mintApiKey with different params (first call at ${at}); use a new key for a new act, or resend the same params to replay`,
      );
      expect(other.headers['idempotent-replay']).toBeUndefined();
    }
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(seq0);
    expect(await keyCount(org.orgId)).toBe(keys0);
    const same = await client.rpc('org.mintApiKey', { name: 'p1', tier: 'reader' }, { idem: 'mint-2' });
    expect(same.headers['idempotent-replay']).toBe('true');
    expect(same.raw).toBe(first.raw);
  });

  it('params are compared as validated: key order and defaults spelled out are the same call', async () => {
    const first = await client.rpc('board.createTask', { title: 'Same act', priority: 'high' }, { idem: 'as-validated' });
    expect(first.status).toBe(200);
    for (const params of [
      { priority: 'high', title: 'Same act' },
      { title: 'Same act', priority: 'high', description: '' },
    ]) {
      const again = await client.rpc('board.createTask', params, { idem: 'as-validated' });
      expect(again.headers['idempotent-replay']).toBe('true');
      expect(again.raw).toBe(first.raw);
    }
    const defaulted = await client.rpc('board.createTask', { title: 'Defaults' }, { idem: 'defaults' });
    const spelled = await client.rpc('board.createTask', { title: 'Defaults', priority: 'normal', description: '' }, { idem: 'defaults' });
    expect(spelled.raw).toBe(defaulted.raw);
    expectError(
      await client.rpc('board.createTask', { title: 'Defaults', priority: 'low' }, { idem: 'defaults' }),
      'BAD_REQUEST',
      /^x-idempotency-key: already used for board\.createTask with different params/,
    );
  });

  it('a key stored before params were hashed (params_hash NULL) replays whatever the params, as before', async () => {
    const first = await client.rpc('board.createTask', { title: 'Legacy row' }, { idem: 'legacy-row' });
    await s.runtime.db.query('UPDATE idempotency SET params_hash = NULL WHERE org_id = $1 AND key = $2', [org.orgId, 'legacy-row']);
    const other = await client.rpc('board.createTask', { title: 'Something else' }, { idem: 'legacy-row' });
    expect(other.headers['idempotent-replay']).toBe('true');
    expect(other.raw).toBe(first.raw);
  });

  it('a different actor with the same key does not replay', async () => {
    const second = await client.mint({ tier: 'admin' }, 'second admin');
    expect(second.principal.id).not.toBe((await client.get('org/whoami')).body.principal.id);
    const seq0 = (await headOf(s.runtime.db, org.orgId)).seq;
    const a = await client.rpc('settings.mintApiKey', { name: 'actor a', tier: 'reader' }, { idem: 'shared-key' });
    const b = await client.rpc('settings.mintApiKey', { name: 'actor b', tier: 'reader' }, { idem: 'shared-key', key: second.apiKey });
    expect(b.headers['idempotent-replay']).toBeUndefined();
    expect(b.body.result.keyId).not.toBe(a.body.result.keyId);
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(seq0 + 2);
    // Each actor's own retry replays its own result.
    const bAgain = await client.rpc('settings.mintApiKey', { name: 'actor b', tier: 'reader' }, { idem: 'shared-key', key: second.apiKey });
    expect(bAgain.raw).toBe(b.raw);
  });

  it('another key of the same principal is the same actor: it replays', async () => {
    const me = (await client.get('org/whoami')).body.principal.id;
    const sibling = await client.ok('settings.mintApiKey', { name: 'sibling', scopes: ['admin', 'board.write'], principalKind: 'human', principalId: me });
    expect(sibling.principal.id).toBe(me);
    const a = await client.rpc('board.createTask', { title: 'same actor' }, { idem: 'same-actor' });
    const b = await client.rpc('board.createTask', { title: 'same actor' }, { idem: 'same-actor', key: sibling.apiKey });
    expect(b.headers['idempotent-replay']).toBe('true');
    expect(b.raw).toBe(a.raw);
    // (A result carrying a secret replays withheld to the sibling: tests/pipeline/idempotency-secrets.test.ts.)
  });

  it('the same key on another method, or in another org, does not replay', async () => {
    const a = await client.rpc('settings.mintApiKey', { name: 'm1', tier: 'reader' }, { idem: 'cross' });
    const b = await client.rpc('org.mintApiKey', { name: 'm1', tier: 'reader' }, { idem: 'cross' });
    expect(b.headers['idempotent-replay']).toBeUndefined();
    expect(b.body.result.keyId).not.toBe(a.body.result.keyId);
    const other = await freshOrg(s.runtime, 'idem');
    const c = await new TestClient(s.app, other.adminKey).rpc('settings.mintApiKey', { name: 'm1', tier: 'reader' }, { idem: 'cross' });
    expect(c.headers['idempotent-replay']).toBeUndefined();
    expect((await headOf(s.runtime.db, other.orgId)).seq).toBe(1);
  });

  it('a failed first attempt is not cached', async () => {
    const bad = await client.rpc('settings.mintApiKey', { name: 'x', tier: 'agent', principalId: 'agt_nosuchprincipal' }, { idem: 'fails-first' });
    expectError(bad, 'NOT_FOUND');
    const good = await client.rpc('settings.mintApiKey', { name: 'x', tier: 'agent' }, { idem: 'fails-first' });
    expect(good.status).toBe(200);
    expect(good.headers['idempotent-replay']).toBeUndefined();
  });

  it('without a key nothing is cached: every call runs', async () => {
    const seq0 = (await headOf(s.runtime.db, org.orgId)).seq;
    const a = await client.ok('settings.mintApiKey', { name: 'nokey', tier: 'reader' });
    const b = await client.ok('settings.mintApiKey', { name: 'nokey', tier: 'reader' });
    expect(a.keyId).not.toBe(b.keyId);
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(seq0 + 2);
  });

  it('a key of 1 to 255 characters is accepted; 256 is BAD_REQUEST naming the header', async () => {
    expect((await client.rpc('settings.mintApiKey', { name: 'k', tier: 'reader' }, { idem: 'k'.repeat(255) })).status).toBe(200);
    const long = await client.rpc('settings.mintApiKey', { name: 'k', tier: 'reader' }, { idem: 'k'.repeat(256) });
    expectError(long, 'BAD_REQUEST', /^x-idempotency-key: /);
  });

  it('given the principal its request just authenticated, a call looks nothing up before its transaction, whose claim replays a stored key', async () => {
    const principal = await s.runtime.pipeline.principalFor(org.adminKey);
    const call = () =>
      s.runtime.pipeline.call({ method: 'board.createTask', params: { title: 'authenticated by the face' }, principal, idempotencyKey: 'face-auth' });
    const seq0 = (await headOf(s.runtime.db, org.orgId)).seq;
    const queries = vi.spyOn(s.runtime.db, 'query');
    const tx = vi.spyOn(s.runtime.db, 'tx');
    try {
      const first = await call();
      expect(first.frame.ok).toBe(true);
      const again = await call();
      expect(again).toMatchObject({ replayed: true, body: first.body });
      // No authentication and no replay lookup of its own: a first execution is one round trip shorter.
      expect(queries.mock.calls.filter(([sql]) => sql.includes('api_keys') || sql.includes('FROM idempotency'))).toEqual([]);
      expect(tx).toHaveBeenCalledTimes(2);
      expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(seq0 + 1);
    } finally {
      queries.mockRestore();
      tx.mockRestore();
    }
  });
});

describe('non-idempotent methods are never cached', () => {
  it('settings.renameApiKey with the same key header twice runs twice: two events, no replay', async () => {
    const seq0 = (await headOf(s.runtime.db, org.orgId)).seq;
    const a = await client.rpc('settings.renameApiKey', { keyId: org.adminKeyId, name: 'first' }, { idem: 'rename-key' });
    const b = await client.rpc('settings.renameApiKey', { keyId: org.adminKeyId, name: 'second' }, { idem: 'rename-key' });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.headers['idempotent-replay']).toBeUndefined();
    expect(b.body.result.name).toBe('second');
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(seq0 + 2);
    const row = one(
      await s.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM idempotency WHERE org_id = $1 AND method = $2', [
        org.orgId,
        'settings.renameApiKey',
      ]),
    );
    expect(row.n).toBe(0);
  });

  it('read-only methods ignore the key too', async () => {
    const a = await client.rpc('settings.listApiKeys', {}, { idem: 'list-key' });
    await client.ok('settings.mintApiKey', { name: 'appears in list', tier: 'reader' });
    const b = await client.rpc('settings.listApiKeys', {}, { idem: 'list-key' });
    expect(b.headers['idempotent-replay']).toBeUndefined();
    expect(b.body.result.keys.length).toBe(a.body.result.keys.length + 1);
  });
});
