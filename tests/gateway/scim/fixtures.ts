/**
 * Request bodies as the identity providers document them, replayed by the SCIM tests. Ids the documents show
 * (Okta's "23a35c27-…", Entra's "f648f8d5ea4e4cd38e9c") are the server's ids, so they are functions of ours;
 * every other value is the document's, except where a comment says why.
 */
import { ENTERPRISE, GROUP, PATCH_OP, USER } from './client.js';

/*
 * Okta: "SCIM 2.0 protocol reference",
 * https://developer.okta.com/docs/api/openapi/okta-scim/guides/scim-20
 */
export const okta = {
  /** "Determine if the User object exists": Okta's first request for every assigned user. */
  lookup: (userName: string) => `?filter=${encodeURIComponent(`userName eq "${userName}"`)}&startIndex=1&count=100`,
  /** "Create the User". Okta sends password, locale and groups too; this server keeps no password. */
  createUser: {
    schemas: [USER],
    userName: 'test.user@okta.local',
    name: { givenName: 'Test', familyName: 'User' },
    emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
    displayName: 'Test User',
    locale: 'en-US',
    externalId: '00ujl29u0le5T6Aj10h7',
    groups: [],
    password: '1mz050nq',
    active: true,
  },
  /** "Update a specific User (PUT)": the whole profile, here with a changed family name. */
  replaceUser: (id: string) => ({
    schemas: [USER],
    id,
    userName: 'test.user@okta.local',
    name: { givenName: 'Another', familyName: 'User' },
    emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
    active: true,
    groups: [],
    meta: { resourceType: 'User' },
  }),
  /** "Update a specific User (PATCH)": deactivation. */
  deactivate: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: false } }] },
  reactivate: { schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { active: true } }] },
  /** "Create Groups". */
  createGroup: { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] },
  groupLookup: (name: string) => `?filter=${encodeURIComponent(`displayName eq "${name}"`)}&startIndex=1&count=100`,
  /** "Update a specific Group name". */
  renameGroup: (id: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { id, displayName: 'Test SCIMv2 renamed' } }] }),
  /** "Update specific Group membership": add, then remove one. */
  addMember: (userId: string) => ({
    schemas: [PATCH_OP],
    Operations: [{ op: 'add', path: 'members', value: [{ value: userId, display: 'test.user@okta.local' }] }],
  }),
  removeMember: (userId: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'remove', path: `members[value eq "${userId}"]` }] }),
  /** "Update Group details (PUT)" replaces displayName and members. */
  replaceGroup: (id: string, userIds: string[]) => ({
    schemas: [GROUP],
    id,
    displayName: 'Test SCIMv2 replaced',
    members: userIds.map((value) => ({ value, display: 'test.user@okta.local' })),
  }),
};

/*
 * Microsoft Entra ID: "Tutorial: Develop a sample SCIM endpoint" / "SCIM protocol requests and responses",
 * https://learn.microsoft.com/en-us/entra/identity/app-provisioning/use-scim-to-provision-users-and-groups
 * and, for the string boolean and the manager add, "Known issues and resolutions with SCIM 2.0 protocol compliance",
 * https://learn.microsoft.com/en-us/entra/identity/app-provisioning/application-provisioning-config-problem-scim-compatibility
 */
export const entra = {
  /** "Get User by query": Entra looks a user up by userName before creating it. */
  lookup: (userName: string) => `?filter=${encodeURIComponent(`userName eq "${userName}"`)}`,
  /** "Get User by query - Zero results", verbatim. */
  lookupNone: `?filter=${encodeURIComponent('userName eq "non-existent user"')}`,
  /** "Create User", verbatim: userName (a userPrincipalName in a real tenant) is not the work email. */
  createUser: {
    schemas: [USER, ENTERPRISE],
    externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
    userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
    active: true,
    emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
    meta: { resourceType: 'User' },
    name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
    roles: [],
  },
  /** "Update User [Multi-valued properties]". */
  updateEmailAndFamilyName: {
    schemas: [PATCH_OP],
    Operations: [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
    ],
  },
  /** "Update User [Single-valued properties]". */
  updateUserName: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'userName', value: '5b50642d-79fc-4410-9e90-4c077cdd1a59@testuser.com' }] },
  /** Known issues: Entra's default (pre-aadOptscim062020) disable, capitalised op and a string boolean, no schemas. */
  disable: { Operations: [{ op: 'Replace', path: 'active', value: 'False' }] },
  enable: { Operations: [{ op: 'Replace', path: 'active', value: 'True' }] },
  /** Known issues: the manager as a bare id. */
  addManager: (managerId: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'Add', path: `${ENTERPRISE}:manager`, value: managerId }] }),
  replaceManager: (managerId: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: `${ENTERPRISE}:manager`, value: managerId }] }),
  givenName: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'name.givenName', value: 'Ryan' }] },
  /** "Create Group": Entra's extra schema and externalId are ignored (teams keep no external id). */
  createGroup: {
    schemas: [GROUP, 'http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group'],
    externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
    displayName: 'displayName',
    meta: { resourceType: 'Group' },
  },
  /** "Get Group by displayName". */
  groupLookup: `?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`,
  /** "Update Group [Non-member attributes]". */
  renameGroup: { schemas: [PATCH_OP], Operations: [{ op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' }] },
  /** "Update Group [Add Members]" and "[Remove Members]". */
  addMember: (userId: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: userId }] }] }),
  removeMember: (userId: string) => ({ schemas: [PATCH_OP], Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: userId }] }] }),
};
