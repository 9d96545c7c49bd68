import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyValue, fuzzAtRows, oddStrings } from '../../helpers/fuzz.js';
import { registry } from '../../../protocol/methods/runtime/registry.js';
import { presence } from '../../../protocol/methods/runtime/presence.js';
import { lease } from '../../../protocol/methods/runtime/lease.js';
import { cost } from '../../../protocol/methods/runtime/cost.js';
import { settingsCompany } from '../../../protocol/methods/runtime/company.js';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { ok } from '../../helpers/calls.js';
import { rtOrg, type RtOrg } from './kit.js';

/*
 * Every method of registry, presence, lease, cost and the company settings at real rows (a registration, a held
 * lease, an office), field by field, as an admin, an agent and a viewer: never a 5xx, and the chain still verifies.
 */

let o: RtOrg;
const ids: Record<string, string> = {};
beforeAll(async () => {
  o = await rtOrg();
  ids.registrationId = (await ok(o.s, 'registry.register', { instance: 'fuzz', name: 'n', version: '1' }, o.agent.key)).registration.id;
  ids.leaseId = (await ok(o.s, 'lease.claim', { name: 'fuzz', ttlSeconds: 600 }, o.agent.key)).lease.id;
  ids.locationId = (
    await ok(o.s, 'settings.upsertOfficeLocation', {
      name: 'HQ',
      address: { line1: '1 A St', locality: 'Sydney', country: 'AU' },
      timeZone: 'Australia/Sydney',
    })
  ).location.id;
});
afterAll(async () => {
  expect((await verifyOrgChain(o.s.runtime.db, o.s.org.orgId)).ok).toBe(true);
  await o.s.close();
});

const odd = oddStrings('reg_nosuch', 'lse_x', 'loc_x', 'stopped', 'Australia/Sydney', '51 824 753 556', '+61290000000', 'AUD');
const values = anyValue(
  odd,
  fc.constantFrom(0, 15, 3600, 86400, 86401),
  fc.record({ line1: odd, locality: odd, country: fc.constantFrom('AU', 'ZZ', 'au') }),
  fc.array(fc.record({ provider: odd, model: odd, occurredAt: fc.constantFrom(new Date().toISOString(), '2999-01-01T00:00:00Z'), externalId: odd }), {
    maxLength: 3,
  }),
);

const methods = [
  ...Object.entries(registry).map(([n, c]) => [`registry.${n}`, c.example] as const),
  ...Object.entries(presence).map(([n, c]) => [`presence.${n}`, c.example] as const),
  ...Object.entries(lease).map(([n, c]) => [`lease.${n}`, c.example] as const),
  ...Object.entries(cost).map(([n, c]) => [`cost.${n}`, c.example] as const),
  ...Object.entries(settingsCompany).map(([n, c]) => [`settings.${n}`, c.example] as const),
];

describe('the runtime control plane at real rows, fuzzed', () => {
  it.each(methods.map(([m, e]) => [m, e] as const))('%s: never INTERNAL', (name, example) =>
    fuzzAtRows(name, {
      client: o.s.client,
      example,
      ids,
      fields: ['note', 'force', 'holderInstance', 'registrationId', 'statusText', 'taskId', 'website', 'isHeadOffice', 'locationId'],
      keys: [o.owner.key, o.agent.key, o.viewer.key],
      values,
    }),
  );
});
