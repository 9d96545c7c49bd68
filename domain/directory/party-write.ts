import { badRequest, conflict } from '../../protocol/errors.js';
import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { insertChannel, lockKeys } from './channel-store.js';
import { emailHolder, identifierHolder, refuseHeldEmail } from './dedupe.js';
import { normaliseChannel, type ChannelKey, type ChannelKind } from './normalise.js';
import type { CountryCode } from 'libphonenumber-js/max';
import { refreshEmployers } from './terms.js';
import { bumpParty, getPartyRow, noun, requireWritableParty, resolveParty, type PartyKind, type PartyRow, type ResolvedParty } from './model.js';

/* What creating, updating and archiving persons and organisations share. Events never carry names or values. */

export interface ChannelParam {
  kind: ChannelKind;
  value: string;
  service?: string;
  label?: string;
  primary?: boolean;
}

/** Normalise the channels of a create; the same key twice is a BAD_REQUEST naming the second. */
export function channelKeys(channels: readonly ChannelParam[], country: CountryCode): ChannelKey[] {
  const keys = channels.map((c, i) => normaliseChannel(c, `channels.${i}`, country));
  keys.forEach((k, i) => {
    const first = keys.findIndex((o) => o.kind === k.kind && o.key === k.key);
    if (first !== i) throw badRequest(`channels.${i}.value`, `the same ${k.kind} as channels.${first}`);
  });
  const primaries = channels.map((c, i) => ({ c, i })).filter(({ c }) => c.primary);
  for (const { c, i } of primaries) {
    if (primaries.some((o) => o.i < i && o.c.kind === c.kind)) throw badRequest(`channels.${i}.primary`, `only one primary ${c.kind}`);
  }
  return keys;
}

/** Where a party or channel came from: directory.create* (manual), contact.add, contacts.upsert, a capture, an import. */
export type PartyOrigin = 'manual' | 'contact' | 'contacts' | 'capture' | 'import' | 'crm';

/**
 * Lock the keys, refuse emails other people hold, then add the channels to the new party. `fields` names each
 * channel's value in errors (default params.channels.<i>.value).
 */
export async function addNewChannels(
  ctx: HandlerCtx,
  partyId: string,
  kind: PartyKind,
  channels: readonly ChannelParam[],
  keys: readonly ChannelKey[],
  source: PartyOrigin = 'manual',
  fields: readonly string[] = keys.map((_, i) => `channels.${i}.value`),
): Promise<void> {
  await lockKeys(
    ctx.q,
    ctx.orgId,
    keys.map((k) => `${k.kind}:${k.key}`),
  );
  for (const [i, k] of keys.entries()) await refuseHeldEmail(ctx.q, ctx.orgId, kind, k, partyId, fields[i]);
  for (const [i, k] of keys.entries()) {
    await insertChannel(ctx.q, ctx.orgId, partyId, k, { label: channels[i].label, primary: channels[i].primary, source, createdBy: ctx.principal.id });
  }
}

/** A new party's row (persons: given, family, title; organisations: legal name, website, domain). */
export interface NewParty {
  kind: PartyKind;
  partyId: string;
  displayName: string;
  origin: PartyOrigin;
  given?: string | null;
  family?: string | null;
  title?: string | null;
  legalName?: string | null;
  website?: string | null;
  domain?: string | null;
  aliases?: readonly string[];
  /** Normalised already (normaliseTags). */
  tags?: readonly string[];
  addresses?: readonly unknown[];
  notes?: string | null;
  doNotContact?: boolean;
  country?: string | null;
}

/** Insert a new party's row (its channels, identifiers and links are the caller's next steps). */
export async function insertParty(ctx: HandlerCtx, p: NewParty): Promise<void> {
  await ctx.q.query(
    `INSERT INTO directory_parties (org_id, party_id, kind, display_name, given_name, family_name, title, legal_name, website, domain, aliases, tags,
       addresses, notes, do_not_contact, origin, country, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::jsonb, $14, $15, $16, $17, $18)`,
    [
      ctx.orgId,
      p.partyId,
      p.kind,
      p.displayName,
      p.given ?? null,
      p.family ?? null,
      p.title ?? null,
      p.legalName ?? null,
      p.website ?? null,
      p.domain ?? null,
      cleanAliases(p.aliases ?? [], p.displayName),
      [...(p.tags ?? [])],
      JSON.stringify(p.addresses ?? []),
      p.notes ?? null,
      p.doNotContact ?? false,
      p.origin,
      p.country ?? null,
      ctx.principal.id,
    ],
  );
}

/** A new person's primary employer: the works_at link, and the employer name on the person (its search document). */
export async function linkFirstEmployer(ctx: HandlerCtx, personId: string, orgPartyId: string, role: string | null): Promise<void> {
  await ctx.q.query(
    `INSERT INTO directory_links (org_id, link_id, from_id, to_id, relation, role, is_primary, created_by) VALUES ($1, $2, $3, $4, 'works_at', $5, true, $6)`,
    [ctx.orgId, newId('plk'), personId, orgPartyId, role, ctx.principal.id],
  );
  await refreshEmployers(ctx.q, ctx.orgId, [personId]);
}

export const joinName = (given: string, family: string | null | undefined): string => [given.trim(), family?.trim()].filter(Boolean).join(' ');

const same = (a: string, b: string) => a.trim().toLocaleLowerCase() === b.trim().toLocaleLowerCase();

/** Aliases without repeats (ignoring case) or the display name itself. */
export function cleanAliases(aliases: readonly string[], displayName: string): string[] {
  const out: string[] = [];
  for (const a of aliases.map((x) => x.trim()).filter(Boolean)) if (!same(a, displayName) && !out.some((o) => same(o, a))) out.push(a);
  return out;
}

/** The aliases after a rename from `oldName`: the old name is kept, the new one leaves the list. */
export const aliasesAfterRename = (aliases: readonly string[], oldName: string, newName: string): string[] =>
  cleanAliases(same(oldName, newName) ? aliases : [...aliases, oldName], newName);

/** One column to write, under its contract field name. */
export interface Change {
  field: string;
  column: string;
  value: unknown;
  /** jsonb columns are written from their JSON text. */
  json?: boolean;
}

/** The changes whose value differs from the row's. */
export function differing(candidates: readonly (Change & { current: unknown })[]): Change[] {
  return candidates.filter((c) => c.value !== undefined && JSON.stringify(c.value) !== JSON.stringify(c.current ?? null));
}

/** Write the changes and bump the version; `extra` changes (identifiers) were written by the caller. */
export async function writeChanges(ctx: HandlerCtx, partyId: string, changes: readonly Change[]): Promise<void> {
  if (changes.length === 0) return bumpParty(ctx.q, ctx.orgId, partyId);
  const sets = changes.map((c, i) => `${c.column} = $${i + 3}${c.json ? '::jsonb' : ''}`);
  await ctx.q.query(`UPDATE directory_parties SET ${sets.join(', ')}, version = version + 1, updated_at = now() WHERE org_id = $1 AND party_id = $2`, [
    ctx.orgId,
    partyId,
    ...changes.map((c) => (c.json ? JSON.stringify(c.value) : c.value)),
  ]);
}

/** A target party (an employer, a list member): followed through merges; must be active and of `kind`. */
export async function activeTarget(ctx: HandlerCtx, partyId: string, kind: PartyKind, field: string): Promise<ResolvedParty> {
  const party = await resolveParty(ctx.q, ctx.orgId, partyId);
  if (party.kind !== kind) throw badRequest(field, `${partyId} is not an ${noun(kind)}`);
  if (party.status !== 'active') {
    throw conflict(
      `${field}: ${noun(kind)} ${party.partyId} is archived; restore it (directory.archive${kind === 'org' ? 'Org' : 'Person'} with archived: false) first`,
    );
  }
  return party;
}

/** Archive or restore; the same state again is a no-op. Returns the row after and whether it changed. */
export async function setArchived(ctx: HandlerCtx, partyId: string, archived: boolean): Promise<{ row: PartyRow; changed: boolean }> {
  const row = await requireWritableParty(ctx.q, ctx.orgId, partyId, { allowArchived: true });
  const status = archived ? 'archived' : 'active';
  if (row.status === status) return { row, changed: false };
  if (!archived) await refuseRestoreClash(ctx, row);
  await ctx.q.query(`UPDATE directory_parties SET status = $3, version = version + 1, updated_at = now() WHERE org_id = $1 AND party_id = $2`, [
    ctx.orgId,
    partyId,
    status,
  ]);
  return { row: await getPartyRow(ctx.q, ctx.orgId, partyId), changed: true };
}

/** Restoring must not make two active people share an email, or two active organisations an identifier. */
async function refuseRestoreClash(ctx: HandlerCtx, row: PartyRow): Promise<void> {
  const field = row.kind === 'org' ? 'orgId' : 'personId';
  const way = `archive it, or merge the two (directory.proposeMerge)`;
  if (row.kind === 'person') {
    const emails = await ctx.q.query<{ key: string }>(
      `SELECT key FROM directory_channels WHERE org_id = $1 AND party_id = $2 AND kind = 'email' AND status = 'active' ORDER BY key`,
      [ctx.orgId, row.party_id],
    );
    await lockKeys(
      ctx.q,
      ctx.orgId,
      emails.map((e) => `email:${e.key}`),
    );
    for (const e of emails) {
      const holder = await emailHolder(ctx.q, ctx.orgId, e.key, row.party_id);
      if (holder) throw conflict(`${field}: an email of ${row.party_id} is now held by ${holder}; ${way}`);
    }
    return;
  }
  const ids = await ctx.q.query<{ scheme: string; value: string }>(
    'SELECT scheme, value FROM directory_identifiers WHERE org_id = $1 AND party_id = $2 ORDER BY scheme',
    [ctx.orgId, row.party_id],
  );
  await lockKeys(
    ctx.q,
    ctx.orgId,
    ids.map((i) => `id:${i.scheme}:${i.value}`),
  );
  for (const i of ids) {
    const holder = await identifierHolder(ctx.q, ctx.orgId, i.scheme, i.value, row.party_id);
    if (holder) throw conflict(`${field}: its ${i.scheme} is now held by ${holder}; ${way}`);
  }
}

/** The event of an archive call (no-op included). */
export const archiveEvent = (ctx: HandlerCtx, kind: PartyKind, row: PartyRow, changed: boolean) =>
  ctx.emit(`directory.${kind}.archive`, row.party_id, {
    partyId: row.party_id,
    status: row.status,
    version: Number(row.version),
    ...(changed ? {} : { noop: true }),
  });
