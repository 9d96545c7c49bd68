import { badRequest } from '../protocol/errors.js';
import type { Queryable } from './types.js';

/*
 * One search over both databases (migrations 017 and 051): a family declares once which columns of which table are
 * searchable, and its migration adds the matching columns and GIN indexes with wops_search_indexes(...). A query is
 * PostgreSQL full text (websearch syntax, accent-folded 'simple' configuration, ts_rank_cd with the A/B/C
 * weights, ts_headline highlights), then the same over English stems (word forms: "invoices" finds "invoice"),
 * then trigram matching (word_similarity on the accent-folded fuzzy columns) for typos and short prefixes. Each
 * tier ranks below the one before: exact words, then word forms, then near spellings. Query text only ever travels
 * as a parameter, and nothing here writes the ledger: a caller must never put the query in an event either.
 */

export interface SearchSpec {
  /** The table (a tenant table: org_id scopes every query) and its id column. */
  table: string;
  id: string;
  /** Text columns by weight: A ranks above B above C. */
  weights: { A: readonly string[]; B?: readonly string[]; C?: readonly string[] };
  /** Columns matched by trigrams (typos, prefixes); default the A columns. Keep them short: names and titles. */
  fuzzy?: readonly string[];
  /** Equality filters a caller may apply: filter name -> column. */
  filters?: Readonly<Record<string, string>>;
  /** Range filters a caller may apply (from inclusive, until exclusive): range name -> column. */
  ranges?: Readonly<Record<string, string>>;
  /**
   * Rank only the newest `candidates` full-text matches by `column` (an index on (org_id, column DESC) serves it):
   * for large, time-ordered bodies (chat), where a common word matches tens of thousands of rows and ranking them
   * all costs more than the answer is worth. Older matches are reached by narrowing (a range filter).
   */
  recent?: {
    column: string;
    candidates: number;
    /**
     * The integer column holding wops_search_day(column) that the table's doc and stem GIN indexes carry
     * (wops_search_recent, 058_search_recent.sql). With it the newest matches are found day-window by day-window
     * inside the index (the last week first, widened by the density seen), rather than by walking the newest rows
     * or fetching every match: the same candidates, found at a cost bounded by `candidates`, not by the table.
     */
    day?: string;
  };
}

export type FilterValue = string | number | boolean | null | readonly (string | number)[];

export interface SearchOptions {
  org: string;
  q: string;
  limit?: number;
  cursor?: string;
  filters?: Readonly<Record<string, FilterValue | undefined>>;
  ranges?: Readonly<Record<string, { from?: string | number; until?: string | number } | undefined>>;
  /** The request fields named in errors (default params.q and params.cursor). */
  fields?: { q?: string; cursor?: string };
  /**
   * One more condition on the table's rows (columns qualified by the table's name), for what equality filters cannot
   * say (files: readable by the caller). `param` binds a value and returns its placeholder.
   */
  where?: (param: (value: unknown) => string) => string;
}

/** A piece of highlighted text: `match` marks the words the query matched. */
export interface Segment {
  text: string;
  match: boolean;
}

export interface SearchHit {
  id: string;
  /** 'text' for a full-text match (its words, or their word forms), 'fuzzy' for a trigram-only match. */
  matched: 'text' | 'fuzzy';
  /** ts_rank_cd for text matches, word_similarity for fuzzy ones (comparable only within a tier). */
  score: number;
  /** Per searchable column, a bounded excerpt with the matched words marked. */
  highlights: Record<string, Segment[]>;
}

export interface SearchPage {
  items: SearchHit[];
  nextCursor: string | null;
}

export interface Searchable {
  readonly spec: SearchSpec;
  /** What the table's generated columns must hold, from this declaration (tests compare the two). */
  readonly columns: { search_doc: string; search_stem: string; search_fuzzy: string };
  search(q: Queryable, opts: SearchOptions): Promise<SearchPage>;
}

/** Longest query accepted: a search box, not a document (bounds parse and match work). */
export const MAX_QUERY_CHARS = 256;
export const MAX_LIMIT = 100;
const DEFAULT_LIMIT = 20;
/** word_similarity at or above this is a fuzzy hit: "recieve" against "receive" scores 0.375. */
export const FUZZY_THRESHOLD = 0.3;
/**
 * The trigram tier asks this threshold first. When a page's worth of rows reach it, they are the page: every other
 * fuzzy hit scores lower. A prefix or a common word then ranks its close matches only, not the thousands of rows
 * that share two trigrams with it (a 3-letter prefix scores 0.75 against the words it starts; "procurment" 0.82
 * against "procurement").
 */
export const STRICT_FUZZY_THRESHOLD = 0.6;
/** Private-use characters as highlight marks: removed from the text first, so a mark is always ours. */
const START = '\uE000';
const STOP = '\uE001';
const HEADLINE = `StartSel=${START}, StopSel=${STOP}, MaxWords=24, MinWords=8, MaxFragments=2, FragmentDelimiter=" … "`;
/** Bound on a highlight's characters, whatever the words' lengths. */
const MAX_HIGHLIGHT_CHARS = 400;
/** A day-windowed search looks at the last week first; a wider window than MAX_WINDOW_DAYS is every day. */
const FIRST_WINDOW_DAYS = 7;
const MAX_WINDOW_DAYS = 400;
/** D, C, B, A (ts_rank_cd's order). */
const RANK_WEIGHTS = '{0.1, 0.2, 0.4, 1.0}';

const registry: Searchable[] = [];

/** Every declared searchable (tests check each one's indexes are used). */
export const searchables = (): readonly Searchable[] => registry;

const IDENT = /^[a-z_][a-z0-9_]*$/;

/** Declare a searchable table once; the returned object runs its searches. */
export function defineSearch(spec: SearchSpec): Searchable {
  const fuzzy = spec.fuzzy ?? spec.weights.A;
  const textColumns = [...spec.weights.A, ...(spec.weights.B ?? []), ...(spec.weights.C ?? [])];
  for (const name of [
    spec.table,
    spec.id,
    ...textColumns,
    ...fuzzy,
    ...Object.values(spec.filters ?? {}),
    ...Object.values(spec.ranges ?? {}),
    ...(spec.recent ? [spec.recent.column, ...(spec.recent.day ? [spec.recent.day] : [])] : []),
  ]) {
    if (!IDENT.test(name)) throw new Error(`defineSearch(${spec.table}): ${JSON.stringify(name)} is not a plain identifier`);
  }
  // fuzzy: [] declares no trigram tier (long bodies: typo matching belongs to short names and titles).
  if (spec.weights.A.length === 0) throw new Error(`defineSearch(${spec.table}): needs A columns`);
  // The stored generated columns wops_search_indexes adds (017_search.sql), and what they must equal.
  const doc = 'search_doc';
  const stem = 'search_stem';
  const fuzzyText = 'search_fuzzy';
  const concat = (cols: readonly string[] | undefined) => (cols && cols.length ? cols.map((c) => `coalesce(${c}, '')`).join(` || ' ' || `) : 'NULL');
  const columns = {
    search_doc: `wops_search_doc(${concat(spec.weights.A)}, ${concat(spec.weights.B)}, ${concat(spec.weights.C)})`,
    search_stem: `wops_search_stem(${concat(spec.weights.A)}, ${concat(spec.weights.B)}, ${concat(spec.weights.C)})`,
    search_fuzzy: `wops_unaccent(${concat(fuzzy)})`,
  };

  /**
   * The SQL of one tier, `take` rows from `after` on: 0 is the full-text hits by rank, 1 the hits of word forms only
   * (stems), 2 the trigram-only hits by similarity (a row is in one tier only). Tiers are asked in turn, so a query
   * whose full-text hits fill the page never pays for stems or similarity.
   */
  function tierSql(
    opts: SearchOptions,
    text: string,
    tier: Tier,
    take: number,
    after: Cursor | undefined,
    days: number | null,
  ): { sql: string; params: unknown[] } {
    // $1 org, $2 the query text (websearch syntax for tiers 0 and 1, the words for tier 2)
    const params: unknown[] = [opts.org, text];
    const exact = `websearch_to_tsquery('wops_search', $2)`;
    const stemmed = `websearch_to_tsquery('wops_search_stem', $2)`;
    const query = tier === 1 ? stemmed : exact;
    const config = tier === 1 ? 'wops_search_stem' : 'wops_search';
    const match = [
      `${doc} @@ ${exact}`,
      `(${stem} @@ ${stemmed} AND NOT (${doc} @@ ${exact}))`,
      `wops_unaccent($2) <% ${fuzzyText} AND NOT (${doc} @@ ${exact}) AND NOT (${stem} @@ ${stemmed})`,
    ][tier];
    const where: string[] = [];
    for (const [name, value] of Object.entries(opts.filters ?? {})) {
      if (value === undefined) continue;
      const column = spec.filters?.[name];
      if (!column) throw new Error(`search(${spec.table}): no filter ${name}`);
      if (value === null) where.push(`${column} IS NULL`);
      else if (Array.isArray(value)) where.push(`${column}::text = ANY($${params.push(value.map(String))}::text[])`);
      else where.push(`${column}::text = $${params.push(String(value))}`);
    }
    for (const [name, range] of Object.entries(opts.ranges ?? {})) {
      if (range === undefined) continue;
      const column = spec.ranges?.[name];
      if (!column) throw new Error(`search(${spec.table}): no range ${name}`);
      if (range.from !== undefined) where.push(`${column} >= $${params.push(range.from)}`);
      if (range.until !== undefined) where.push(`${column} < $${params.push(range.until)}`);
    }
    if (opts.where) where.push(`(${opts.where((value) => `$${params.push(value)}`)})`);
    if (days !== null && spec.recent?.day) where.push(`${spec.recent.day} >= wops_search_day(now()) - $${params.push(days)}::int`);
    let from = '';
    if (after) {
      const [sc, id] = [params.push(after.score), params.push(after.id)];
      from = `WHERE score < $${sc}::real OR (score = $${sc}::real AND id > $${id})`;
    }
    const score = tier === 2 ? `word_similarity(wops_unaccent($2), ${fuzzyText})` : `ts_rank_cd('${RANK_WEIGHTS}', ${tier === 1 ? stem : doc}, ${query})`;
    const marks = params.push(START + STOP);
    const options = params.push(HEADLINE);
    const highlights = textColumns
      .map((c) => `'${c}', ts_headline('${config}', translate(coalesce(t.${c}, ''), $${marks}, ''), ${query}, $${options})`)
      .join(', ');
    const rows = (condition: string) => `${spec.table} WHERE ${['org_id = $1', condition, ...where].join(' AND ')}`;
    let ctes: string;
    if (tier !== 2 && spec.recent) {
      // The newest candidates first, ranked after: the rank reads each row's words, so only the candidates pay it.
      // A quoted phrase is a check on each row's positions that no index makes: the candidates are the newest rows
      // holding its words, and the phrase is kept among them (else a rare phrase of common words read every row
      // holding both: 1.1 s for 2,600 rows at 200k messages, cold).
      const phrase = text.includes('"');
      let candidate = match;
      let keep = '';
      if (phrase) {
        const words = `$${params.push(text.replace(/"/g, ' '))}`;
        candidate = tier === 1 ? `${stem} @@ websearch_to_tsquery('wops_search_stem', ${words})` : `${doc} @@ websearch_to_tsquery('wops_search', ${words})`;
        keep = tier === 1 ? `WHERE v @@ ${stemmed} AND NOT (d @@ ${exact})` : `WHERE d @@ ${exact}`;
      }
      ctes = `newest AS (SELECT ${spec.id}::text AS id, ${doc} AS d, ${stem} AS v FROM ${rows(candidate)}
                ORDER BY ${spec.recent.column} DESC LIMIT ${Math.trunc(spec.recent.candidates)}),
        hits AS (SELECT id, ts_rank_cd('${RANK_WEIGHTS}', ${tier === 1 ? 'v' : 'd'}, ${query}) AS score FROM newest ${keep})`;
    } else {
      ctes = `newest AS (SELECT ${spec.id}::text AS id, ${score} AS score FROM ${rows(match)}), hits AS (SELECT * FROM newest)`;
    }
    // found: how many candidates there were (a day window that found fewer than `candidates` is widened).
    const sql = `WITH ${ctes},
      page AS (SELECT * FROM hits ${from} ORDER BY score DESC, id LIMIT ${take})
      SELECT p.id, p.score::text AS score, json_build_object(${highlights}) AS highlights, (SELECT count(*) FROM newest)::int AS found
        FROM page p JOIN ${spec.table} t ON t.org_id = $1 AND t.${spec.id}::text = p.id
       ORDER BY p.score DESC, p.id`;
    return { sql, params };
  }

  /**
   * One tier's rows. With a day column, the newest candidates are looked for in the last FIRST_WINDOW_DAYS days,
   * then in a window widened by the density seen there, then everywhere: a window that holds `candidates` matches
   * holds the newest ones (every newer row is in it), so the answer is what the search over every day would give.
   */
  async function tierRows(q: Queryable, opts: SearchOptions, text: string, tier: Tier, take: number, after: Cursor | undefined) {
    type Found = { id: string; score: string; highlights: Record<string, string> | string; found: number };
    const candidates = spec.recent?.candidates ?? 0;
    let days: number | null = tier !== 2 && spec.recent?.day !== undefined ? FIRST_WINDOW_DAYS : null;
    for (let round = 0; ; round++) {
      const planned = tierSql(opts, text, tier, take, after, days);
      const rows = await q.query<Found>(planned.sql, planned.params);
      const found = rows[0] ? Number(rows[0].found) : 0;
      if (days === null || found >= candidates) return rows;
      // Matches come at about found/days a day: a window that should hold half again the candidates, or every day.
      const wider = found > 0 ? Math.ceil((days * candidates * 1.5) / found) : Infinity;
      days = round === 0 && wider <= MAX_WINDOW_DAYS ? wider : null;
    }
  }

  /** Run inside a transaction (a handler's q is one): the settings below are local to it. */
  async function search(q: Queryable, opts: SearchOptions): Promise<SearchPage> {
    const text = cleanQuery(opts.q, opts.fields?.q ?? 'q');
    if (!/[\p{L}\p{N}]/u.test(text)) return { items: [], nextCursor: null }; // only punctuation: nothing to match
    const limit = opts.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest('limit', `an integer from 1 to ${MAX_LIMIT}`);
    const cursor = opts.cursor === undefined ? undefined : decodeCursor(opts.cursor, opts.fields?.cursor ?? 'cursor');
    // Local to the caller's transaction: the fuzzy threshold is a setting the index scan reads; and a plan made for
    // these very words, as a prepared statement's generic plan cannot see how selective they are (it scans the org).
    await q.query(`SELECT set_config('pg_trgm.word_similarity_threshold', $1, true), set_config('plan_cache_mode', 'force_custom_plan', true)`, [
      String(FUZZY_THRESHOLD),
    ]);
    type Row = { id: string; tier: Tier; score: string; highlights: Record<string, string> | string };
    const rows: Row[] = [];
    for (const tier of [0, 1, 2] as const) {
      if (cursor && cursor.tier > tier) continue;
      if (tier === 2 && (fuzzy.length === 0 || !plainWords(text))) break;
      const take = limit + 1 - rows.length;
      if (take <= 0) break;
      const after = cursor?.tier === tier ? cursor : undefined;
      if (tier !== 2) {
        for (const r of await tierRows(q, opts, text, tier, take, after)) rows.push({ ...r, tier });
        continue;
      }
      const planned = tierSql(opts, text, tier, take, after, null);
      if (!(after && Number(after.score) < STRICT_FUZZY_THRESHOLD)) {
        // The strict pass, its threshold set around its statement alone (sent together: one round trip).
        const setThreshold = `SELECT set_config('pg_trgm.word_similarity_threshold', $1, true)`;
        const [, strict] = await Promise.all([
          q.query(setThreshold, [String(STRICT_FUZZY_THRESHOLD)]),
          q.query<Omit<Row, 'tier'>>(planned.sql, planned.params),
          q.query(setThreshold, [String(FUZZY_THRESHOLD)]),
        ]);
        if (strict.length >= take) {
          for (const r of strict) rows.push({ ...r, tier });
          continue;
        }
      }
      for (const r of await q.query<Omit<Row, 'tier'>>(planned.sql, planned.params)) rows.push({ ...r, tier });
    }
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      items: page.map((r) => ({
        id: r.id,
        matched: r.tier === 2 ? 'fuzzy' : 'text',
        score: Number(r.score),
        highlights: toSegments(typeof r.highlights === 'string' ? JSON.parse(r.highlights) : r.highlights),
      })),
      nextCursor: rows.length > limit && last ? encodeCursor({ tier: last.tier, score: last.score, id: last.id }) : null,
    };
  }

  const searchable: Searchable = { spec, columns, search };
  registry.push(searchable);
  return searchable;
}

/** Control characters out (NUL is refused by PostgreSQL), length bounded. */
function cleanQuery(q: string, field: string): string {
  if (typeof q !== 'string') throw badRequest(field, 'a string');
  if (q.length > MAX_QUERY_CHARS) throw badRequest(field, `at most ${MAX_QUERY_CHARS} characters`);
  // Lone surrogates are not text either; the marks are ours.
  return q.replace(/[\u0000-\u001f\u007f\uE000\uE001]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, ' ').trim();
}

/**
 * Websearch syntax (quotes, OR, -exclusion) is a precise request: only plain words also match by trigrams,
 * so a fuzzy hit never brings back what the user excluded or outside their phrase.
 */
function plainWords(text: string): boolean {
  return !/["]|(^|\s)-|\bor\b/i.test(text);
}

function toSegments(raw: Record<string, string>): Record<string, Segment[]> {
  const out: Record<string, Segment[]> = {};
  for (const [column, headline] of Object.entries(raw)) {
    const segments: Segment[] = [];
    let used = 0;
    for (const [i, part] of headline.split(new RegExp(`[${START}${STOP}]`)).entries()) {
      if (!part || used >= MAX_HIGHLIGHT_CHARS) continue;
      const text = part.slice(0, MAX_HIGHLIGHT_CHARS - used);
      used += text.length;
      segments.push({ text, match: i % 2 === 1 });
    }
    out[column] = segments;
  }
  return out;
}

/** 0 exact words, 1 word forms (stems) only, 2 near spellings (trigrams) only. */
type Tier = 0 | 1 | 2;

interface Cursor {
  tier: Tier;
  /** The score as PostgreSQL printed it (a real prints exactly and reads back equal). */
  score: string;
  id: string;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.tier, c.score, c.id])).toString('base64url');
}

function decodeCursor(cursor: string, field: string): Cursor {
  try {
    const [tier, score, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if ((tier === 0 || tier === 1 || tier === 2) && typeof score === 'string' && Number.isFinite(Number(score)) && typeof id === 'string')
      return { tier, score, id };
  } catch {
    // not JSON: refused below
  }
  throw badRequest(field, 'not a cursor this search returned');
}
