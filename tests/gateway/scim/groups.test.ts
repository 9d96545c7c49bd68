import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { expectScimError, filterQuery, GROUP, ScimClient, USER } from './client.js';
import { entra, okta } from './fixtures.js';

/** /scim/v2/Groups: teams, with Okta's and Entra ID's documented bodies; membership is member.assignTeam per member. */

let s: TestServer;
let scim: ScimClient;
let ann: string;
let bob: string;
beforeAll(async () => {
  s = await testServer();
  scim = new ScimClient(s, (await s.client.mint({ tier: 'scim' }, 'Entra provisioning')).apiKey);
  ann = (await scim.post('/Users', { schemas: [USER], userName: 'ann.canary@example.com', displayName: 'Ann Canary' })).body.id;
  bob = (await scim.post('/Users', { schemas: [USER], userName: 'bob@example.com', displayName: 'Bob' })).body.id;
});
afterAll(() => s.close());

const teamsOf = async (memberId: string) => (await s.client.ok('member.get', { memberId })).member.teams.map((t: any) => t.teamId);

describe('Okta', () => {
  it('create, lookup by displayName, rename, add and remove a member, PUT, DELETE', async () => {
    expect((await scim.get(`/Groups${okta.groupLookup('Test SCIMv2')}`)).body.totalResults).toBe(0);
    const created = await scim.write(['team.record.create'], () => scim.post('/Groups', okta.createGroup), 201, ['Test SCIMv2']);
    const id = created.body.id as string;
    expect(created.body).toMatchObject({ schemas: [GROUP], id: expect.stringMatching(/^team_/), displayName: 'Test SCIMv2', members: [] });
    expect(created.headers.location).toBe(created.body.meta.location);
    const found = await scim.get(`/Groups${okta.groupLookup('test scimv2')}`);
    expect(found.body.Resources.map((g: any) => g.id)).toEqual([id]);

    const renamed = await scim.write(['team.record.update'], () => scim.patch(`/Groups/${id}`, okta.renameGroup(id)), 200);
    expect(renamed.body.displayName).toBe('Test SCIMv2 renamed');

    const added = await scim.write(['member.teams.assign'], () => scim.patch(`/Groups/${id}`, okta.addMember(ann)), 200, ['ann.canary', 'Ann Canary']);
    expect(added.body.members).toEqual([{ value: ann, display: 'Ann Canary', $ref: expect.stringMatching(new RegExp(`/Users/${ann}$`)) }]);
    expect(await teamsOf(ann)).toEqual([id]);
    // The user shows the group, and the group filter by member finds it.
    expect((await scim.get(`/Users/${ann}`)).body.groups).toMatchObject([{ value: id, display: 'Test SCIMv2 renamed' }]);
    expect((await scim.get(`/Groups${filterQuery(`members[value eq "${ann}"]`)}`)).body.Resources.map((g: any) => g.id)).toEqual([id]);
    // Adding her again changes nothing: one noop event.
    await scim.write(['team.record.update'], () => scim.patch(`/Groups/${id}`, okta.addMember(ann)), 200);

    await scim.write(['member.teams.assign'], () => scim.patch(`/Groups/${id}`, okta.removeMember(ann)), 200);
    expect(await teamsOf(ann)).toEqual([]);

    const put = await scim.write(
      ['team.record.update', 'member.teams.assign', 'member.teams.assign'],
      () => scim.put(`/Groups/${id}`, okta.replaceGroup(id, [ann, bob])),
      200,
    );
    expect(put.body.displayName).toBe('Test SCIMv2 replaced');
    expect(put.body.members.map((m: any) => m.value).sort()).toEqual([ann, bob].sort());

    await scim.write(['team.record.delete'], () => scim.delete(`/Groups/${id}`), 204);
    await expectScimError(scim, () => scim.get(`/Groups/${id}`), 404);
    expect(await teamsOf(ann)).toEqual([]);
  });
});

describe('Entra ID', () => {
  it('create (externalId ignored), get by displayName without members, rename, add and remove members', async () => {
    const created = await scim.write(['team.record.create'], () => scim.post('/Groups', entra.createGroup), 201);
    const id = created.body.id as string;
    const lookup = await scim.get(`/Groups${entra.groupLookup}`);
    expect(lookup.body.Resources).toHaveLength(1);
    expect(lookup.body.Resources[0]).not.toHaveProperty('members');
    expect(lookup.body.Resources[0]).toMatchObject({ id, displayName: 'displayName' });
    expect((await scim.get(`/Groups/${id}?excludedAttributes=members`)).body).not.toHaveProperty('members');

    await scim.write(['team.record.update'], () => scim.patch(`/Groups/${id}`, entra.renameGroup), 200);
    await scim.write(['member.teams.assign'], () => scim.patch(`/Groups/${id}`, entra.addMember(bob)), 200);
    expect(await teamsOf(bob)).toContain(id);
    await scim.write(['member.teams.assign'], () => scim.patch(`/Groups/${id}`, entra.removeMember(bob)), 200);
    expect(await teamsOf(bob)).not.toContain(id);
    expect((await scim.get(`/Groups/${id}`)).body).toMatchObject({ displayName: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName', members: [] });
  });
});

describe('refusals', () => {
  it('a taken displayName 409 uniqueness; an unknown member 400; unknown ids 404; a bad filter 400', async () => {
    const g = await scim.post('/Groups', { schemas: [GROUP], displayName: 'Unique Team' });
    expect(g.status).toBe(201);
    expect(await expectScimError(scim, () => scim.post('/Groups', { schemas: [GROUP], displayName: 'unique team' }), 409, 'uniqueness')).toMatch(
      /^displayName: already used by/,
    );
    await expectScimError(scim, () => scim.post('/Groups', { schemas: [GROUP] }), 400, 'invalidValue');
    expect(await expectScimError(scim, () => scim.patch(`/Groups/${g.body.id}`, okta.addMember('usr_nobody')), 400, 'invalidValue')).toContain('usr_nobody');
    for (const id of ['team_nothere', 'nonsense']) {
      await expectScimError(scim, () => scim.get(`/Groups/${id}`), 404);
      await expectScimError(scim, () => scim.patch(`/Groups/${id}`, entra.renameGroup), 404);
      await expectScimError(scim, () => scim.put(`/Groups/${id}`, { schemas: [GROUP], displayName: 'x' }), 404);
      await expectScimError(scim, () => scim.delete(`/Groups/${id}`), 404);
    }
    await expectScimError(scim, () => scim.get(`/Groups${filterQuery('displayName eq "x" and')}`), 400, 'invalidFilter');
    await expectScimError(
      scim,
      () => scim.patch(`/Groups/${g.body.id}`, { Operations: [{ op: 'replace', path: 'members[value eq "usr_x"]', value: { value: 'usr_y' } }] }),
      400,
      'noTarget',
    );
  });

  it('paging: startIndex and count over teams in creation order', async () => {
    const all = await scim.get('/Groups?count=500');
    const total = all.body.totalResults as number;
    const page = await scim.get('/Groups?startIndex=2&count=1&excludedAttributes=members');
    expect(page.body).toMatchObject({ totalResults: total, startIndex: 2, itemsPerPage: 1 });
    expect(page.body.Resources[0].id).toBe(all.body.Resources[1].id);
  });
});
