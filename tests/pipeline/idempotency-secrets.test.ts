import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { splitStatements } from '../../db/migrate.js';
import { createOrg } from '../../domain/people/org/service.js';
import { one } from '../../db/types.js';
import { freshOrg, TestClient, testServer, type TestOrg, type TestServer } from '../helpers/harness.js';
import { expectOk } from '../helpers/calls.js';
import { headOf } from '../helpers/ledger.js';
import { tablesHolding } from '../helpers/secrets.js';

/*
 * Keys are stored hashed, and a keyed mint's result is no exception: the idempotency store keeps the secret
 * only sealed under the caller's own API key. The same key replays the first answer byte for byte; another
 * key of the same principal gets it withheld; no row of any table holds the secret.
 */
let s: TestServer;
let org: TestOrg;
let client: TestClient;
beforeAll(async () => {
  s = await testServer();
  org = await freshOrg(s.runtime, 'secrets');
  client = new TestClient(s.app, org.adminKey);
});
afterAll(() => s.close());

const storedRow = async (method: string, key: string) =>
  one(
    await s.runtime.db.query<{ frame: string; sealed_frame: string | null; params_hash: string | null }>(
      'SELECT frame, sealed_frame, params_hash FROM idempotency WHERE org_id = $1 AND method = $2 AND key = $3',
      [org.orgId, method, key],
    ),
  );

async function sibling(name: string) {
  const me = (await client.get('org/whoami')).body.principal.id;
  return client.ok('settings.mintApiKey', { name, tier: 'admin', principalId: me });
}

describe('a keyed mint keeps no secret at rest', () => {
  for (const method of ['settings.mintApiKey', 'org.mintApiKey']) {
    it(`${method}: no table holds the secret; the same key replays the same bytes, secret included`, async () => {
      const key = `${method}-1`;
      const first = await client.rpc(method, { name: 'sealed', tier: 'agent' }, { idem: key });
      const minted = expectOk(method, first);
      expect(minted.apiKey).toMatch(/^wops_/);
      expect(await tablesHolding(s.runtime.db, minted.apiKey)).toEqual([]);
      // The stored frame says what was minted, without the secret; the sealed one is opaque.
      const row = await storedRow(method, key);
      expect(JSON.parse(row.frame).result).toMatchObject({ keyId: minted.keyId, apiKey: null, secretWithheld: expect.stringContaining(minted.keyId) });
      expect(row.sealed_frame).toMatch(/^v1\./);
      const again = await client.rpc(method, { name: 'sealed', tier: 'agent' }, { idem: key });
      expect(again.headers['idempotent-replay']).toBe('true');
      expect(again.raw).toBe(first.raw);
      // The replayed secret is the real one.
      expect((await client.get('org/whoami', {}, { key: again.body.result.apiKey })).status).toBe(200);
    });
  }

  it('another key of the same principal (a rotated key) replays the act withheld: apiKey null and what to do, one key minted', async () => {
    const old = await sibling('about to rotate');
    const oldClient = new TestClient(s.app, old.apiKey);
    const seq0 = (await headOf(s.runtime.db, org.orgId)).seq;
    const first = await oldClient.rpc('settings.mintApiKey', { name: 'minted before rotation', tier: 'reader' }, { idem: 'rotated' });
    const minted = expectOk('settings.mintApiKey', first);
    // Rotate: a new key for the same principal, the old one revoked.
    const fresh = await sibling('rotated in');
    await client.ok('settings.revokeApiKey', { keyId: old.keyId });
    const replay = await client.rpc('settings.mintApiKey', { name: 'minted before rotation', tier: 'reader' }, { idem: 'rotated', key: fresh.apiKey });
    expect(replay.headers['idempotent-replay']).toBe('true');
    const withheld = expectOk('settings.mintApiKey', replay);
    expect(withheld).toEqual({ ...minted, apiKey: null, secretWithheld: expect.any(String) });
    expect(withheld.secretWithheld).toBe(
      'apiKey withheld: this replays the first call made with this idempotency key, whose secret is shown once; the server keeps it only ' +
        'encrypted under the API key that made that call, so only a retry with that same key gets it back. ' +
        `If it was lost, revoke ${minted.keyId} (settings.revokeApiKey) and mint a new key with a new idempotency key.`,
    );
    // Every such replay is the same bytes; nothing ran again (the only events: the mint, the new key, the revoke).
    expect((await client.rpc('settings.mintApiKey', { name: 'minted before rotation', tier: 'reader' }, { idem: 'rotated', key: fresh.apiKey })).raw).toBe(
      replay.raw,
    );
    expect((await headOf(s.runtime.db, org.orgId)).seq).toBe(seq0 + 3);
    expect(await tablesHolding(s.runtime.db, minted.apiKey)).toEqual([]);
  });

  it('org.create: the new org’s admin key is sealed the same way; a withheld replay says how to get a new one', async () => {
    const slug = `child-${org.orgId.slice(4, 12)}`;
    const first = await client.rpc('org.create', { slug, name: 'Child Pty Ltd' }, { idem: 'child-org' });
    const created = expectOk('org.create', first);
    expect(await tablesHolding(s.runtime.db, created.adminKey)).toEqual([]);
    expect((await client.rpc('org.create', { slug, name: 'Child Pty Ltd' }, { idem: 'child-org' })).raw).toBe(first.raw);
    const other = await sibling('org.create sibling');
    const replay = await client.rpc('org.create', { slug, name: 'Child Pty Ltd' }, { idem: 'child-org', key: other.apiKey });
    const withheld = expectOk('org.create', replay);
    expect(withheld).toMatchObject({ orgId: created.orgId, adminKeyId: created.adminKeyId, adminKey: null });
    expect(withheld.secretWithheld).toMatch(/^adminKey withheld: /);
    expect(withheld.secretWithheld).toContain(`npm run cli -- key mint --org ${slug} --name admin --tier admin), or delete ${created.orgId} (org.delete)`);
  });

  it('a call that came with only a principal (no API key to seal under) returns the secret once and stores it withheld', async () => {
    const principal = await s.runtime.pipeline.principalFor(org.adminKey);
    const call = () =>
      s.runtime.pipeline.call({
        method: 'settings.mintApiKey',
        params: { name: 'principal only', tier: 'reader' },
        principal,
        idempotencyKey: 'principal-only',
      });
    const first = await call();
    const apiKey = (first.frame as { ok: true; result: { apiKey: string } }).result.apiKey;
    expect(apiKey).toMatch(/^wops_/);
    expect((await storedRow('settings.mintApiKey', 'principal-only')).sealed_frame).toBeNull();
    const again = await call();
    expect(again.replayed).toBe(true);
    expect(again.frame).toMatchObject({ ok: true, result: { apiKey: null } });
    expect(await tablesHolding(s.runtime.db, apiKey)).toEqual([]);
  });

  it('a result without a secret is stored as it is, with nothing sealed', async () => {
    const first = await client.rpc('board.createTask', { title: 'plain' }, { idem: 'plain' });
    const row = await storedRow('board.createTask', 'plain');
    expect(row.frame).toBe(first.raw);
    expect(row.sealed_frame).toBeNull();
    expect(row.params_hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('operator-chosen keys and rows from before', () => {
  it('a key an operator chose (BOOTSTRAP_ADMIN_KEY) keeps no prefix and no trace of it in any table', async () => {
    const chosen = `chosen-admin-${org.orgId}`;
    const created = await s.runtime.db.tx((q) =>
      createOrg(q, { slug: `boot-${org.orgId.slice(4, 14)}`, name: 'Boot', parentOrgId: null, createdBy: '', adminKey: chosen }),
    );
    const row = one(await s.runtime.db.query<{ key_prefix: string }>('SELECT key_prefix FROM api_keys WHERE key_id = $1', [created.admin.keyId]));
    expect(row.key_prefix).toBe('');
    expect(await tablesHolding(s.runtime.db, chosen.slice(0, 9))).toEqual([]);
    expect(await tablesHolding(s.runtime.db, chosen)).toEqual([]);
  });

  it('migration 012 withholds the secret of frames stored before it, and of operator-chosen key prefixes; the row still replays', async () => {
    const minted = await client.mint({ tier: 'reader' }, 'legacy');
    const child = {
      orgId: 'org_legacychild',
      slug: 'legacy-child',
      name: 'Legacy',
      adminKey: 'wops_legacychildadminkeyinclear',
      adminKeyId: 'key_legacychild',
    };
    const legacy = async (method: string, key: string, result: object) =>
      s.runtime.db.query(
        'INSERT INTO idempotency (org_id, actor, method, key, frame) SELECT org_id, principal_id, $2, $3, $4 FROM api_keys WHERE key_id = $1',
        [org.adminKeyId, method, key, JSON.stringify({ ok: true, result })],
      );
    await legacy('org.mintApiKey', 'legacy-mint', { ...minted, tier: 'reader' });
    await legacy('org.create', 'legacy-create', child);
    await s.runtime.db.query(`UPDATE api_keys SET key_prefix = 'changeme-' WHERE key_id = $1`, [org.adminKeyId]);
    expect(await tablesHolding(s.runtime.db, minted.apiKey)).toEqual(['idempotency']);
    expect(await tablesHolding(s.runtime.db, child.adminKey)).toEqual(['idempotency']);
    const sql = readFileSync(new URL('../../db/migrations/012_idempotency_params_secrets.sql', import.meta.url), 'utf8');
    // Its data updates (its ALTERs would lock the table other test files share on PostgreSQL).
    const updates = splitStatements(sql).filter((st) => st.startsWith('UPDATE'));
    expect(updates).toHaveLength(3);
    await s.runtime.db.tx(async (q) => {
      for (const statement of updates) await q.query(statement);
    });
    expect(await tablesHolding(s.runtime.db, minted.apiKey)).toEqual([]);
    expect(await tablesHolding(s.runtime.db, child.adminKey)).toEqual([]);
    expect(await tablesHolding(s.runtime.db, 'changeme-')).toEqual([]);
    const { key_prefix } = one(await s.runtime.db.query<{ key_prefix: string }>('SELECT key_prefix FROM api_keys WHERE key_id = $1', [minted.keyId]));
    expect(key_prefix).toBe(minted.apiKey.slice(0, 9));
    // A retry (any params: the row predates the params hash) replays the act without the secret; nothing mints.
    const replay = await client.rpc('org.mintApiKey', { name: 'legacy', tier: 'reader' }, { idem: 'legacy-mint' });
    expect(replay.headers['idempotent-replay']).toBe('true');
    const withheld = expectOk('org.mintApiKey', replay);
    expect(withheld).toMatchObject({ keyId: minted.keyId, apiKey: null });
    expect(withheld.secretWithheld).toContain(`revoke ${minted.keyId} (settings.revokeApiKey)`);
    const created = expectOk('org.create', await client.rpc('org.create', { slug: 'legacy-child', name: 'Legacy' }, { idem: 'legacy-create' }));
    expect(created).toMatchObject({ orgId: child.orgId, adminKeyId: child.adminKeyId, adminKey: null });
    expect(created.secretWithheld).toContain('key mint --org legacy-child --name admin --tier admin), or delete org_legacychild (org.delete)');
  });
});
