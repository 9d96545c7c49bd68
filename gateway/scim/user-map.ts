import type { Member } from '../../domain/people/member/model.js';
import { invalid } from './errors.js';
import { ENTERPRISE_SCHEMA, USER_SCHEMA } from './schemas.js';

/**
 * A member as a SCIM User, and a SCIM User (as POSTed, PUT or patched) as the member fields it asks for.
 * Mapping: userName = the member's userName, or its email when that is the userName (member.userName is kept
 * only when it differs); emails[work] = email; displayName and name = name; title; timezone; externalId;
 * active = not suspended; enterprise employeeNumber = employeeId, manager.value = managerId, department = the
 * primary team's name. The member keeps one display name, so givenName and familyName are derived from it.
 */

/** A member's teams, primary first (member.get's shape). */
export const teamsOf = (m: Member): { teamId: string; primary: boolean }[] => m.teams;

/** Humans in these statuses are SCIM users; deactivated (DELETE) and archived ones are gone (404). */
export const VISIBLE_STATUSES = ['active', 'invited', 'suspended'] as const;

export interface UserContext {
  base: string;
  /** Team id -> name, for the groups and department of the members rendered. */
  teamNames: ReadonlyMap<string, string>;
}

/** The display name split at its last space: RFC 7643's givenName and familyName for a one-field name. */
export function splitName(name: string): { givenName: string; familyName?: string } {
  const at = name.trim().lastIndexOf(' ');
  return at < 0 ? { givenName: name.trim() } : { givenName: name.slice(0, at).trim(), familyName: name.slice(at + 1).trim() };
}

export function toScimUser(m: Member, ctx: UserContext): Record<string, any> {
  const primary = teamsOf(m).find((t) => t.primary);
  const department = primary ? ctx.teamNames.get(primary.teamId) : undefined;
  const enterprise = {
    ...(m.employeeId !== null ? { employeeNumber: m.employeeId } : {}),
    ...(department !== undefined ? { department } : {}),
    ...(m.managerId !== null ? { manager: { value: m.managerId, $ref: `${ctx.base}/Users/${m.managerId}` } } : {}),
  };
  return {
    schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
    id: m.id,
    ...(m.externalId !== null ? { externalId: m.externalId } : {}),
    userName: m.userName ?? m.email ?? m.handle ?? m.id,
    name: { formatted: m.name, ...splitName(m.name) },
    displayName: m.name,
    ...(m.title !== null ? { title: m.title } : {}),
    ...(m.timezone !== null ? { timezone: m.timezone } : {}),
    active: m.status !== 'suspended',
    ...(m.email !== null ? { emails: [{ value: m.email, type: 'work', primary: true }] } : {}),
    groups: teamsOf(m).map((t) => ({
      value: t.teamId,
      $ref: `${ctx.base}/Groups/${t.teamId}`,
      ...(ctx.teamNames.has(t.teamId) ? { display: ctx.teamNames.get(t.teamId) } : {}),
    })),
    [ENTERPRISE_SCHEMA]: enterprise,
    meta: {
      resourceType: 'User',
      created: m.createdAt,
      lastModified: m.updatedAt,
      location: `${ctx.base}/Users/${m.id}`,
    },
  };
}

/** An attribute of an object by its name in any case (RFC 7643 section 2.1: names are case-insensitive). */
function field(obj: unknown, name: string): unknown {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return undefined;
  const key = Object.keys(obj).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : (obj as Record<string, unknown>)[key];
}

/** undefined: not given; null: cleared (null or an empty string); else the string. */
function str(v: unknown, attr: string): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  if (typeof v !== 'string') throw invalid(`${attr}: must be a string`);
  return v;
}

/** SCIM booleans, and the strings "True"/"False" some Entra ID jobs send (its SCIM compliance notes). */
function bool(v: unknown, attr: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw invalid(`${attr}: must be true or false`);
}

/** Shaped like an email address (the member contract checks it in full). */
export const looksLikeEmail = (v: string) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v);

/** A reference as an id: "id", {value: "id"} or [{value: "id"}] (clients send all three for manager). */
function refId(v: unknown, attr: string): string | null | undefined {
  if (Array.isArray(v)) return v.length === 0 ? null : refId(v[0], attr);
  if (v !== null && typeof v === 'object') return refId(field(v, 'value') ?? null, attr);
  return str(v, attr);
}

const MANAGER = `${ENTERPRISE_SCHEMA}:manager`;

/** The values of the mapped attributes a SCIM User states (undefined where it says nothing). */
export function userValues(r: unknown) {
  const name = field(r, 'name');
  const emails = field(r, 'emails');
  const list = Array.isArray(emails) ? emails : emails === undefined || emails === null ? [] : [emails];
  const work = list.find((e) => String(field(e, 'type') ?? '').toLowerCase() === 'work') ?? list.find((e) => field(e, 'primary') === true) ?? list[0];
  const ext = field(r, ENTERPRISE_SCHEMA);
  return {
    id: field(r, 'id'),
    userName: str(field(r, 'userName'), 'userName'),
    displayName: str(field(r, 'displayName'), 'displayName'),
    formatted: str(field(name, 'formatted'), 'name.formatted'),
    givenName: str(field(name, 'givenName'), 'name.givenName'),
    familyName: str(field(name, 'familyName'), 'name.familyName'),
    workEmail: emails === undefined ? undefined : work === undefined ? null : str(field(work, 'value'), 'emails.value'),
    title: str(field(r, 'title'), 'title'),
    timezone: str(field(r, 'timezone'), 'timezone'),
    externalId: str(field(r, 'externalId'), 'externalId'),
    active: bool(field(r, 'active'), 'active'),
    employeeId: str(field(ext, 'employeeNumber'), `${ENTERPRISE_SCHEMA}:employeeNumber`),
    department: str(field(ext, 'department'), `${ENTERPRISE_SCHEMA}:department`),
    managerId: refId(field(ext, 'manager'), MANAGER),
  };
}
type Values = ReturnType<typeof userValues>;

/** What a write asks of the member: member.create/update fields, and its department and activity. */
export interface UserChange {
  fields: Record<string, string | null>;
  /** The primary team's name; null: leave the primary team. */
  department?: string | null;
  active?: boolean;
}

/** The member's own userName and email (before's userName may be the email, handle or id standing in). */
export interface Stored {
  userName: string | null;
  email: string | null;
}
const NOTHING_STORED: Stored = { userName: null, email: null };

/**
 * The changes from `before` to `after` (`stored`: the member's own userName and email). `complete`: after is a
 * whole resource (a patched one), so an attribute it lacks is cleared; otherwise (POST, PUT) an attribute left
 * out is not asserted and stays.
 */
export function userChange(before: Values, after: Values, complete: boolean, stored: Stored = NOTHING_STORED): UserChange {
  const given = (k: keyof Values) => (complete ? (after[k] ?? null) : after[k]);
  const changed = (k: keyof Values) => given(k) !== undefined && given(k) !== (before[k] ?? null);
  const fields: Record<string, string | null> = {};

  if (changed('displayName')) fields.name = after.displayName as string | null;
  else if (changed('formatted')) fields.name = after.formatted as string | null;
  else if (changed('givenName') || changed('familyName')) {
    fields.name = [given('givenName') ?? before.givenName, given('familyName') ?? before.familyName].filter((s) => s).join(' ');
  }
  if (fields.name === null || fields.name === '') throw invalid('displayName: a member needs a name (displayName or name.formatted)');

  // userName and the work email are separate: the member keeps a userName of its own only when it is not the
  // email (ignoring case), so a write of either changes that one alone.
  const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v);
  const userNameChanged = given('userName') !== undefined && given('userName') !== before.userName;
  const emailChanged = given('workEmail') !== undefined && lower(given('workEmail')) !== lower(stored.email);
  if (userNameChanged && given('userName') === null) throw invalid('userName: required');
  if (emailChanged) {
    const email = given('workEmail') as string | null;
    if (email !== null && !looksLikeEmail(email)) throw invalid('emails.value: must be an email address');
    fields.email = email;
  }
  if (userNameChanged || emailChanged) {
    const userName = userNameChanged ? (given('userName') as string) : (stored.userName ?? stored.email);
    const email = emailChanged ? fields.email : stored.email;
    const kept = userName === null || lower(userName) === lower(email) ? null : userName;
    if (kept !== stored.userName) fields.userName = kept;
  }

  for (const [attr, param] of [
    ['title', 'title'],
    ['timezone', 'timezone'],
    ['externalId', 'externalId'],
    ['employeeId', 'employeeId'],
    ['managerId', 'managerId'],
  ] as const) {
    if (changed(attr)) fields[param] = given(attr) as string | null;
  }
  const out: UserChange = { fields };
  if (changed('department')) out.department = given('department') as string | null;
  if (after.active !== undefined && after.active !== before.active) out.active = after.active;
  return out;
}

/** A new member's values: nothing stated yet. */
export const NO_VALUES: Values = userValues({});

/** The registry field names a SCIM User's attributes become, for error details. */
export const USER_FIELD_NAMES: Readonly<Record<string, string>> = {
  name: 'displayName',
  email: 'emails',
  userName: 'userName',
  title: 'title',
  timezone: 'timezone',
  externalId: 'externalId',
  employeeId: `${ENTERPRISE_SCHEMA}:employeeNumber`,
  managerId: `${MANAGER}.value`,
  memberId: 'id',
  userId: 'id',
  teamIds: `${ENTERPRISE_SCHEMA}:department`,
};
