import type { CountryCode } from 'libphonenumber-js/max';
import { badRequest, conflict } from '../../protocol/errors.js';
import { one, type Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { insertChannel, lockKeys } from './channel-store.js';
import { candidatesFor, emailHolder, type Candidate } from './dedupe.js';
import { isFreeMail } from './free-mail.js';
import { type PartyKind, type PartyRow } from './model.js';
import { DEFAULT_COUNTRY, normaliseWebsite, type ChannelKey } from './normalise.js';
import { activeTarget, aliasesAfterRename, channelKeys, joinName, writeChanges, type Change } from './party-write.js';
import { refreshEmployers } from './terms.js';

/*
 * What a capture proposes, as the dedupe rule and the party tables see it: its fields checked per kind, its
 * channels normalised, its identity (the strongest key: an email key, an E.164, a company domain, else the folded
 * name with the employer's), its best candidate, whether an existing party holds its email outright and whether
 * it disagrees with that party, and writing it onto a party (blanks filled; a member's corrections written over).
 */

export type CaptureFields = Partial<Record<'given' | 'family' | 'displayName' | 'title' | 'name' | 'legalName' | 'website' | 'country', string>>;

export interface CapturedChannel extends ChannelKey {
  label: string | null;
}

export interface Proposal {
  kind: PartyKind;
  fields: CaptureFields;
  channels: CapturedChannel[];
  employerName: string | null;
  /** The website's registrable domain (organisations). */
  domain: string | null;
}

const PERSON_FIELDS = ['given', 'family', 'displayName', 'title'] as const;
const ORG_FIELDS = ['name', 'legalName', 'website'] as const;

/** Fields as stored: trimmed, checked against the kind (BAD_REQUEST naming `prefix.<field>`), website normalised. */
export function checkFields(kind: PartyKind, given: CaptureFields, prefix: string): { fields: CaptureFields; domain: string | null } {
  const wrong = kind === 'person' ? ORG_FIELDS : PERSON_FIELDS;
  for (const f of wrong) if (given[f] !== undefined) throw badRequest(`${prefix}.${f}`, `only for ${kind === 'person' ? 'an organisation' : 'a person'}`);
  const fields: CaptureFields = {};
  for (const [k, v] of Object.entries(given) as [keyof CaptureFields, string | undefined][]) {
    if (v === undefined) continue;
    if (!v.trim()) throw badRequest(`${prefix}.${k}`, 'must not be blank');
    fields[k] = v.trim();
  }
  let domain: string | null = null;
  if (fields.website !== undefined) {
    const site = normaliseWebsite(fields.website, `${prefix}.website`);
    fields.website = site.website;
    domain = site.domain;
  }
  return { fields, domain };
}

/** The name a proposal gives (empty when it names nobody, e.g. only an address was seen). */
export const nameOf = (kind: PartyKind, f: CaptureFields): string => (kind === 'org' ? (f.name ?? '') : (f.displayName ?? joinName(f.given ?? '', f.family)));

export interface ProposalInput {
  kind: PartyKind;
  fields: CaptureFields;
  channels?: { kind: 'email' | 'phone' | 'im'; value: string; service?: string; label?: string }[];
  employerName?: string;
}

/** Check and normalise a proposal (nothing read: every refusal comes before the first query). */
export function normaliseProposal(p: ProposalInput): Proposal {
  const { fields, domain } = checkFields(p.kind, p.fields, 'fields');
  if (p.kind === 'org' && p.employerName !== undefined) throw badRequest('employerName', 'only for a person');
  const given = p.channels ?? [];
  const keys = channelKeys(given, (fields.country ?? DEFAULT_COUNTRY) as CountryCode);
  const channels = keys.map((k, i) => ({ ...k, label: given[i].label?.trim() || null }));
  if (!nameOf(p.kind, fields) && !channels.some((c) => c.kind !== 'im') && !domain) {
    throw badRequest(
      'fields',
      p.kind === 'person' ? 'name the person (given or displayName) or give an email or phone' : 'name the organisation or give its website, email or phone',
    );
  }
  return { kind: p.kind, fields, channels, employerName: p.employerName?.trim() || null, domain };
}

const fold = async (q: Queryable, s: string): Promise<string> => one(await q.query<{ f: string | null }>('SELECT dir_fold($1) AS f', [s])).f ?? '';

/** The company domains a proposal shows: its website's, then its emails' (free mail left out). */
const companyDomains = (p: Proposal): string[] => [
  ...new Set([p.domain, ...p.channels.filter((c) => c.kind === 'email').map((c) => c.domain)].filter((d): d is string => !!d && !isFreeMail(d))),
];

/** One proposal per identity waits: the strongest key it carries. */
export async function identityOf(q: Queryable, p: Proposal): Promise<string> {
  const email = p.channels.find((c) => c.kind === 'email');
  const phone = p.channels.find((c) => c.kind === 'phone');
  if (p.kind === 'person') {
    if (email) return `email:${email.key}`;
    if (phone) return `phone:${phone.key}`;
    return `name:${await fold(q, nameOf(p.kind, p.fields))}@${p.employerName ? await fold(q, p.employerName) : ''}`;
  }
  const [domain] = companyDomains(p);
  if (domain) return `domain:${domain}`;
  if (email) return `email:${email.key}`;
  if (phone) return `phone:${phone.key}`;
  return `name:${await fold(q, p.fields.name ?? '')}`;
}

/**
 * The active organisations an employer name stands for: equal folded names, narrowed to the proposal's company
 * domains when that leaves some. Oldest first.
 */
export async function employersNamed(q: Queryable, orgId: string, name: string, p: Proposal): Promise<string[]> {
  const rows = await q.query<{ party_id: string; domain: string | null }>(
    `SELECT party_id, domain FROM directory_parties WHERE org_id = $1 AND kind = 'org' AND status = 'active' AND name_fold = dir_fold($2)
      ORDER BY created_at, party_id LIMIT 20`,
    [orgId, name],
  );
  const domains = companyDomains(p);
  const narrowed = rows.filter((r) => r.domain !== null && domains.includes(r.domain));
  return (narrowed.length ? narrowed : rows).map((r) => r.party_id);
}

/** The proposal's best candidate (score >= 65), by the dedupe rule. */
export async function bestMatch(q: Queryable, orgId: string, p: Proposal): Promise<Candidate | null> {
  const employers = p.kind === 'person' && p.employerName ? await employersNamed(q, orgId, p.employerName, p) : [];
  const [best] = await candidatesFor(
    q,
    orgId,
    {
      kind: p.kind,
      partyId: null,
      name: nameOf(p.kind, p.fields),
      emails: p.channels.filter((c) => c.kind === 'email').map((c) => ({ key: c.key, domain: c.domain })),
      phones: p.channels.filter((c) => c.kind === 'phone').map((c) => c.key),
      employerIds: employers.length === 1 ? employers : [],
      identifiers: [],
      domain: p.domain,
      country: p.fields.country ?? null,
    },
    { limit: 1 },
  );
  return best ?? null;
}

/**
 * The one active party of the proposal's kind that holds its email keys outright (a person's email is its
 * identity; for organisations, the only one holding it), or null when none or several do.
 */
export async function exactHolder(q: Queryable, orgId: string, p: Proposal): Promise<string | null> {
  const keys = p.channels.filter((c) => c.kind === 'email').map((c) => c.key);
  if (keys.length === 0) return null;
  const holders = new Set<string>();
  if (p.kind === 'person') {
    for (const key of keys) {
      const holder = await emailHolder(q, orgId, key, null);
      if (holder) holders.add(holder);
    }
  } else {
    const rows = await q.query<{ party_id: string }>(
      `SELECT DISTINCT c.party_id FROM directory_channels c JOIN directory_parties p ON p.org_id = c.org_id AND p.party_id = c.party_id
        WHERE c.org_id = $1 AND c.kind = 'email' AND c.key = ANY($2::text[]) AND c.status = 'active' AND p.kind = 'org' AND p.status = 'active'`,
      [orgId, keys],
    );
    for (const r of rows) holders.add(r.party_id);
  }
  return holders.size === 1 ? [...holders][0] : null;
}

/** Party columns by capture field, per kind. */
const COLUMNS: Readonly<Record<PartyKind, Partial<Record<keyof CaptureFields, keyof PartyRow>>>> = {
  person: { given: 'given_name', family: 'family_name', displayName: 'display_name', title: 'title', country: 'country' },
  org: { name: 'display_name', legalName: 'legal_name', website: 'website', country: 'country' },
};

/** Case, accents, spacing and punctuation ignored. */
const loose = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

/**
 * Whether the proposal says something the party contradicts: a field the party holds with another value, a website
 * of another domain, an employer the person is not linked to while linked elsewhere, or an email another active
 * person holds. Blanks it would fill are no contradiction.
 */
export async function disagrees(q: Queryable, orgId: string, row: PartyRow, p: Proposal): Promise<boolean> {
  for (const [field, column] of Object.entries(COLUMNS[p.kind]) as [keyof CaptureFields, keyof PartyRow][]) {
    const mine = p.fields[field];
    const theirs = row[column] as string | null;
    if (mine === undefined || theirs === null) continue;
    if (field === 'website') {
      if (row.domain !== null && row.domain !== p.domain) return true;
    } else if (field === 'displayName' || field === 'name') {
      if ((await fold(q, mine)) !== (await fold(q, theirs))) return true;
    } else if (loose(mine) !== loose(theirs)) return true;
  }
  if (p.kind === 'person' && p.employerName) {
    const links = one(
      await q.query<{ total: number; named: number }>(
        `SELECT count(*)::int AS total, count(*) FILTER (WHERE o.name_fold = dir_fold($3))::int AS named
         FROM directory_links l JOIN directory_parties o ON o.org_id = l.org_id AND o.party_id = l.to_id
        WHERE l.org_id = $1 AND l.from_id = $2 AND l.relation = 'works_at' AND l.status = 'active'`,
        [orgId, row.party_id, p.employerName],
      ),
    );
    if (links.total > 0 && links.named === 0) return true;
  }
  if (p.kind === 'person') {
    for (const c of p.channels) if (c.kind === 'email' && (await emailHolder(q, orgId, c.key, row.party_id))) return true;
  }
  return false;
}

export interface Applied {
  /** Contract names of the party fields written. */
  fields: string[];
  channels: number;
  employerId: string | null;
}

/**
 * Write a proposal onto a party: its fields fill the party's blanks, `overrides` (a member's corrections) are
 * written whatever the party holds; channels it lacks are added (an email another active person holds is a
 * CONFLICT); a person without an employer gets the one the proposal names. The party row is locked by the caller.
 */
export async function applyToParty(
  ctx: HandlerCtx,
  row: PartyRow,
  p: Proposal,
  overrides: { fields: CaptureFields; domain: string | null },
  employerId: string | null,
): Promise<Applied> {
  const changes: Change[] = [];
  for (const [field, column] of Object.entries(COLUMNS[p.kind]) as [keyof CaptureFields, keyof PartyRow][]) {
    const current = row[column] as string | null;
    const value = overrides.fields[field] ?? (current === null ? p.fields[field] : undefined);
    if (value === undefined || value === current) continue;
    changes.push({ field, column, value });
    if (field === 'website') changes.push({ field: 'domain', column: 'domain', value: overrides.fields.website !== undefined ? overrides.domain : p.domain });
    if (column === 'display_name') changes.push({ field: 'aliases', column: 'aliases', value: aliasesAfterRename(row.aliases, row.display_name, value) });
  }
  const channels = await addChannels(ctx, row, p.channels);
  const linked = p.kind === 'person' && employerId && (await linkEmployer(ctx, row.party_id, employerId)) ? employerId : null;
  if (changes.length || channels || linked) await writeChanges(ctx, row.party_id, changes);
  return { fields: changes.map((ch) => ch.field), channels, employerId: linked };
}

/** Link a person to an employer it is not linked to (primary when it has none); whether it linked. */
export async function linkEmployer(ctx: HandlerCtx, personId: string, employerId: string): Promise<boolean> {
  const rows = await ctx.q.query<{ to_id: string }>(
    `SELECT to_id FROM directory_links WHERE org_id = $1 AND from_id = $2 AND relation = 'works_at' AND status = 'active'`,
    [ctx.orgId, personId],
  );
  if (rows.some((r) => r.to_id === employerId)) return false;
  await ctx.q.query(
    `INSERT INTO directory_links (org_id, link_id, from_id, to_id, relation, is_primary, created_by) VALUES ($1, $2, $3, $4, 'works_at', $5, $6)`,
    [ctx.orgId, newId('plk'), personId, employerId, rows.length === 0, ctx.principal.id],
  );
  await refreshEmployers(ctx.q, ctx.orgId, [personId]);
  return true;
}

/** Add the channels the party lacks (source capture); the first of a kind becomes its primary. */
export async function addChannels(ctx: HandlerCtx, row: PartyRow, channels: readonly CapturedChannel[]): Promise<number> {
  await lockKeys(
    ctx.q,
    ctx.orgId,
    channels.map((c) => `${c.kind}:${c.key}`),
  );
  let added = 0;
  for (const [i, c] of channels.entries()) {
    const [held] = await ctx.q.query('SELECT 1 FROM directory_channels WHERE org_id = $1 AND party_id = $2 AND kind = $3 AND key = $4 AND status = $5', [
      ctx.orgId,
      row.party_id,
      c.kind,
      c.key,
      'active',
    ]);
    if (held) continue;
    if (row.kind === 'person' && c.kind === 'email') {
      const holder = await emailHolder(ctx.q, ctx.orgId, c.key, row.party_id);
      if (holder) throw conflict(`the capture's channels.${i} is an email ${holder} holds; attach the capture to ${holder} (decision attach), or reject it`);
    }
    await insertChannel(ctx.q, ctx.orgId, row.party_id, c, { label: c.label, source: 'capture', createdBy: ctx.principal.id });
    added++;
  }
  return added;
}

/**
 * The employer to link for a person capture a member resolves: the one given (an active organisation), else the
 * one active organisation the employer name stands for; several is a CONFLICT asking for employerId, none is none.
 */
export async function employerFor(ctx: HandlerCtx, p: Proposal, employerId: string | undefined): Promise<string | null> {
  if (employerId !== undefined) {
    if (p.kind !== 'person') throw badRequest('employerId', 'only for a person capture');
    return (await activeTarget(ctx, employerId, 'org', 'employerId')).partyId;
  }
  if (p.kind !== 'person' || !p.employerName) return null;
  const found = await employersNamed(ctx.q, ctx.orgId, p.employerName, p);
  if (found.length > 1) throw conflict(`the capture's employerName names several organisations (${found.slice(0, 5).join(', ')}); give employerId`);
  return found[0] ?? null;
}
