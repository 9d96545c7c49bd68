import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { vaultRewrapCommand } from '../../../cli/vault.js';
import { DEFAULT_VAULT_CONFIG, loadVaultConfig, newMasterKey, parseMasterKeys } from '../../../domain/vault/keys.js';
import { vaultKeyCounts } from '../../../domain/vault/rewrap.js';
import { openDb } from '../../../db/index.js';
import type { Db } from '../../../db/types.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { DATABASE_URL, freshOrg, testRuntime, TestClient } from '../../helpers/harness.js';
import { buildApp } from '../../../gateway/app.js';
import { tempDir } from '../../helpers/temp.js';

/*
 * The master keys: VAULT_MASTER_KEYS parsed strictly; the embedded database's key file (0600); PostgreSQL without a
 * key is sealed (CONFLICT saying how to configure it, nothing written); and rotation: a new key prepended, vault
 * rewrap moving every data key to it with progress and the rows left per key, the old key then dropped.
 */

async function serverWith(vault: Partial<typeof DEFAULT_VAULT_CONFIG>, orgId?: string, db?: Db) {
  const runtime = await testRuntime({ config: { vault: { ...DEFAULT_VAULT_CONFIG, ...vault } }, ...(db ? { db } : {}) });
  const app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  const org = orgId ? undefined : await freshOrg(runtime, 'vault');
  return { runtime, app, org, close: async () => (await app.close(), await runtime.close()) };
}

describe('VAULT_MASTER_KEYS', () => {
  it('is <id>:<base64 of 32 bytes>, the first active; anything else is refused naming the variable', () => {
    const ring = parseMasterKeys(`${newMasterKey('k2')},${newMasterKey('k1')}`);
    expect(ring.active.id).toBe('k2');
    expect([...ring.byId.keys()]).toEqual(['k2', 'k1']);
    expect(() => parseMasterKeys('k1:c2hvcnQ=')).toThrow(/VAULT_MASTER_KEYS: key k1 is 5 bytes; it must be 32/);
    expect(() => parseMasterKeys('nokey')).toThrow(/VAULT_MASTER_KEYS: each entry/);
    const k = newMasterKey('k1');
    expect(() => parseMasterKeys(`${k},${k}`)).toThrow(/listed twice/);
    expect(() => loadVaultConfig({ VAULT_MASTER_KEYS: 'bad' }, '/tmp/x', undefined)).toThrow(/VAULT_MASTER_KEYS/);
    expect(loadVaultConfig({ INTEGRATION_ALLOW_HOSTS: '127.0.0.1, localhost' }, '/data', undefined)).toMatchObject({
      keyFile: '/data/vault.key',
      allowHosts: ['127.0.0.1', 'localhost'],
    });
    expect(loadVaultConfig({}, '/data', 'postgres://x').keyFile).toBeNull();
  });
});

describe.skipIf(!!DATABASE_URL)('the embedded database’s key file', () => {
  it('is written 0600 at the first secret and read again by the next start', async () => {
    const keyFile = join(tempDir('vault-key'), 'vault.key');
    const a = await serverWith({ keyFile });
    const client = new TestClient(a.app, a.org!.adminKey);
    await client.ok('credential.put', { name: 'k.file', value: 'in the file', leasableBy: ['*'] });
    expect(existsSync(keyFile)).toBe(true);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile, 'utf8')).toMatch(/^local1:[A-Za-z0-9+/]{43}=\n$/);
    await a.close();
    const b = await serverWith({ keyFile }, a.org!.orgId);
    const again = new TestClient(b.app, a.org!.adminKey);
    expect((await again.ok('credential.lease', { name: 'k.file', purpose: 'check' })).value).toBe('in the file');
    await b.close();
  });
});

describe.skipIf(!DATABASE_URL)('PostgreSQL without a master key', () => {
  it('is sealed: a value is neither put nor leased, CONFLICT says how to configure it, nothing is written', async () => {
    const sealed = await serverWith({});
    const client = new TestClient(sealed.app, sealed.org!.adminKey);
    const res = await client.rpc('credential.put', { name: 'sealed.one', value: 'x' });
    expect(res.body.error.code).toBe('CONFLICT');
    expect(res.body.error.message).toMatch(/the vault is sealed.*VAULT_MASTER_KEYS=k1:<base64 of 32 random bytes>.*restarts the server/);
    const rows = await sealed.runtime.db.query('SELECT 1 FROM credentials WHERE org_id = $1', [sealed.org!.orgId]);
    expect(rows).toEqual([]);
    await sealed.close();
  });
});

describe('vault rewrap', () => {
  it('moves every data key to the new first key, reports rows per key, and the old key can then be dropped', async () => {
    // A database of its own: rewrap walks every org's secrets, and other files' are wrapped by their own keys.
    const fresh = DATABASE_URL ? await freshDatabase(DATABASE_URL, 'wops_vault_rw') : undefined;
    const db = await openDb(fresh ? { databaseUrl: fresh.url } : { inMemory: true });
    const k1 = newMasterKey('k1');
    const k2 = newMasterKey('k2');
    const first = await serverWith({ masterKeys: k1 }, undefined, db);
    const client = new TestClient(first.app, first.org!.adminKey);
    for (let i = 0; i < 3; i++) await client.ok('credential.put', { name: `rw.${i}`, value: `rotating value ${i}`, leasableBy: ['*'] });
    await first.close();

    // The old key dropped too early: CONFLICT naming the key and the way out, nothing opened.
    const early = await serverWith({ masterKeys: k2 }, first.org!.orgId, db);
    const refused = await new TestClient(early.app, first.org!.adminKey).rpc('credential.lease', { name: 'rw.0', purpose: 'p' });
    expect(refused.body.error.code).toBe('CONFLICT');
    expect(refused.body.error.message).toMatch(/master key k1, which VAULT_MASTER_KEYS no longer lists.*vault rewrap/);
    await early.close();

    const both = await serverWith({ masterKeys: `${k2},${k1}` }, first.org!.orgId, db);
    const lines: string[] = [];
    expect(await vaultRewrapCommand(both.runtime.db, { masterKeys: `${k2},${k1}` }, (l) => lines.push(l))).toBe(0);
    expect(lines.join('\n')).toMatch(/active key k2/);
    expect(lines.join('\n')).toMatch(/rewrapped \d+ of \d+/);
    expect(await vaultKeyCounts(both.runtime.db)).toEqual([{ kekId: 'k2', rows: 3 }]);
    expect(lines).toContain('  k2: 3 row(s) (active)');
    expect(lines.at(-1)).toMatch(/keys other than k2 may be dropped/);
    await both.close();

    const after = await serverWith({ masterKeys: k2 }, first.org!.orgId, db);
    const leased = await new TestClient(after.app, first.org!.adminKey).ok('credential.lease', { name: 'rw.2', purpose: 'after rotation' });
    expect(leased.value).toBe('rotating value 2');
    await after.close();
    await db.close();
    await fresh?.drop();
  });

  it('without VAULT_MASTER_KEYS says how to rotate and exits 2', async () => {
    const lines: string[] = [];
    const s = await serverWith({ masterKeys: newMasterKey('k9') });
    expect(await vaultRewrapCommand(s.runtime.db, { masterKeys: '' }, (l) => lines.push(l))).toBe(2);
    expect(lines[0]).toMatch(/VAULT_MASTER_KEYS is not set. To rotate/);
    await s.close();
  });
});
