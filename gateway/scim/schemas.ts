/**
 * SCIM discovery (RFC 7644 section 4, RFC 7643 sections 5-7): what this service provider supports, stated
 * exactly. The schemas list only the attributes the face maps onto members and teams; anything else a client
 * sends is ignored (RFC 7643 section 2: a service provider may support a subset).
 */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const SPC_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** Most resources one page returns (count above it is lowered to it, RFC 7644 section 3.4.2.4). */
export const MAX_PAGE = 200;

type Attr = {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'reference' | 'dateTime';
  description: string;
  mutability?: 'readOnly' | 'readWrite' | 'immutable';
  required?: boolean;
  multiValued?: boolean;
  uniqueness?: 'none' | 'server' | 'global';
  caseExact?: boolean;
  referenceTypes?: string[];
  subAttributes?: Attr[];
};

/** RFC 7643 section 7 attribute characteristics, defaults filled in. */
const attr = (a: Attr): Record<string, unknown> => ({
  name: a.name,
  type: a.type,
  multiValued: a.multiValued ?? false,
  description: a.description,
  required: a.required ?? false,
  caseExact: a.caseExact ?? false,
  mutability: a.mutability ?? 'readWrite',
  returned: 'default',
  uniqueness: a.uniqueness ?? 'none',
  ...(a.referenceTypes ? { referenceTypes: a.referenceTypes } : {}),
  ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attr) } : {}),
});

const ref = (name: string, description: string, types: string[], mutability: Attr['mutability'] = 'readWrite'): Attr[] => [
  { name: 'value', type: 'string', description: `${name}: the id.`, mutability },
  { name: '$ref', type: 'reference', description: `${name}: its URI.`, mutability, referenceTypes: types },
  { name: 'display', type: 'string', description, mutability: 'readOnly' },
];

const USER_ATTRS: Attr[] = [
  {
    name: 'userName',
    type: 'string',
    required: true,
    uniqueness: 'server',
    description:
      'The name the member signs in with at the identity provider (member userName), any form: an email, a userPrincipalName, a login. Unique in the org ignoring case, also against the work email of a member without a userName of its own. When it equals the work email it is kept as the email alone; a member with neither shows its handle. Created with no emails, a userName that is an email address is the work email too.',
  },
  {
    name: 'name',
    type: 'complex',
    description: 'The member has one display name: formatted is it; givenName and familyName are it split at the last space.',
    subAttributes: [
      { name: 'formatted', type: 'string', description: 'The display name.' },
      { name: 'givenName', type: 'string', description: 'All but the last word of the display name.' },
      { name: 'familyName', type: 'string', description: 'The last word of the display name.' },
    ],
  },
  { name: 'displayName', type: 'string', description: 'The display name (wins over name when both change).' },
  { name: 'title', type: 'string', description: 'Job title.' },
  { name: 'timezone', type: 'string', description: 'IANA time zone, e.g. Europe/Berlin.' },
  { name: 'active', type: 'boolean', description: 'false suspends the member (admin.deactivate: its API keys stop at once); true reactivates it.' },
  {
    name: 'emails',
    type: 'complex',
    multiValued: true,
    description:
      'One work email (member email), separate from userName: changing one leaves the other. The work one (type work, else the primary one, else the first) is kept; removing it clears the email.',
    subAttributes: [
      { name: 'value', type: 'string', description: 'The email.' },
      { name: 'type', type: 'string', description: 'Always work.' },
      { name: 'primary', type: 'boolean', description: 'Always true.' },
    ],
  },
  {
    name: 'groups',
    type: 'complex',
    multiValued: true,
    mutability: 'readOnly',
    description: "The member's teams (change them through /Groups).",
    subAttributes: ref('group', "The team's name.", ['Group'], 'readOnly'),
  },
];

const ENTERPRISE_ATTRS: Attr[] = [
  {
    name: 'employeeNumber',
    type: 'string',
    uniqueness: 'server',
    caseExact: true,
    description: 'The HR employee number (member employeeId), unique in the org.',
  },
  {
    name: 'department',
    type: 'string',
    description:
      "The name of the member's primary team: a live team of that name becomes primary (one is created when none has it); clearing it takes the member out of its primary team.",
  },
  { name: 'manager', type: 'complex', description: 'The member this one reports to.', subAttributes: ref('manager', "The manager's display name.", ['User']) },
];

const GROUP_ATTRS: Attr[] = [
  { name: 'displayName', type: 'string', required: true, uniqueness: 'server', description: 'The team name, unique among live teams (case-insensitive).' },
  {
    name: 'members',
    type: 'complex',
    multiValued: true,
    description: "The team's human members that /Users shows; its agents are kept and not shown.",
    subAttributes: ref('member', "The member's display name.", ['User']),
  },
];

const schema = (id: string, name: string, description: string, attributes: Attr[], base: string) => ({
  schemas: [SCHEMA_SCHEMA],
  id,
  name,
  description,
  attributes: attributes.map(attr),
  meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
});

export const schemas = (base: string) => [
  schema(USER_SCHEMA, 'User', 'A human member of the org.', USER_ATTRS, base),
  schema(ENTERPRISE_SCHEMA, 'EnterpriseUser', 'HR fields of a member.', ENTERPRISE_ATTRS, base),
  schema(GROUP_SCHEMA, 'Group', 'A team of the org.', GROUP_ATTRS, base),
];

export const resourceTypes = (base: string) => [
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'User',
    name: 'User',
    endpoint: '/Users',
    description: 'Human members',
    schema: USER_SCHEMA,
    schemaExtensions: [{ schema: ENTERPRISE_SCHEMA, required: false }],
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
  },
  {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: 'Group',
    name: 'Group',
    endpoint: '/Groups',
    description: 'Teams',
    schema: GROUP_SCHEMA,
    schemaExtensions: [],
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
  },
];

export const serviceProviderConfig = (base: string, documentationUri: string) => ({
  schemas: [SPC_SCHEMA],
  documentationUri,
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_PAGE },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'Bearer API key',
      description: 'An API key of tier scim (settings.mintApiKey {tier: "scim"}), sent as Authorization: Bearer <key>.',
      specUri: 'https://www.rfc-editor.org/info/rfc6750',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});
