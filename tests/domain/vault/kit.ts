import type { DomainConfig } from '../../../domain/core/deps.js';
import { DEFAULT_VAULT_CONFIG, newMasterKey, type VaultConfig } from '../../../domain/vault/keys.js';
import { testServer, type TestRuntimeOptions, type TestServer } from '../../helpers/harness.js';
import { person, type Person } from '../../helpers/people.js';

/**
 * The vault's tests: a server whose vault has a master key (PostgreSQL is sealed without one), that may reach the
 * fixture on 127.0.0.1 (INTEGRATION_ALLOW_HOSTS) and compares live tool definitions with the pins on every call.
 */
export const TEST_MASTER_KEYS = newMasterKey('t1');

export const vaultConfig = (extra: Partial<VaultConfig> = {}): Partial<DomainConfig> => ({
  vault: { ...DEFAULT_VAULT_CONFIG, masterKeys: TEST_MASTER_KEYS, allowHosts: ['127.0.0.1'], recheckMs: 0, ...extra },
});

export interface VaultOrg {
  s: TestServer;
  agent: Person;
  other: Person;
  /** An agent with admin (its connect and deleteSecret hold for a human). */
  adminAgent: Person;
  close(): Promise<void>;
}

export async function vaultOrg(extra: Partial<VaultConfig> = {}, opts: Omit<TestRuntimeOptions, 'config'> = {}): Promise<VaultOrg> {
  const s = await testServer({ ...opts, config: vaultConfig(extra) });
  const agent = await person(s, 'agent', { scopes: ['org.read', 'org.write', 'credential.use', 'approval.request'], principalKind: 'agent' });
  const other = await person(s, 'other agent', { scopes: ['org.read', 'org.write', 'credential.use', 'approval.request'], principalKind: 'agent' });
  const adminAgent = await person(s, 'admin agent', {
    scopes: ['org.read', 'org.write', 'admin', 'credential.use', 'approval.request'],
    principalKind: 'agent',
  });
  return { s, agent, other, adminAgent, close: () => s.close() };
}
