import { badRequest } from '../../protocol/errors.js';
import { decodeCursor, encodeCursor } from '../core/cursor.js';
import { MAX_LIMIT as MAX_SEARCH_LIMIT, FUZZY_THRESHOLD } from '../../db/search.js';
import type { Queryable } from '../../db/types.js';
import { Params } from './filters.js';
import { partyRows, type PartyKind, type PartyRow, type PartyStatus } from './model.js';
import { tryEmail, tryPhone, type ChannelKey } from './normalise.js';
import { partySearch } from './search.js';

/*
 * The contact view of parties (contact.*, contacts.upsert, GET /contacts.list): a party as a flat address-book
 * card, and the two listings: by name or relevance (contact.list) and by last change (the sync read). Both run
 * in a transaction of their own (the fuzzy threshold is transaction-local). Query text never reaches an event.
 */

const iso = (t: string) => new Date(t).toISOString();

/** A live party as a contact card. */
export const toContact = (r: PartyRow) => ({
  id: r.party_id,
  kind: r.kind,
  name: r.display_name,
  email: r.email,
  phone: r.phone,
  organisation: r.kind === 'person' ? r.employer_name : null,
  organisationId: r.kind === 'person' ? r.employer_id : null,
  title: r.kind === 'person' ? r.title : null,
  archived: r.status === 'archived',
  version: Number(r.version),
  updatedAt: iso(r.updated_at),
});

/** A merged party in a sync page. */
export const toContactTombstone = (r: PartyRow) => ({
  id: r.party_id,
  kind: r.kind,
  merged: true as const,
  mergedInto: r.merged_into!,
  updatedAt: iso(r.updated_at),
});

/** A number typed as digits and separators only: looked up as a phone, never as words. */
const PHONE_SHAPED = /^\+?[\d\s().-]{6,}$/;

/** The channel key a query stands for (an email address or a phone number), else null: then it is words. */
export function queryKey(text: string): ChannelKey | null {
  const t = text.trim();
  return t.includes('@') ? tryEmail(t) : PHONE_SHAPED.test(t) ? tryPhone(t) : null;
}

type Cursor = [string, string];

/** A cursor of this list: its tag (c by name, u by change), then the key. */
const tagged = (field: string, cursor: string, tag: string): Cursor =>
  decodeCursor<[string, ...Cursor]>(
    cursor,
    field,
    (v) => v.length === 3 && v[0] === tag && typeof v[1] === 'string' && typeof v[2] === 'string',
    'list returned (with these params)',
  ).slice(1) as Cursor;

export interface ContactPage {
  rows: PartyRow[];
  nextCursor: string | null;
}

export interface ContactListOptions {
  q?: string;
  kinds: readonly PartyKind[];
  statuses: readonly PartyStatus[];
  cursor?: string;
  limit: number;
}

/**
 * contact.list: by name (lower(display_name), id), or with q by relevance (db/search.ts; at most 100 a page); an
 * email or phone q finds the parties holding it (one page).
 */
export async function listContacts(q: Queryable, orgId: string, o: ContactListOptions): Promise<ContactPage> {
  if (o.q !== undefined) {
    const key = queryKey(o.q);
    if (key) {
      if (o.cursor !== undefined) throw badRequest('cursor', 'an email or phone query answers one page');
      const rows = await q.query<{ party_id: string }>(
        `SELECT p.party_id FROM directory_channels ch JOIN directory_parties p ON p.org_id = ch.org_id AND p.party_id = ch.party_id
          WHERE ch.org_id = $1 AND ch.kind = $2 AND ch.key = $3 AND ch.status = 'active' AND p.status = ANY($4::text[]) AND p.kind = ANY($5::text[])
          GROUP BY p.party_id ORDER BY min(ch.n) LIMIT $6`,
        [orgId, key.kind, key.key, o.statuses, o.kinds, o.limit],
      );
      return {
        rows: await partyRows(
          q,
          orgId,
          rows.map((r) => r.party_id),
        ),
        nextCursor: null,
      };
    }
    const page = await partySearch.search(q, {
      org: orgId,
      q: o.q,
      limit: Math.min(o.limit, MAX_SEARCH_LIMIT),
      cursor: o.cursor,
      filters: { kind: o.kinds, status: o.statuses },
    });
    return {
      rows: await partyRows(
        q,
        orgId,
        page.items.map((h) => h.id),
      ),
      nextCursor: page.nextCursor,
    };
  }
  const params = new Params([orgId, o.kinds, o.statuses]);
  let after = '';
  if (o.cursor !== undefined) {
    const [name, id] = tagged('cursor', o.cursor, 'c');
    after = `AND (lower(p.display_name), p.party_id) > (${params.push(name, '::text')}, ${params.push(id, '::text')})`;
  }
  const rows = await q.query<{ party_id: string; sort: string }>(
    `SELECT p.party_id, lower(p.display_name) AS sort FROM directory_parties p
      WHERE p.org_id = $1 AND p.kind = ANY($2::text[]) AND p.status = ANY($3::text[]) ${after}
      ORDER BY lower(p.display_name), p.party_id LIMIT ${params.push(o.limit + 1)}`,
    params.values,
  );
  return paged(q, orgId, rows, o.limit, 'c');
}

export interface ContactSyncOptions {
  q?: string;
  updatedSince?: string;
  cursor?: string;
  limit: number;
}

/**
 * GET /contacts.list: by (updatedAt, id). Without updatedSince active parties only; with it archived and merged
 * ones too (a sync deletes or redirects them). q narrows: an email or phone to its holders, else words (full
 * text or trigram on the name).
 */
export async function syncContacts(q: Queryable, orgId: string, o: ContactSyncOptions): Promise<ContactPage> {
  const params = new Params([orgId]);
  const where: string[] = [];
  if (o.updatedSince === undefined) where.push(`p.status = 'active'`);
  else where.push(`p.updated_at >= ${params.push(o.updatedSince, '::timestamptz')}`);
  if (o.q !== undefined) {
    const key = queryKey(o.q);
    if (key) {
      where.push(`EXISTS (SELECT 1 FROM directory_channels ch WHERE ch.org_id = p.org_id AND ch.party_id = p.party_id AND ch.kind = ${params.push(key.kind)}
        AND ch.key = ${params.push(key.key)} AND ch.status = 'active')`);
    } else {
      // Control characters out, as db/search.ts does; words match by full text or, for typos, trigrams.
      const text = o.q.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
      if (!/[\p{L}\p{N}]/u.test(text)) return { rows: [], nextCursor: null };
      await q.query(`SELECT set_config('pg_trgm.word_similarity_threshold', $1, true)`, [String(FUZZY_THRESHOLD)]);
      const t = params.push(text);
      where.push(
        `(p.search_doc @@ websearch_to_tsquery('wops_search', ${t}) OR p.search_stem @@ websearch_to_tsquery('wops_search_stem', ${t}) OR wops_unaccent(${t}) <% p.search_fuzzy)`,
      );
    }
  }
  if (o.cursor !== undefined) {
    const [at, id] = tagged('query.cursor', o.cursor, 'u');
    where.push(`(p.updated_at, p.party_id) > (${params.push(at, '::timestamptz')}, ${params.push(id, '::text')})`);
  }
  const rows = await q.query<{ party_id: string; sort: string }>(
    `SELECT p.party_id, to_char(p.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort FROM directory_parties p
      WHERE p.org_id = $1 AND ${where.join(' AND ')}
      ORDER BY p.updated_at, p.party_id LIMIT ${params.push(o.limit + 1)}`,
    params.values,
  );
  return paged(q, orgId, rows, o.limit, 'u');
}

async function paged(q: Queryable, orgId: string, rows: { party_id: string; sort: string }[], limit: number, tag: string): Promise<ContactPage> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    rows: await partyRows(
      q,
      orgId,
      page.map((r) => r.party_id),
    ),
    nextCursor: rows.length > limit && last ? encodeCursor([tag, last.sort, last.party_id]) : null,
  };
}
