import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshOrg, TestClient, testServer, type TestServer } from '../../helpers/harness.js';
import { expectScimError, GROUP, PATCH_OP, ScimClient, USER } from './client.js';
import { okta } from './fixtures.js';

/**
 * SCIM PATCH assigns by path (scim-patch): a path or value key naming __proto__, constructor or prototype once
 * set Object.prototype.polluted, and every later call of every org answered 400 "polluted: unknown field". Each
 * such body is refused with nothing written, and nothing reaches Object.prototype.
 */

let s: TestServer;
let scim: ScimClient;
let userId: string;
let groupId: string;
const ENTERPRISE_MANAGER = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager';

const polluted = () => Object.getOwnPropertyNames(Object.prototype).filter((k) => /polluted/i.test(k));

beforeAll(async () => {
  s = await testServer();
  scim = new ScimClient(s, (await s.client.mint({ tier: 'scim' }, 'Okta provisioning')).apiKey);
  userId = (await scim.post('/Users', okta.createUser)).body.id;
  groupId = (await scim.post('/Groups', okta.createGroup)).body.id;
});
afterAll(async () => {
  // Should a case ever get through, the files that share this worker must not inherit it.
  for (const k of polluted()) delete (Object.prototype as Record<string, unknown>)[k];
  await s.close();
});

/** Operations as raw JSON text: an object literal's "__proto__" would set its prototype, not make a key. */
const patchText = (ops: string) => `{"schemas":["${PATCH_OP}"],"Operations":[${ops}]}`;

const PATHS = [
  '__proto__.polluted',
  '__PROTO__.polluted',
  'constructor.prototype.polluted',
  'name.__proto__.polluted',
  'name.constructor.prototype.polluted',
  'emails[type eq \\"work\\"].__proto__.polluted',
  `${ENTERPRISE_MANAGER}.__proto__.polluted`,
  'prototype',
];
const VALUES = [
  '{"__proto__":{"polluted":"1"}}',
  '{"__proto__.polluted":"1"}',
  '{"constructor.prototype.polluted":"1"}',
  '{"name":{"__proto__":{"polluted":"1"}}}',
  '{"name":{"constructor":{"prototype":{"polluted":"1"}}}}',
  '{"name.__proto__.polluted":"1"}',
];

describe('SCIM PATCH refuses reserved path segments and value keys', () => {
  it.each(['add', 'replace', 'remove'].flatMap((op) => PATHS.map((path) => [op, path])))(
    'Users %s path %s: 400 invalidPath, nothing written',
    async (op, path) => {
      const body = patchText(`{"op":"${op}","path":"${path}","value":"1"}`);
      const detail = await expectScimError(scim, () => scim.patch(`/Users/${userId}`, body), 400, 'invalidPath');
      expect(detail).toMatch(
        /^Operations\[0\]\.path: names "(__proto__|__PROTO__|constructor|prototype)" \(__proto__, constructor and prototype are reserved\)$/,
      );
      expect(polluted()).toEqual([]);
    },
  );

  it.each(['add', 'replace'].flatMap((op) => VALUES.map((value) => [op, value])))('Users %s value %s: 400, nothing written', async (op, value) => {
    const body = patchText(`{"op":"${op}","value":${value}}`);
    const detail = await expectScimError(scim, () => scim.patch(`/Users/${userId}`, body), 400, 'invalidValue');
    expect(detail).toMatch(/__proto__, constructor and prototype are reserved/);
    expect(polluted()).toEqual([]);
  });

  it('a reserved key inside an array value (emails, members) is refused too', async () => {
    const emails = patchText(`{"op":"add","path":"emails","value":[{"value":"x@example.com","type":"work","__proto__":{"polluted":"1"}}]}`);
    await expectScimError(scim, () => scim.patch(`/Users/${userId}`, emails), 400, 'invalidValue');
    const members = patchText(`{"op":"add","path":"members","value":[{"value":"${userId}","constructor":{"prototype":{"polluted":"1"}}}]}`);
    await expectScimError(scim, () => scim.patch(`/Groups/${groupId}`, members), 400, 'invalidValue');
    expect(polluted()).toEqual([]);
  });

  it.each(PATHS.map((p) => [p]))('Groups path %s: 400 invalidPath', async (path) => {
    await expectScimError(scim, () => scim.patch(`/Groups/${groupId}`, patchText(`{"op":"replace","path":"${path}","value":"1"}`)), 400, 'invalidPath');
    expect(polluted()).toEqual([]);
  });

  it('POST and PUT bodies with a reserved key anywhere are refused by name before any route runs', async () => {
    const user = JSON.stringify({ ...okta.createUser, userName: 'proto@okta.local' }).replace('{', '{"__proto__":{"polluted":"1"},');
    expect(await expectScimError(scim, () => scim.post('/Users', user), 400, 'invalidValue')).toBe(
      'body.__proto__: not accepted as a field name (__proto__, constructor and prototype are reserved)',
    );
    const put = JSON.stringify(okta.replaceUser(userId)).replace('"name":{', '"name":{"constructor":{"prototype":{"polluted":"1"}},');
    expect(await expectScimError(scim, () => scim.put(`/Users/${userId}`, put), 400, 'invalidValue')).toBe(
      'body.name.constructor: not accepted as a field name (__proto__, constructor and prototype are reserved)',
    );
    const group = `{"schemas":["${GROUP}"],"displayName":"x","members":[{"value":"${userId}","__proto__":{"polluted":"1"}}]}`;
    expect(await expectScimError(scim, () => scim.post('/Groups', group), 400, 'invalidValue')).toBe(
      'body.members.0.__proto__: not accepted as a field name (__proto__, constructor and prototype are reserved)',
    );
    expect(polluted()).toEqual([]);
  });

  it('a value nested past 64 levels is refused by path before anything copies it', async () => {
    const deep = `${'{"a":'.repeat(5_000)}"x"${'}'.repeat(5_000)}`;
    const detail = await expectScimError(scim, () => scim.patch(`/Users/${userId}`, patchText(`{"op":"replace","value":${deep}}`)), 400, 'invalidSyntax');
    expect(detail).toMatch(/^Operations\.0\.value\.a\.a.*: nested more than 64 levels deep$/);
  });

  it('after every attempt: Object.prototype is clean, whoami and another org answer, SCIM PATCH still works', async () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(polluted()).toEqual([]);
    const whoami = await s.client.get('org/whoami');
    expect(whoami.status, whoami.raw).toBe(200);
    const other = await freshOrg(s.runtime);
    const otherClient = new TestClient(s.app, other.adminKey);
    expect((await otherClient.get('org/whoami')).status).toBe(200);
    expect((await otherClient.rpc('member.list', { limit: 1 })).status).toBe(200);
    // An honest PATCH of the same user, path and value forms, still applies.
    const renamed = await scim.patch(`/Users/${userId}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.givenName', value: 'Safe' }] });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.name.givenName).toBe('Safe');
    const byValue = await scim.patch(`/Users/${userId}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', value: { 'name.familyName': 'Kept', title: 'Lead' } }],
    });
    expect(byValue.status, JSON.stringify(byValue.body)).toBe(200);
    expect(byValue.body).toMatchObject({ schemas: [USER, expect.any(String)], name: { familyName: 'Kept' }, title: 'Lead' });
  });
});
