import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshOrg, TestClient, testServer, type TestServer } from '../../helpers/harness.js';
import { ENTERPRISE, expectScimError, filterQuery, ScimClient, USER } from './client.js';
import { eventsAfter, head } from '../../helpers/calls.js';
import { entra, okta } from './fixtures.js';

/** /scim/v2/Users: the bodies Okta and Entra ID document, replayed; every write is registry calls with their events. */

let s: TestServer;
let scim: ScimClient;
beforeAll(async () => {
  s = await testServer();
  scim = new ScimClient(s, (await s.client.mint({ tier: 'scim' }, 'Okta provisioning')).apiKey);
});
afterAll(() => s.close());

/** An API key of the member's own, and its next /api/v1 call's status. */
const keyOf = async (memberId: string) => (await s.client.mint({ tier: 'member', principalId: memberId } as any, 'laptop')).apiKey;
const statusWith = async (key: string) => (await s.client.rpc('member.list', { limit: 1 }, { key })).status;

describe('Okta: lookup, create, replace, deactivate, reactivate', () => {
  it('replays Okta: userName lookup, POST, PUT, PATCH active false blocks the key at once, active true restores it', async () => {
    const empty = await scim.get(`/Users${okta.lookup('test.user@okta.local')}`);
    expect(empty.body).toMatchObject({ totalResults: 0, Resources: [], startIndex: 1, itemsPerPage: 0 });

    const created = await scim.write(['member.record.create'], () => scim.post('/Users', okta.createUser), 201, ['test.user@okta.local', 'Test User']);
    const id = created.body.id as string;
    expect(id).toMatch(/^usr_/);
    expect(created.headers.location).toBe(created.body.meta.location);
    expect(created.body).toMatchObject({
      schemas: [USER, ENTERPRISE],
      userName: 'test.user@okta.local',
      externalId: '00ujl29u0le5T6Aj10h7',
      displayName: 'Test User',
      name: { givenName: 'Test', familyName: 'User', formatted: 'Test User' },
      emails: [{ value: 'test.user@okta.local', type: 'work', primary: true }],
      active: true,
      groups: [],
      meta: { resourceType: 'User', location: expect.stringMatching(new RegExp(`/scim/v2/Users/${id}$`)) },
    });
    expect(created.body).not.toHaveProperty('password');
    // userName is the work email: the member keeps no userName of its own (the email serves).
    expect((await s.client.ok('member.get', { memberId: id })).member).toMatchObject({ email: 'test.user@okta.local', userName: null });

    // Okta's lookup on the next assignment finds it: attribute names and userName ignore case.
    const found = await scim.get(`/Users${okta.lookup('TEST.USER@okta.local')}`);
    expect(found.body.totalResults).toBe(1);
    expect(found.body.Resources[0].id).toBe(id);
    expect((await scim.get(`/Users${filterQuery('USERNAME eq "test.user@okta.local"')}`)).body.totalResults).toBe(1);
    expect((await scim.get(`/Users/${id}`)).body).toEqual(created.body);

    const replaced = await scim.write(['member.record.update'], () => scim.put(`/Users/${id}`, okta.replaceUser(id)), 200, ['Another']);
    expect(replaced.body.name).toMatchObject({ givenName: 'Another', familyName: 'User' });
    expect(replaced.body.externalId).toBe('00ujl29u0le5T6Aj10h7');
    // The same PUT again changes nothing: its member.update still leaves an event, noop.
    const seq = (await s.client.get('snapshot')).body.head.seq;
    await scim.write(['member.record.update'], () => scim.put(`/Users/${id}`, okta.replaceUser(id)), 200);
    const [noop] = (await s.client.get('events', { cursor: seq })).body.events;
    expect(noop.payload).toMatchObject({ memberId: id, fields: [], noop: true });
    // The actor of every SCIM write is the provisioner's principal.
    expect(noop.actor).toMatch(/^agt_/);

    const key = await keyOf(id);
    expect(await statusWith(key)).toBe(200);
    const off = await scim.write(['admin.member.deactivate'], () => scim.patch(`/Users/${id}`, okta.deactivate), 200);
    expect(off.body.active).toBe(false);
    const blocked = await s.client.rpc('member.list', { limit: 1 }, { key });
    expect(blocked.status).toBe(401);
    expect(blocked.body.error.code).toBe('UNAUTHORIZED');
    // Still a SCIM user (Okta may reactivate it), found by active eq false.
    expect((await scim.get(`/Users${filterQuery(`active eq false and id eq "${id}"`)}`)).body.totalResults).toBe(1);

    const on = await scim.write(['admin.member.reactivate'], () => scim.patch(`/Users/${id}`, okta.reactivate), 200);
    expect(on.body.active).toBe(true);
    expect(await statusWith(key)).toBe(200);
  });

  it('the enterprise extension: employeeNumber, department (a team, made when none has the name), manager.value', async () => {
    const boss = await scim.post('/Users', { schemas: [USER], userName: 'boss@example.com', displayName: 'Bea Boss' });
    const body = {
      schemas: [USER, ENTERPRISE],
      userName: 'dana.canary@example.com',
      name: { givenName: 'Dana', familyName: 'Canaryfield' },
      title: 'Controller of Canaries',
      timezone: 'Europe/Berlin',
      [ENTERPRISE]: { employeeNumber: 'E-1001', department: 'Finance Canaries', manager: { value: boss.body.id } },
    };
    const created = await scim.write(['team.record.create', 'member.record.create'], () => scim.post('/Users', body), 201, [
      'dana.canary',
      'Canaryfield',
      'Controller of Canaries',
      'Finance Canaries',
    ]);
    expect(created.body).toMatchObject({
      displayName: 'Dana Canaryfield',
      title: 'Controller of Canaries',
      timezone: 'Europe/Berlin',
      [ENTERPRISE]: { employeeNumber: 'E-1001', department: 'Finance Canaries', manager: { value: boss.body.id } },
      groups: [{ value: expect.stringMatching(/^team_/), display: 'Finance Canaries' }],
    });
    const member = (await s.client.ok('member.get', { memberId: created.body.id })).member;
    expect(member).toMatchObject({ employeeId: 'E-1001', managerId: boss.body.id, title: 'Controller of Canaries' });

    // A second user of the same department joins the same team: no second team.
    const second = await scim.write(
      ['member.record.create'],
      () => scim.post('/Users', { schemas: [USER], userName: 'eli@example.com', displayName: 'Eli', [ENTERPRISE]: { department: 'finance canaries' } }),
      201,
    );
    expect(second.body.groups.map((g: any) => g.value)).toEqual(created.body.groups.map((g: any) => g.value));
    // The enterprise filter Entra and Okta may send: employeeNumber is case-exact.
    expect((await scim.get(`/Users${filterQuery(`${ENTERPRISE}:employeeNumber eq "E-1001"`)}`)).body.Resources.map((r: any) => r.id)).toEqual([
      created.body.id,
    ]);
    expect((await scim.get(`/Users${filterQuery(`${ENTERPRISE}:employeeNumber eq "e-1001"`)}`)).body.totalResults).toBe(0);

    // Clearing the department takes the member out of its primary team.
    const cleared = await scim.write(
      ['member.teams.assign'],
      () => scim.patch(`/Users/${created.body.id}`, { Operations: [{ op: 'remove', path: `${ENTERPRISE}:department` }] }),
      200,
    );
    expect(cleared.body.groups).toEqual([]);
    expect(cleared.body[ENTERPRISE]).not.toHaveProperty('department');
  });
});

describe('Entra ID: documented bodies', () => {
  it('the verbatim create body: userName (not an email) and the work email kept apart, round-tripped, looked up by either', async () => {
    const userName = entra.createUser.userName;
    const email = entra.createUser.emails[0].value;
    expect((await scim.get(`/Users${entra.lookupNone}`)).body).toMatchObject({ totalResults: 0, Resources: [] });
    expect((await scim.get(`/Users${entra.lookup(userName)}`)).body.totalResults).toBe(0);
    // The userName and the email stay out of the ledger (personal data), as every value does.
    const created = await scim.write(['member.record.create'], () => scim.post('/Users', entra.createUser), 201, [userName, email, 'givenName familyName']);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName,
      emails: [{ value: email, type: 'work', primary: true }],
      name: { formatted: 'givenName familyName', givenName: 'givenName', familyName: 'familyName' },
      active: true,
    });
    expect((await s.client.ok('member.get', { memberId: id })).member).toMatchObject({ userName, email, name: 'givenName familyName' });
    // "Get User by query" finds it by userName (ignoring case) and by the work email, each its own attribute.
    expect((await scim.get(`/Users${entra.lookup(userName.toUpperCase())}`)).body.Resources.map((r: any) => r.id)).toEqual([id]);
    expect((await scim.get(`/Users${filterQuery(`emails[type eq "work" and value eq "${email}"]`)}`)).body.Resources.map((r: any) => r.id)).toEqual([id]);
    expect((await scim.get(`/Users${entra.lookup(email)}`)).body.totalResults).toBe(0);
    expect((await scim.get(`/Users/${id}`)).body).toEqual(created.body);
    // Another user with that userName (in another case) is refused, whatever its email.
    const twin = { ...entra.createUser, externalId: 'another', userName: userName.toLowerCase(), emails: [{ type: 'work', value: 'twin@testuser.com' }] };
    expect(await expectScimError(scim, () => scim.post('/Users', twin), 409, 'uniqueness')).toBe(
      `userName: already used by member ${id}; choose another or update that member`,
    );
  });

  it('create, multi-valued and single-valued updates, string-boolean disable, manager by bare id, givenName', async () => {
    const body = {
      ...entra.createUser,
      externalId: 'entra-2',
      userName: 'Test_User_second',
      emails: [{ primary: true, type: 'work', value: 'second@testuser.com' }],
    };
    const created = await scim.write(['member.record.create'], () => scim.post('/Users', body), 201);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ externalId: 'entra-2', displayName: 'givenName familyName', active: true });

    // "Update User [Multi-valued properties]": the work email changes, the userName stays.
    const updated = await scim.write(['member.record.update'], () => scim.patch(`/Users/${id}`, entra.updateEmailAndFamilyName), 200, [
      'updatedEmail@microsoft.com',
      'updatedFamilyName',
    ]);
    expect(updated.body).toMatchObject({
      userName: 'Test_User_second',
      emails: [{ value: 'updatedEmail@microsoft.com', type: 'work', primary: true }],
      name: { givenName: 'givenName', familyName: 'updatedFamilyName' },
    });
    // "Update User [Single-valued properties]": the userName changes, the email stays; the event names the field only.
    const seq = await head(s.client);
    const renamed = await scim.write(['member.record.update'], () => scim.patch(`/Users/${id}`, entra.updateUserName), 200, [
      '5b50642d-79fc-4410-9e90-4c077cdd1a59',
    ]);
    expect(renamed.body).toMatchObject({ userName: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com', emails: [{ value: 'updatedEmail@microsoft.com' }] });
    expect((await eventsAfter(s.client, seq))[0].payload.fields).toEqual(['userName']);
    expect((await s.client.ok('member.get', { memberId: id })).member).toMatchObject({
      userName: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com',
      email: 'updatedEmail@microsoft.com',
    });
    // Entra's "Users can be queried by userName or emails[type eq "work"]".
    expect(
      (await scim.get(`/Users${filterQuery('userName eq "5B50642D-79fc-4410-9e90-4c077cdd1a59@testuser.com"')}`)).body.Resources.map((r: any) => r.id),
    ).toEqual([id]);
    expect(
      (await scim.get(`/Users${filterQuery('emails[type eq "work" and value eq "UPDATEDEMAIL@microsoft.com"]')}`)).body.Resources.map((r: any) => r.id),
    ).toEqual([id]);

    // A userName set to the work email is kept as the email alone; removing the email keeps the userName.
    const same = await scim.write(
      ['member.record.update'],
      () => scim.patch(`/Users/${id}`, { Operations: [{ op: 'Replace', path: 'userName', value: 'UpdatedEmail@microsoft.com' }] }),
      200,
    );
    expect(same.body.userName).toBe('updatedEmail@microsoft.com');
    expect((await s.client.ok('member.get', { memberId: id })).member.userName).toBeNull();
    const noMail = await scim.write(['member.record.update'], () => scim.patch(`/Users/${id}`, { Operations: [{ op: 'Remove', path: 'emails' }] }), 200);
    expect(noMail.body.userName).toBe('updatedEmail@microsoft.com');
    expect(noMail.body).not.toHaveProperty('emails');
    expect((await s.client.ok('member.get', { memberId: id })).member).toMatchObject({ userName: 'updatedEmail@microsoft.com', email: null });

    const key = await keyOf(id);
    await scim.write(['admin.member.deactivate'], () => scim.patch(`/Users/${id}`, entra.disable), 200);
    expect(await statusWith(key)).toBe(401);
    await scim.write(['admin.member.reactivate'], () => scim.patch(`/Users/${id}`, entra.enable), 200);
    expect(await statusWith(key)).toBe(200);

    const m1 = (await scim.post('/Users', { schemas: [USER], userName: 'mgr1@example.com', displayName: 'Manager One' })).body.id;
    const m2 = (await scim.post('/Users', { schemas: [USER], userName: 'mgr2@example.com', displayName: 'Manager Two' })).body.id;
    const added = await scim.write(['member.record.update'], () => scim.patch(`/Users/${id}`, entra.addManager(m1)), 200);
    expect(added.body[ENTERPRISE].manager.value).toBe(m1);
    const moved = await scim.write(['member.record.update'], () => scim.patch(`/Users/${id}`, entra.replaceManager(m2)), 200);
    expect(moved.body[ENTERPRISE].manager.value).toBe(m2);
    expect((await s.client.ok('member.get', { memberId: id })).member.managerId).toBe(m2);
    // A manager that would close a reporting cycle: the member family's BAD_REQUEST, as SCIM's invalidValue.
    const cycle = await expectScimError(scim, () => scim.patch(`/Users/${m2}`, entra.addManager(id)), 400, 'invalidValue');
    expect(cycle).toContain(`${ENTERPRISE}:manager.value`);

    const given = await scim.write(['member.record.update'], () => scim.patch(`/Users/${id}`, entra.givenName), 200);
    expect(given.body.name).toMatchObject({ givenName: 'Ryan', familyName: 'updatedFamilyName' });
    expect(given.body.displayName).toBe('Ryan updatedFamilyName');
  });
});

describe('lists, conflicts, unknown ids, delete', () => {
  it('startIndex and count page in creation order, with totalResults', async () => {
    // A fresh org, so the totals are ours alone.
    const admin = new TestClient(s.app, (await freshOrg(s.runtime, 'page')).adminKey);
    const other = new ScimClient(s, (await admin.mint({ tier: 'scim' })).apiKey);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await other.post('/Users', { schemas: [USER], userName: `p${i}@example.com`, displayName: `Page ${i}` })).body.id);
    const page = await other.get('/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: 6, startIndex: 2, itemsPerPage: 2 });
    // The org's first member (its admin) is a user too; ours follow in creation order.
    expect(page.body.Resources.map((r: any) => r.id)).toEqual([ids[0], ids[1]]);
    const last = await other.get(`/Users${filterQuery('userName ew "@example.com"', '&startIndex=5&count=10')}`);
    expect(last.body).toMatchObject({ totalResults: 5, startIndex: 5, itemsPerPage: 1 });
    expect(last.body.Resources[0].id).toBe(ids[4]);
    const projected = await other.get(`/Users?count=1&startIndex=2&attributes=userName`);
    expect(Object.keys(projected.body.Resources[0]).sort()).toEqual(['id', 'meta', 'schemas', 'userName']);
    expect((await other.get('/Users?count=0')).body).toMatchObject({ totalResults: 6, Resources: [] });
  });

  it('a taken userName or employeeNumber is 409 uniqueness; unknown ids 404; a bad filter 400 invalidFilter', async () => {
    const a = await scim.post('/Users', { schemas: [USER], userName: 'unique@example.com', displayName: 'U One', [ENTERPRISE]: { employeeNumber: 'U-1' } });
    const b = await scim.post('/Users', { schemas: [USER], userName: 'unique2@example.com', displayName: 'U Two' });
    expect(await expectScimError(scim, () => scim.post('/Users', { schemas: [USER], userName: 'UNIQUE@example.com' }), 409, 'uniqueness')).toMatch(
      /^userName: already used by/,
    );
    await expectScimError(scim, () => scim.put(`/Users/${b.body.id}`, { schemas: [USER], userName: 'unique@example.com' }), 409, 'uniqueness');
    await expectScimError(
      scim,
      () => scim.patch(`/Users/${b.body.id}`, { Operations: [{ op: 'replace', path: `${ENTERPRISE}:employeeNumber`, value: 'U-1' }] }),
      409,
      'uniqueness',
    );
    // Bad values name the SCIM attribute they came from.
    expect(await expectScimError(scim, () => scim.post('/Users', { schemas: [USER], userName: 'bell\u0007name' }), 400, 'invalidValue')).toMatch(
      /^userName: must not contain control characters/,
    );
    expect(
      await expectScimError(scim, () => scim.post('/Users', { schemas: [USER], userName: 'x'.repeat(255), displayName: 'Long' }), 400, 'invalidValue'),
    ).toMatch(/^userName: must be at most 254/);
    expect(
      await expectScimError(scim, () => scim.post('/Users', { schemas: [USER], userName: 'login', emails: [{ value: 'not-mail' }] }), 400, 'invalidValue'),
    ).toMatch(/^emails\.value: must be an email address/);
    expect(a.status).toBe(201);

    for (const id of ['usr_doesnotexist', 'nonsense', 'agt_abc']) {
      await expectScimError(scim, () => scim.get(`/Users/${id}`), 404);
      await expectScimError(scim, () => scim.put(`/Users/${id}`, { schemas: [USER], userName: 'x@example.com' }), 404);
      await expectScimError(scim, () => scim.patch(`/Users/${id}`, okta.deactivate), 404);
      await expectScimError(scim, () => scim.delete(`/Users/${id}`), 404);
    }
    await expectScimError(scim, () => scim.get(`/Users${filterQuery('userName eq')}`), 400, 'invalidFilter');
    await expectScimError(scim, () => scim.get(`/Users${filterQuery('userName xx "a"')}`), 400, 'invalidFilter');
  });

  it('DELETE offboards (user.deactivate, work to the manager): 204, keys revoked, then 404; without a manager 409 naming the fix', async () => {
    const boss = await scim.post('/Users', { schemas: [USER], userName: 'lead@example.com', displayName: 'Lea Lead' });
    const u = await scim.post('/Users', {
      schemas: [USER],
      userName: 'leaver@example.com',
      displayName: 'Lee Leaver',
      [ENTERPRISE]: { manager: { value: boss.body.id } },
    });
    const key = await keyOf(u.body.id);
    const res = await scim.write(['user.access.deactivate'], () => scim.delete(`/Users/${u.body.id}`), 204, ['leaver@example.com', 'Lee Leaver']);
    expect(res.body).toBeUndefined();
    expect(await statusWith(key)).toBe(401);
    await expectScimError(scim, () => scim.get(`/Users/${u.body.id}`), 404);
    await expectScimError(scim, () => scim.delete(`/Users/${u.body.id}`), 404);
    expect((await s.client.ok('member.get', { memberId: u.body.id })).member.status).toBe('deactivated');

    // Nobody to hand the work to: refused, nothing written; access is cut by active false meanwhile.
    const detail = await expectScimError(scim, () => scim.delete(`/Users/${boss.body.id}`), 409);
    expect(detail).toContain(`${ENTERPRISE}:manager`);
  });
});
