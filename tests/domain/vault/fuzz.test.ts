import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { credential, settingsSecrets } from '../../../protocol/methods/credential.js';
import { integration } from '../../../protocol/methods/integration.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { vaultOrg, type VaultOrg } from './kit.js';
import { remoteFixture, type RemoteFixture } from './remote-fixture.js';

/*
 * Every credential, settings-secret and integration method fuzzed at real rows (a secret, a lease, an integration
 * connected to the fixture server), field by field, as an admin, an agent and an admin agent: never a 5xx, and the
 * chain still verifies. URLs try the private, loopback and malformed forms the guard refuses.
 */

let v: VaultOrg;
let remote: RemoteFixture;
const ids: Record<string, string> = {};
beforeAll(async () => {
  v = await vaultOrg();
  remote = await remoteFixture();
  const put = await v.s.client.ok('credential.put', { name: 'github.deploy-token', value: remote.token, leasableBy: ['*'] });
  ids.credentialId = put.credential.id;
  ids.leaseId = (await v.s.client.ok('credential.lease', { credentialId: ids.credentialId, purpose: 'fuzz' }, { key: v.agent.key })).lease.id;
  ids.principalId = v.agent.id;
  ids.integrationId = (
    await v.s.client.ok('integration.connect', { name: 'fuzzed', url: remote.url, auth: { kind: 'bearer', credentialId: ids.credentialId } })
  ).integration.id;
  ids.url = remote.url;
  ids.tool = 'echo';
});
afterAll(async () => {
  expect((await verifyOrgChain(v.s.runtime.db, v.s.org.orgId)).ok).toBe(true);
  await v.close();
  await remote.close();
});

const odd = oddStrings(
  'cred_nosuch',
  'crl_x',
  'int_x',
  'usr_x',
  '*',
  'http://10.0.0.5/mcp',
  'https://[::ffff:127.0.0.1]/',
  'https://u:p@h/',
  'file:///etc/passwd',
);
const values = anyValue(
  odd,
  fc.constantFrom({ kind: 'none' }, { kind: 'bearer', credentialId: 'cred_nosuch' }, { kind: 'header', header: 'Host', credentialId: 'cred_x' }),
  fc.constantFrom({ text: 5 }, { text: 'x' }, { ms: -1 }, {}),
);

const all = [
  ...Object.entries(credential).map(([n, c]) => [`credential.${n}`, c.example] as const),
  ...Object.entries(settingsSecrets).map(([n, c]) => [`settings.${n}`, c.example] as const),
  ...Object.entries(integration).map(([n, c]) => [`integration.${n}`, c.example] as const),
];

describe('the vault at real rows, fuzzed', () => {
  it.each(all)('%s: never INTERNAL', (name, example) =>
    fuzzAtRows(name, {
      client: v.s.client,
      example,
      ids,
      fields: [
        'name',
        'value',
        'leasableBy',
        'approval',
        'ttlSeconds',
        'purpose',
        'disable',
        'url',
        'auth',
        'allowTools',
        'access',
        'arguments',
        'tool',
        'cursor',
      ],
      keys: [v.s.org.adminKey, v.agent.key, v.adminAgent.key],
      values,
      numRuns: 20,
    }),
  );
});
