import type { REASONS } from '../../protocol/methods/directory/common.js';
import { conflict } from '../../protocol/errors.js';
import { one, type Queryable } from '../../db/types.js';
import type { ChannelKey } from './normalise.js';
import { isFreeMail } from './free-mail.js';
import { getPartyRow, type PartyKind } from './model.js';

/*
 * The dedupe rule (create hints, search duplicatesOf, captures, proposeMerge). Names are compared folded by SQL
 * dir_fold() (migration 031); a name alone never pairs two people. Each rule that holds is a reason; the score
 * is the strongest one's; 65 and up is a candidate. Only active parties are candidates, and a pair whose merge
 * was dismissed is never proposed again. Candidates come from indexed lookups only (keys, employer, domain,
 * identifiers, folded name, trigram index), never from scanning the org.
 *
 * People: same email key 100; same E.164 held by no organisation and at most two people 90; equal names and the
 * same employer or the same company (non-free-mail) domain 80; similar names (trigram >= 0.6) and the same
 * employer or domain 65, unless each holds a different address at that domain.
 * Organisations: same identifier 100; same registrable domain 95; equal names 80; similar names (trigram >= 0.7)
 * and the same country 65.
 */

export type Reason = (typeof REASONS)[number];

export const SCORES: Readonly<Record<Reason, number>> = {
  same_email: 100,
  same_phone: 90,
  same_name_employer: 80,
  same_name_domain: 80,
  similar_name_employer: 65,
  similar_name_domain: 65,
  same_identifier: 100,
  same_domain: 95,
  same_name: 80,
  similar_name_country: 65,
};
export const CANDIDATE_SCORE = 65;
export const PERSON_SIMILARITY = 0.6;
export const ORG_SIMILARITY = 0.7;
/** A number more people than this share (a switchboard, a family landline) says nothing about identity. */
export const MAX_PHONE_HOLDERS = 2;

/** What the rule reads of a party, existing (factsOf) or proposed (a capture, a create). */
export interface PartyFacts {
  kind: PartyKind;
  /** The existing party, excluded from its own candidates; null for a proposal. */
  partyId: string | null;
  name: string;
  emails: readonly { key: string; domain: string | null }[];
  /** E.164 keys. */
  phones: readonly string[];
  /** Persons: the organisations it works at (active works_at links). */
  employerIds: readonly string[];
  /** Organisations: registry numbers, normalised (normaliseIdentifier). */
  identifiers: readonly { scheme: string; value: string }[];
  /** Organisations: the website's registrable domain. */
  domain: string | null;
  country: string | null;
}

export interface Candidate {
  partyId: string;
  kind: PartyKind;
  displayName: string;
  score: number;
  reasons: Reason[];
}

export interface CandidateOptions {
  /** Most candidates returned, best first (default 20). */
  limit?: number;
  /** Only consider these parties (proposeMerge scores one pair). */
  only?: readonly string[];
  /** Also pairs whose merge was dismissed, and archived parties (scoring a chosen pair). */
  anyState?: boolean;
  /** Below-threshold pairs too (scoring a chosen pair). */
  anyScore?: boolean;
}

/** What the rule reads of an existing party. */
export async function factsOf(q: Queryable, orgId: string, partyId: string): Promise<PartyFacts> {
  const row = await getPartyRow(q, orgId, partyId);
  const channels = await q.query<{ kind: string; key: string; domain: string | null }>(
    `SELECT kind, key, domain FROM directory_channels WHERE org_id = $1 AND party_id = $2 AND status = 'active' AND kind IN ('email', 'phone')`,
    [orgId, partyId],
  );
  const employers = await q.query<{ to_id: string }>(
    `SELECT DISTINCT to_id FROM directory_links WHERE org_id = $1 AND from_id = $2 AND relation = 'works_at' AND status = 'active'`,
    [orgId, partyId],
  );
  const identifiers = await q.query<{ scheme: string; value: string }>('SELECT scheme, value FROM directory_identifiers WHERE org_id = $1 AND party_id = $2', [
    orgId,
    partyId,
  ]);
  return {
    kind: row.kind,
    partyId,
    name: row.display_name,
    emails: channels.filter((c) => c.kind === 'email').map((c) => ({ key: c.key, domain: c.domain })),
    phones: channels.filter((c) => c.kind === 'phone').map((c) => c.key),
    employerIds: employers.map((e) => e.to_id),
    identifiers,
    domain: row.domain,
    country: row.country,
  };
}

/** The candidates of an existing party. */
export async function candidatesOf(q: Queryable, orgId: string, partyId: string, opts: CandidateOptions = {}): Promise<Candidate[]> {
  return candidatesFor(q, orgId, await factsOf(q, orgId, partyId), opts);
}

/** The score and reasons of one chosen pair (0 and none when no rule holds), whatever their states. */
export async function scorePair(q: Queryable, orgId: string, aId: string, bId: string): Promise<{ score: number; reasons: Reason[] }> {
  const [hit] = await candidatesOf(q, orgId, aId, { only: [bId], anyState: true, anyScore: true, limit: 1 });
  return hit ? { score: hit.score, reasons: hit.reasons } : { score: 0, reasons: [] };
}

/*
 * Never both active: an email key is one person's identity, an identifier one organisation's (organisations may
 * share an email, info@ of a group). Writers check under lockKeys (channel-store.ts) and refuse naming the holder.
 */

/** The active person (other than `except`) holding an active email with this key, if any. */
export async function emailHolder(q: Queryable, orgId: string, key: string, except: string | null): Promise<string | null> {
  const [row] = await q.query<{ party_id: string }>(
    `SELECT c.party_id FROM directory_channels c JOIN directory_parties p ON p.org_id = c.org_id AND p.party_id = c.party_id
      WHERE c.org_id = $1 AND c.kind = 'email' AND c.key = $2 AND c.status = 'active' AND p.kind = 'person' AND p.status = 'active'
        AND c.party_id IS DISTINCT FROM $3
      ORDER BY c.n LIMIT 1`,
    [orgId, key, except],
  );
  return row?.party_id ?? null;
}

/** CONFLICT when another active person holds this email (a person's email is its identity; orgs may share one). */
export async function refuseHeldEmail(q: Queryable, orgId: string, kind: PartyKind, ck: ChannelKey, self: string | null, field: string): Promise<void> {
  if (kind !== 'person' || ck.kind !== 'email') return;
  const holder = await emailHolder(q, orgId, ck.key, self);
  if (holder) throw conflict(`${field}: held by ${holder}; add it there, or merge the two (directory.proposeMerge)`);
}

/** The active organisation (other than `except`) holding this identifier, if any. */
export async function identifierHolder(q: Queryable, orgId: string, scheme: string, value: string, except: string | null): Promise<string | null> {
  const [row] = await q.query<{ party_id: string }>(
    `SELECT i.party_id FROM directory_identifiers i JOIN directory_parties p ON p.org_id = i.org_id AND p.party_id = i.party_id
      WHERE i.org_id = $1 AND i.scheme = $2 AND i.value = $3 AND p.status = 'active' AND i.party_id IS DISTINCT FROM $4
      ORDER BY p.created_at, p.party_id LIMIT 1`,
    [orgId, scheme, value, except],
  );
  return row?.party_id ?? null;
}

/** Reasons found so far, by candidate. */
type Found = Map<string, Set<Reason>>;

/** The candidates of a party's facts, best first. */
export async function candidatesFor(q: Queryable, orgId: string, facts: PartyFacts, opts: CandidateOptions = {}): Promise<Candidate[]> {
  const found: Found = new Map();
  const add = (id: string, reason: Reason) => {
    const set = found.get(id) ?? new Set<Reason>();
    set.add(reason);
    found.set(id, set);
  };
  const { fold } = one(await q.query<{ fold: string }>('SELECT dir_fold($1) AS fold', [facts.name]));
  // $1 org, $2 kind, $3 statuses, $4 self, $5 only: the common condition on the candidate p.
  const base = [orgId, facts.kind, opts.anyState ? ['active', 'archived'] : ['active'], facts.partyId, opts.only ?? null];
  const cond = `p.org_id = $1 AND p.kind = $2 AND p.status = ANY($3::text[]) AND p.party_id IS DISTINCT FROM $4
    AND ($5::text[] IS NULL OR p.party_id = ANY($5::text[]))`;
  const ctx: RuleContext = { q, orgId, facts, fold, base, cond, add };
  if (facts.kind === 'person') await personRules(ctx);
  else await orgRules(ctx);

  if (facts.partyId && !opts.anyState && found.size > 0) {
    const dismissed = await q.query<{ other: string }>(
      `SELECT CASE WHEN survivor_id = $2 THEN merged_id ELSE survivor_id END AS other FROM directory_merges
        WHERE org_id = $1 AND status = 'dismissed' AND (survivor_id = $2 OR merged_id = $2)`,
      [orgId, facts.partyId],
    );
    for (const d of dismissed) found.delete(d.other);
  }
  const scored = [...found].map(([partyId, reasons]) => {
    const list = [...reasons].sort((a, b) => SCORES[b] - SCORES[a] || a.localeCompare(b));
    return { partyId, reasons: list, score: SCORES[list[0]] };
  });
  const kept = scored.filter((c) => opts.anyScore || c.score >= CANDIDATE_SCORE);
  if (kept.length === 0) return [];
  const names = await q.query<{ party_id: string; display_name: string }>(
    'SELECT party_id, display_name FROM directory_parties WHERE org_id = $1 AND party_id = ANY($2::text[])',
    [orgId, kept.map((c) => c.partyId)],
  );
  const nameOf = new Map(names.map((n) => [n.party_id, n.display_name]));
  return kept
    .map((c) => ({ ...c, kind: facts.kind, displayName: nameOf.get(c.partyId) ?? '' }))
    .sort((a, b) => b.score - a.score || a.displayName.localeCompare(b.displayName) || a.partyId.localeCompare(b.partyId))
    .slice(0, opts.limit ?? 20);
}

interface RuleContext {
  q: Queryable;
  orgId: string;
  facts: PartyFacts;
  fold: string;
  base: unknown[];
  cond: string;
  add(id: string, reason: Reason): void;
}

async function personRules(c: RuleContext): Promise<void> {
  const { q, facts, fold, base, cond, add } = c;
  const emailKeys = facts.emails.map((e) => e.key);
  if (emailKeys.length) {
    const rows = await q.query<{ party_id: string }>(
      `SELECT DISTINCT p.party_id FROM directory_channels ch JOIN directory_parties p ON p.org_id = ch.org_id AND p.party_id = ch.party_id
        WHERE ch.org_id = $1 AND ch.kind = 'email' AND ch.status = 'active' AND ch.key = ANY($6::text[]) AND ${cond}`,
      [...base, emailKeys],
    );
    for (const r of rows) add(r.party_id, 'same_email');
  }
  if (facts.phones.length) {
    // Every active holder of the number counts (an organisation's number pairs nobody), then the candidates.
    const holders = await q.query<{ key: string; party_id: string; kind: PartyKind; candidate: boolean }>(
      `SELECT ch.key, p.party_id, p.kind, (${cond}) AS candidate
         FROM directory_channels ch JOIN directory_parties p ON p.org_id = ch.org_id AND p.party_id = ch.party_id
        WHERE ch.org_id = $1 AND ch.kind = 'phone' AND ch.status = 'active' AND ch.key = ANY($6::text[])
          AND (p.status = 'active' OR (${cond})) AND p.party_id IS DISTINCT FROM $4`,
      [...base, facts.phones],
    );
    for (const key of new Set(holders.map((h) => h.key))) {
      const of = holders.filter((h) => h.key === key);
      const people = new Set(of.filter((h) => h.kind === 'person').map((h) => h.party_id));
      if (of.some((h) => h.kind === 'org') || people.size + 1 > MAX_PHONE_HOLDERS) continue;
      for (const h of of) if (h.candidate) add(h.party_id, 'same_phone');
    }
  }
  if (!fold) return;
  const mine = (domain: string) => new Set(facts.emails.filter((e) => e.domain === domain).map((e) => e.key));
  /** Each holds an address at the domain and they differ: two people there, not one. */
  const apart = (domain: string | null, theirs: readonly { key: string; domain: string | null }[]) => {
    if (!domain) return false;
    const own = mine(domain);
    const at = theirs.filter((t) => t.domain === domain);
    return own.size > 0 && at.length > 0 && !at.some((t) => own.has(t.key));
  };
  const close = `(p.name_fold = $6 OR similarity(p.name_fold, $6) >= ${PERSON_SIMILARITY})`;
  const pairs: { party_id: string; equal: boolean; domain: string | null; via: 'employer' | 'domain' }[] = [];
  if (facts.employerIds.length) {
    // The employers' ids also bound `o` itself: otherwise the planner walks the org's whole key for a large employer.
    const rows = await q.query<{ party_id: string; equal: boolean; domain: string | null }>(
      `SELECT DISTINCT p.party_id, p.name_fold = $6 AS equal, o.domain
         FROM directory_links l
         JOIN directory_parties p ON p.org_id = l.org_id AND p.party_id = l.from_id
         JOIN directory_parties o ON o.org_id = l.org_id AND o.party_id = l.to_id AND o.party_id = ANY($7::text[])
        WHERE l.org_id = $1 AND l.relation = 'works_at' AND l.status = 'active' AND l.to_id = ANY($7::text[]) AND ${cond} AND ${close}`,
      [...base, fold, facts.employerIds],
    );
    pairs.push(...rows.map((r) => ({ ...r, via: 'employer' as const })));
  }
  const domains = [...new Set(facts.emails.map((e) => e.domain).filter((d): d is string => d !== null && !isFreeMail(d)))];
  if (domains.length) {
    const rows = await q.query<{ party_id: string; equal: boolean; domain: string }>(
      `SELECT DISTINCT p.party_id, p.name_fold = $6 AS equal, ch.domain
         FROM directory_channels ch JOIN directory_parties p ON p.org_id = ch.org_id AND p.party_id = ch.party_id
        WHERE ch.org_id = $1 AND ch.kind = 'email' AND ch.status = 'active' AND ch.domain = ANY($7::text[]) AND ${cond} AND ${close}`,
      [...base, fold, domains],
    );
    pairs.push(...rows.map((r) => ({ ...r, via: 'domain' as const })));
  }
  const similar = pairs.filter((p) => !p.equal);
  const theirEmails = new Map<string, { key: string; domain: string | null }[]>();
  if (similar.length) {
    const rows = await q.query<{ party_id: string; key: string; domain: string | null }>(
      `SELECT party_id, key, domain FROM directory_channels WHERE org_id = $1 AND kind = 'email' AND status = 'active' AND party_id = ANY($2::text[])`,
      [c.orgId, [...new Set(similar.map((p) => p.party_id))]],
    );
    for (const r of rows) theirEmails.set(r.party_id, [...(theirEmails.get(r.party_id) ?? []), { key: r.key, domain: r.domain }]);
  }
  for (const p of pairs) {
    if (p.equal) add(p.party_id, p.via === 'employer' ? 'same_name_employer' : 'same_name_domain');
    else if (!apart(p.domain, theirEmails.get(p.party_id) ?? [])) add(p.party_id, p.via === 'employer' ? 'similar_name_employer' : 'similar_name_domain');
  }
}

async function orgRules(c: RuleContext): Promise<void> {
  const { q, facts, fold, base, cond, add } = c;
  if (facts.identifiers.length) {
    const rows = await q.query<{ party_id: string }>(
      `SELECT DISTINCT p.party_id FROM directory_identifiers i
         JOIN unnest($6::text[], $7::text[]) AS x(scheme, value) ON i.scheme = x.scheme AND i.value = x.value
         JOIN directory_parties p ON p.org_id = i.org_id AND p.party_id = i.party_id
        WHERE i.org_id = $1 AND ${cond}`,
      [...base, facts.identifiers.map((i) => i.scheme), facts.identifiers.map((i) => i.value)],
    );
    for (const r of rows) add(r.party_id, 'same_identifier');
  }
  // The website's domain and the company domains of its email addresses.
  const domains = [...new Set([facts.domain, ...facts.emails.map((e) => e.domain)].filter((d): d is string => !!d && !isFreeMail(d)))];
  if (domains.length) {
    const rows = await q.query<{ party_id: string }>(
      `SELECT p.party_id FROM directory_parties p WHERE ${cond} AND p.domain = ANY($6::text[])
       UNION
       SELECT p.party_id FROM directory_channels ch JOIN directory_parties p ON p.org_id = ch.org_id AND p.party_id = ch.party_id
        WHERE ch.org_id = $1 AND ch.kind = 'email' AND ch.status = 'active' AND ch.domain = ANY($6::text[]) AND ${cond}`,
      [...base, domains],
    );
    for (const r of rows) add(r.party_id, 'same_domain');
  }
  if (!fold) return;
  const equal = await q.query<{ party_id: string }>(`SELECT p.party_id FROM directory_parties p WHERE ${cond} AND p.name_fold = $6`, [...base, fold]);
  for (const r of equal) add(r.party_id, 'same_name');
  if (facts.country) {
    // % finds the trigram index's candidates (threshold 0.3 by default), similarity() then holds them to 0.7.
    const similar = await q.query<{ party_id: string }>(
      `SELECT p.party_id FROM directory_parties p
        WHERE ${cond} AND p.country = $7 AND p.search_fuzzy % $6 AND similarity(p.search_fuzzy, $6) >= ${ORG_SIMILARITY} AND p.name_fold <> $6`,
      [...base, fold, facts.country],
    );
    for (const r of similar) add(r.party_id, 'similar_name_country');
  }
}
