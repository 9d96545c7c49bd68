import { conflict, notFound } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';

/*
 * Party rows (persons per_ and organisations co_ in directory_parties) and their views. A merged party keeps its
 * row (a revert restores it) and answers as a tombstone naming the survivor; writing to it is a CONFLICT naming
 * the survivor, and a target (list, link, request) is followed to the survivor (resolveParty).
 */

export type PartyKind = 'person' | 'org';
export type PartyStatus = 'active' | 'archived' | 'merged';

export interface Address {
  label?: string;
  lines: string[];
  locality?: string;
  region?: string;
  postcode?: string;
  country?: string;
}

export interface PartyRow {
  party_id: string;
  kind: PartyKind;
  status: PartyStatus;
  display_name: string;
  aliases: string[];
  tags: string[];
  addresses: Address[];
  notes: string | null;
  do_not_contact: boolean;
  origin: string;
  country: string | null;
  given_name: string | null;
  family_name: string | null;
  title: string | null;
  employer_id: string | null;
  employer_name: string | null;
  legal_name: string | null;
  website: string | null;
  domain: string | null;
  merged_into: string | null;
  merged_at: string | null;
  version: number;
  created_at: string;
  updated_at: string;
  email: string | null;
  phone: string | null;
  identifiers: Record<string, string> | null;
}

/** Every column a view needs, with the primary email and phone and the identifiers. Alias p. */
export const PARTY_COLUMNS = `p.party_id, p.kind, p.status, p.display_name, p.aliases, p.tags, p.addresses, p.notes, p.do_not_contact,
  p.origin, p.country, p.given_name, p.family_name, p.title, p.employer_id, p.employer_name, p.legal_name, p.website, p.domain,
  p.merged_into, p.merged_at, p.version, p.created_at, p.updated_at,
  (SELECT c.value FROM directory_channels c WHERE c.org_id = p.org_id AND c.party_id = p.party_id AND c.kind = 'email' AND c.is_primary) AS email,
  (SELECT c.value FROM directory_channels c WHERE c.org_id = p.org_id AND c.party_id = p.party_id AND c.kind = 'phone' AND c.is_primary) AS phone,
  (SELECT jsonb_object_agg(i.scheme, i.value) FROM directory_identifiers i WHERE i.org_id = p.org_id AND i.party_id = p.party_id) AS identifiers`;

export const kindOf = (partyId: string): PartyKind => (partyId.startsWith('co_') ? 'org' : 'person');
export const noun = (kind: PartyKind): string => (kind === 'org' ? 'organisation' : 'person');
const archiveMethod = (kind: PartyKind) => (kind === 'org' ? 'directory.archiveOrg' : 'directory.archivePerson');

/** The party, or NOT_FOUND (another org's id looks exactly like one that never existed). */
export async function getPartyRow(q: Queryable, orgId: string, partyId: string, lock = false): Promise<PartyRow> {
  const [row] = await q.query<PartyRow>(
    `SELECT ${PARTY_COLUMNS} FROM directory_parties p WHERE p.org_id = $1 AND p.party_id = $2 ${lock ? 'FOR UPDATE OF p' : ''}`,
    [orgId, partyId],
  );
  if (!row) throw notFound(`${noun(kindOf(partyId))} ${partyId}`);
  return row;
}

/** These parties, in the order of `ids` (unknown ids left out). */
export async function partyRows(q: Queryable, orgId: string, ids: readonly string[]): Promise<PartyRow[]> {
  if (ids.length === 0) return [];
  const rows = await q.query<PartyRow>(`SELECT ${PARTY_COLUMNS} FROM directory_parties p WHERE p.org_id = $1 AND p.party_id = ANY($2::text[])`, [orgId, ids]);
  const byId = new Map(rows.map((r) => [r.party_id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export interface WritableOptions {
  /** Archiving and restoring write to an archived party; nothing else does. */
  allowArchived?: boolean;
}

/**
 * The party locked for a write, or the refusal every directory handler gives: NOT_FOUND for an unknown id,
 * CONFLICT naming the survivor for a merged one, CONFLICT naming the way back for an archived one.
 */
export async function requireWritableParty(q: Queryable, orgId: string, partyId: string, opts: WritableOptions = {}): Promise<PartyRow> {
  const row = await getPartyRow(q, orgId, partyId, true);
  if (row.status === 'merged') {
    // The survivor may have been merged since: the way forward is the party that stands for it now.
    const now = await resolveParty(q, orgId, partyId);
    throw conflict(`${noun(row.kind)} ${partyId} was merged into ${row.merged_into}; write to ${now.partyId} instead`);
  }
  if (row.status === 'archived' && !opts.allowArchived) {
    throw conflict(`${noun(row.kind)} ${partyId} is archived; restore it (${archiveMethod(row.kind)} with archived: false) first`);
  }
  return row;
}

/** A party as other families see it once merges are followed. */
export interface ResolvedParty {
  partyId: string;
  kind: PartyKind;
  status: 'active' | 'archived';
  displayName: string;
  doNotContact: boolean;
  /** The id asked for, when it was merged into partyId (else null). */
  mergedFrom: string | null;
}

/** Merges chain at most this deep before the data is called broken (each merge needs its survivor unmerged). */
const MAX_MERGE_HOPS = 16;

/**
 * The party an id stands for: itself, or the survivor it was merged into (followed through later merges).
 * NOT_FOUND for an unknown id.
 */
export async function resolveParty(q: Queryable, orgId: string, partyId: string): Promise<ResolvedParty> {
  let id = partyId;
  for (let hop = 0; hop <= MAX_MERGE_HOPS; hop++) {
    const [row] = await q.query<{ kind: PartyKind; status: PartyStatus; display_name: string; do_not_contact: boolean; merged_into: string | null }>(
      'SELECT kind, status, display_name, do_not_contact, merged_into FROM directory_parties WHERE org_id = $1 AND party_id = $2',
      [orgId, id],
    );
    if (!row) throw notFound(`${noun(kindOf(partyId))} ${partyId}`);
    if (row.status !== 'merged') {
      return {
        partyId: id,
        kind: row.kind,
        status: row.status,
        displayName: row.display_name,
        doNotContact: row.do_not_contact,
        mergedFrom: id === partyId ? null : partyId,
      };
    }
    id = row.merged_into!;
  }
  throw new Error(`directory: ${partyId} is merged more than ${MAX_MERGE_HOPS} times over`);
}

/** A new version of the party (its channels, fields or links changed). */
export async function bumpParty(q: Queryable, orgId: string, partyId: string): Promise<void> {
  await q.query('UPDATE directory_parties SET version = version + 1, updated_at = now() WHERE org_id = $1 AND party_id = $2', [orgId, partyId]);
}

const common = (r: PartyRow) => ({
  id: r.party_id,
  status: r.status as 'active' | 'archived',
  displayName: r.display_name,
  aliases: r.aliases,
  tags: r.tags,
  addresses: r.addresses,
  doNotContact: r.do_not_contact,
  origin: r.origin,
  country: r.country,
  email: r.email,
  phone: r.phone,
  version: Number(r.version),
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

export const toPerson = (r: PartyRow) => ({
  ...common(r),
  kind: 'person' as const,
  given: r.given_name,
  family: r.family_name,
  title: r.title,
  employer: r.employer_id ? { id: r.employer_id, name: r.employer_name ?? '' } : null,
});

export const toOrg = (r: PartyRow) => ({
  ...common(r),
  kind: 'org' as const,
  legalName: r.legal_name,
  website: r.website,
  domain: r.domain,
  identifiers: r.identifiers ?? {},
});

export const toTombstone = (r: PartyRow) => ({
  id: r.party_id,
  kind: r.kind,
  status: 'merged' as const,
  mergedInto: r.merged_into!,
  mergedAt: r.merged_at ? new Date(r.merged_at).toISOString() : null,
});

/** A live party as its kind's view. */
export const toParty = (r: PartyRow) => (r.kind === 'org' ? toOrg(r) : toPerson(r));

/** A list item: the view, or the tombstone of a merged party. */
export const toListed = (r: PartyRow) => (r.status === 'merged' ? toTombstone(r) : toParty(r));
