import type { CountryCode } from 'libphonenumber-js/max';
import { badRequest, conflict } from '../../protocol/errors.js';
import { one } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { activeChannels, insertChannel, lockKeys, resolveChannel, type ChannelRow } from './channel-store.js';
import { makePrimary } from './channels.js';
import { refuseHeldEmail } from './dedupe.js';
import { noun, type PartyKind, type PartyRow } from './model.js';
import { DEFAULT_COUNTRY, normaliseEmail, normalisePhone, type ChannelKey } from './normalise.js';
import { addNewChannels, aliasesAfterRename, insertParty, linkFirstEmployer, type Change, type ChannelParam, type PartyOrigin } from './party-write.js';
import { refreshEmployers } from './terms.js';

/*
 * Writing parties from the contact view (contact.add/update, contacts.upsert): flat fields (name, email, phone,
 * organisation by name, title) onto the directory's rows, through the same keys, locks and holder checks as
 * directory.createPerson and addChannel. The callers emit their own events.
 */

/** A person's full name as given and family names: the last word is the family name (a guess; the name shown stays exact). */
export function splitName(name: string): { displayName: string; given: string; family: string | null } {
  const words = name.trim().split(/\s+/);
  const displayName = words.join(' ');
  return words.length > 1
    ? { displayName, given: words.slice(0, -1).join(' '), family: words[words.length - 1] }
    : { displayName, given: displayName, family: null };
}

/** The row changes of a new name (persons: given and family too); the old name is kept as an alias. */
export function renameChanges(row: PartyRow, name: string): Change[] {
  const split = splitName(name);
  if (split.displayName === row.display_name) return [];
  const changes: Change[] = [
    { field: 'name', column: 'display_name', value: split.displayName },
    { field: 'name', column: 'aliases', value: aliasesAfterRename(row.aliases, row.display_name, split.displayName) },
  ];
  if (row.kind === 'person')
    changes.push({ field: 'name', column: 'given_name', value: split.given }, { field: 'name', column: 'family_name', value: split.family });
  return changes;
}

const countryOf = (row: { country: string | null } | null): CountryCode => (row?.country ?? DEFAULT_COUNTRY) as CountryCode;

/** A value as its channel key, or BAD_REQUEST naming the field. */
export const contactKey = (kind: 'email' | 'phone', value: string, field: string, country: CountryCode = DEFAULT_COUNTRY): ChannelKey =>
  kind === 'email' ? normaliseEmail(value, field) : normalisePhone(value, field, country);

/**
 * The organisation a person's `organisation` names: the one active organisation whose folded name (dir_fold) is
 * that name's, else a new one made now. Several of that name: CONFLICT (never a guess; dedupe proposes merging
 * them). Serialised per folded name, so two calls naming a new organisation make one.
 */
export async function employerNamed(ctx: HandlerCtx, name: string, origin: PartyOrigin, field: string): Promise<{ partyId: string; created: boolean }> {
  const { fold } = one(await ctx.q.query<{ fold: string }>('SELECT dir_fold($1) AS fold', [name.trim()]));
  await lockKeys(ctx.q, ctx.orgId, [`orgname:${fold}`]);
  const found = await ctx.q.query<{ party_id: string }>(
    `SELECT party_id FROM directory_parties WHERE org_id = $1 AND kind = 'org' AND status = 'active' AND name_fold = $2 ORDER BY created_at, party_id LIMIT 6`,
    [ctx.orgId, fold],
  );
  if (found.length === 1) return { partyId: found[0].party_id, created: false };
  if (found.length > 1) {
    throw conflict(
      `${field}: ${found.length > 5 ? 'more than 5' : found.length} organisations have this name (${found
        .slice(0, 5)
        .map((f) => f.party_id)
        .join(', ')}); link the person to one (directory.linkParty), or merge them (directory.proposeMerge)`,
    );
  }
  const partyId = newId('co');
  await insertParty(ctx, { kind: 'org', partyId, displayName: name.trim().split(/\s+/).join(' '), origin });
  return { partyId, created: true };
}

export interface NewContact {
  kind: PartyKind;
  name: string;
  /** The name is a stand-in (the email or phone itself, contacts.upsert without a name): kept exactly, as the given name. */
  standIn?: boolean;
  email?: string;
  phone?: string;
  organisation?: string;
  title?: string;
}

/** Refuse person-only fields on an organisation. */
export function checkKindFields(kind: PartyKind, f: { organisation?: unknown; title?: unknown }): void {
  if (kind !== 'org') return;
  if (f.organisation !== undefined) throw badRequest('organisation', 'only a person works at an organisation');
  if (f.title !== undefined) throw badRequest('title', 'only a person has a job title');
}

/** Make a party from contact fields: its row, its email and phone (refused when another active person holds the email), its employer. */
export async function createContactParty(
  ctx: HandlerCtx,
  f: NewContact,
  origin: PartyOrigin,
): Promise<{ partyId: string; employer: { partyId: string; created: boolean } | null; channels: number }> {
  checkKindFields(f.kind, f);
  const channels: ChannelParam[] = [];
  const keys: ChannelKey[] = [];
  const fields: string[] = [];
  for (const kind of ['email', 'phone'] as const) {
    const value = f[kind];
    if (value === undefined) continue;
    channels.push({ kind, value });
    keys.push(contactKey(kind, value, `${kind}`));
    fields.push(`${kind}`);
  }
  const partyId = newId(f.kind === 'org' ? 'co' : 'per');
  const split = f.standIn ? { displayName: f.name.trim(), given: f.name.trim(), family: null } : splitName(f.name);
  await insertParty(ctx, {
    kind: f.kind,
    partyId,
    displayName: split.displayName,
    origin,
    ...(f.kind === 'person' ? { given: split.given, family: split.family, title: f.title?.trim() || null } : {}),
  });
  await addNewChannels(ctx, partyId, f.kind, channels, keys, origin, fields);
  const employer = f.organisation === undefined ? null : await employerNamed(ctx, f.organisation, origin, 'organisation');
  if (employer) await linkFirstEmployer(ctx, partyId, employer.partyId, null);
  return { partyId, employer, channels: keys.length };
}

/** Add a channel the party does not hold yet (primary when asked, or when it is the kind's first). */
async function addContactChannel(ctx: HandlerCtx, row: PartyRow, ck: ChannelKey, primary: boolean, origin: PartyOrigin, field: string): Promise<void> {
  await refuseHeldEmail(ctx.q, ctx.orgId, row.kind, ck, row.party_id, field);
  await insertChannel(ctx.q, ctx.orgId, row.party_id, ck, { primary, source: origin, createdBy: ctx.principal.id });
}

const heldBy = (channels: readonly ChannelRow[], ck: ChannelKey) => channels.find((c) => c.kind === ck.kind && c.key === ck.key);

/**
 * contact.update's email or phone: a new value becomes the primary (the old one stays as another channel); a
 * value held already is made primary; null removes the primary one (the next oldest becomes primary). Returns
 * whether anything changed. The party is locked by the caller.
 */
export async function setPrimaryValue(ctx: HandlerCtx, row: PartyRow, kind: 'email' | 'phone', value: string | null, origin: PartyOrigin): Promise<boolean> {
  const channels = await activeChannels(ctx.q, ctx.orgId, row.party_id);
  if (value === null) {
    const primary = channels.find((c) => c.kind === kind && c.is_primary);
    if (!primary) return false;
    await ctx.q.query(`UPDATE directory_channels SET status = 'removed', is_primary = false, removed_at = now() WHERE org_id = $1 AND channel_id = $2`, [
      ctx.orgId,
      primary.channel_id,
    ]);
    const next = channels.find((c) => c.kind === kind && c.channel_id !== primary.channel_id);
    if (next) await makePrimary(ctx.q, ctx.orgId, next);
    return true;
  }
  const ck = contactKey(kind, value, `${kind}`, countryOf(row));
  await lockKeys(ctx.q, ctx.orgId, [`${ck.kind}:${ck.key}`]);
  const held = heldBy(channels, ck);
  if (held?.is_primary) return false;
  if (held) await makePrimary(ctx.q, ctx.orgId, held);
  else await addContactChannel(ctx, row, ck, true, origin, `${kind}`);
  return true;
}

/** contacts.upsert's email or phone on a match: added when the party lacks that key (primary only if it has none of the kind). */
export async function addMissingValue(ctx: HandlerCtx, row: PartyRow, ck: ChannelKey, origin: PartyOrigin, field: string): Promise<boolean> {
  const channels = await activeChannels(ctx.q, ctx.orgId, row.party_id);
  if (heldBy(channels, ck)) return false;
  await addContactChannel(ctx, row, ck, false, origin, field);
  return true;
}

/**
 * A person's employer as the contact view shows it (one organisation): the link to the current employer ends
 * (kept as history) and the new one becomes the primary works_at link; null ends every works_at link. Returns
 * whether it changed.
 */
export async function setEmployer(ctx: HandlerCtx, row: PartyRow, orgPartyId: string | null): Promise<boolean> {
  if (row.employer_id === orgPartyId) return false;
  const end = (condition: string, args: unknown[]) =>
    ctx.q.query(
      `UPDATE directory_links SET status = 'ended', is_primary = false, ended_at = now()
        WHERE org_id = $1 AND from_id = $2 AND relation = 'works_at' AND status = 'active' ${condition}`,
      [ctx.orgId, row.party_id, ...args],
    );
  if (orgPartyId === null) await end('', []);
  else {
    if (row.employer_id) await end('AND to_id = $3', [row.employer_id]);
    await ctx.q.query(`UPDATE directory_links SET is_primary = false WHERE org_id = $1 AND from_id = $2 AND relation = 'works_at' AND is_primary`, [
      ctx.orgId,
      row.party_id,
    ]);
    const [open] = await ctx.q.query<{ link_id: string }>(
      `UPDATE directory_links SET is_primary = true WHERE org_id = $1 AND from_id = $2 AND to_id = $3 AND relation = 'works_at' AND status = 'active' RETURNING link_id`,
      [ctx.orgId, row.party_id, orgPartyId],
    );
    if (!open) {
      await ctx.q.query(
        `INSERT INTO directory_links (org_id, link_id, from_id, to_id, relation, is_primary, created_by) VALUES ($1, $2, $3, $4, 'works_at', true, $5)`,
        [ctx.orgId, newId('plk'), row.party_id, orgPartyId, ctx.principal.id],
      );
    }
  }
  await refreshEmployers(ctx.q, ctx.orgId, [row.party_id]);
  return true;
}

/** Whether the party's name is a stand-in: one of its own email addresses or numbers (contacts.upsert without a name). */
export async function hasStandInName(ctx: HandlerCtx, row: PartyRow): Promise<boolean> {
  const channels = await activeChannels(ctx.q, ctx.orgId, row.party_id);
  return channels.some((c) => c.value === row.display_name);
}

/**
 * The party contacts.upsert matches: the party holding the email key (resolveChannel: active before archived,
 * persons before organisations, merged ids followed), else the one active person holding the E.164. An archived
 * holder: CONFLICT naming the way back. Null: none (create).
 */
export async function matchContact(
  ctx: HandlerCtx,
  email: ChannelKey | null,
  phone: ChannelKey | null,
): Promise<{ partyId: string; by: 'email' | 'phone' } | null> {
  if (email) {
    const holder = await resolveChannel(ctx.q, ctx.orgId, { kind: 'email', value: email.value });
    if (holder && holder.partyStatus === 'archived') {
      const method = holder.partyKind === 'org' ? 'directory.archiveOrg' : 'directory.archivePerson';
      throw conflict(`email: held by ${noun(holder.partyKind)} ${holder.partyId}, which is archived; restore it (${method} with archived: false) first`);
    }
    if (holder) return { partyId: holder.partyId, by: 'email' };
  }
  if (phone) {
    const holders = await ctx.q.query<{ party_id: string }>(
      `SELECT DISTINCT c.party_id FROM directory_channels c JOIN directory_parties p ON p.org_id = c.org_id AND p.party_id = c.party_id
        WHERE c.org_id = $1 AND c.kind = 'phone' AND c.key = $2 AND c.status = 'active' AND p.kind = 'person' AND p.status = 'active' LIMIT 2`,
      [ctx.orgId, phone.key],
    );
    if (holders.length === 1) return { partyId: holders[0].party_id, by: 'phone' };
  }
  return null;
}
