import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../domain/deployed.js';
import { boardTaskSearch } from '../../domain/board/search.js';
// Declared here so the index test checks them: the day-windowed searches of chat and mail.
import '../../domain/messaging/search.js';
import '../../domain/email/search.js';
import { MAX_QUERY_CHARS, defineSearch, searchables, type SearchOptions } from '../../db/search.js';
import { ApiError } from '../../protocol/errors.js';
import { one } from '../../db/types.js';
import { freshOrg, testRuntime } from '../helpers/harness.js';
import { ROOT } from '../helpers/imports.js';

// The search module (db/search.ts) over board items, the same assertions on PGlite and PostgreSQL.

let runtime: Runtime;
let org: string;
let other: string;

async function addTask(orgId: string, id: string, title: string, description = '', col = 'todo'): Promise<void> {
  await runtime.db.query(
    `INSERT INTO board_tasks (org_id, task_id, title, description, col, created_by, completed_at)
     VALUES ($1, $2, $3, $4, $5, '', CASE WHEN $5 = 'done' THEN now() END)`,
    [orgId, id, title, description, col],
  );
}

/** Searches run in a transaction (the fuzzy threshold is set for it), as a handler's read does. */
const search = (opts: Omit<SearchOptions, 'org'> & { org?: string }) => runtime.db.tx((q) => boardTaskSearch.search(q, { org, ...opts }));
const ids = async (q: string, extra: Partial<SearchOptions> = {}) => (await search({ q, ...extra })).items.map((i) => i.id);

beforeAll(async () => {
  runtime = await testRuntime();
  org = (await freshOrg(runtime, 'search')).orgId;
  other = (await freshOrg(runtime, 'search')).orgId;
  await addTask(org, 'tsk_cafe', 'Book the Café Crème for the offsite', 'Tables for twelve near the window');
  await addTask(org, 'tsk_receive', 'Receive the supplier invoice', 'Check it against the purchase order', 'done');
  await addTask(org, 'tsk_budget_title', 'Quarterly budget review', 'Numbers from finance');
  await addTask(org, 'tsk_budget_body', 'Prepare the offsite agenda', 'Leave time for the budget discussion');
  await addTask(org, 'tsk_paint', 'Paint the meeting room', 'Red or blue, not green');
  await addTask(org, 'tsk_hostile', "Robert'); DROP TABLE board_tasks;--", 'Little Bobby Tables <script>alert(1)</script> \uE000mark\uE001');
  await addTask(other, 'tsk_other_cafe', 'Café in the other org', 'Invisible to the first org');
}, 60_000);

afterAll(async () => {
  await runtime?.close();
});

describe('full text', () => {
  it('folds accents both ways: "café" and "cafe" find "Café"', async () => {
    expect(await ids('cafe')).toEqual(['tsk_cafe']);
    expect(await ids('CAFÉ')).toEqual(['tsk_cafe']);
    expect(await ids('creme')).toEqual(['tsk_cafe']);
  });

  it('takes websearch syntax: quoted phrases, OR, -exclusion', async () => {
    expect(await ids('"budget review"')).toEqual(['tsk_budget_title']);
    expect(await ids('"review budget"')).toEqual([]);
    expect((await ids('window OR supplier')).sort()).toEqual(['tsk_cafe', 'tsk_receive']);
    expect(await ids('budget -finance')).toEqual(['tsk_budget_body']);
    expect(await ids('offsite -agenda')).toEqual(['tsk_cafe']);
  });

  it('ranks a title (A) match above a description (B) match', async () => {
    const page = await search({ q: 'budget' });
    expect(page.items.map((i) => i.id)).toEqual(['tsk_budget_title', 'tsk_budget_body']);
    expect(page.items[0].score).toBeGreaterThan(page.items[1].score);
    expect(page.items.every((i) => i.matched === 'text')).toBe(true);
  });

  it('highlights the matched words in the original text, accents kept', async () => {
    const [hit] = (await search({ q: 'cafe window' })).items;
    expect(hit.highlights.title).toContainEqual({ text: 'Café', match: true });
    expect(hit.highlights.description).toContainEqual({ text: 'window', match: true });
    expect(hit.highlights.title.map((s) => s.text).join('')).toBe('Book the Café Crème for the offsite');
  });

  it('keeps stored text that looks like a mark from posing as one, and bounds highlight length', async () => {
    const long = `${'word '.repeat(3000)}needle ${'word '.repeat(3000)}`;
    await addTask(org, 'tsk_long', 'A long note', long);
    const [hit] = (await search({ q: 'needle' })).items;
    const description = hit.highlights.description;
    expect(description).toContainEqual({ text: 'needle', match: true });
    expect(description.map((s) => s.text).join('').length).toBeLessThanOrEqual(400);
    const [bobby] = (await search({ q: 'bobby' })).items;
    const text = bobby.highlights.description.map((s) => s.text).join('');
    // The parser reads <script> as a tag, which headlines leave out; the stored marks are stripped to spaces.
    expect(text).toContain('Little Bobby Tables');
    expect(text).toContain('mark');
    expect(text).not.toMatch(/[\uE000\uE001]/);
  });
});

describe('fuzzy', () => {
  it('finds through typos and short prefixes, after every full-text hit', async () => {
    expect(await ids('recieve')).toEqual(['tsk_receive']);
    expect(await ids('invoce')).toEqual(['tsk_receive']);
    expect(await ids('quart')).toEqual(['tsk_budget_title']);
    const page = await search({ q: 'recieve' });
    expect(page.items[0].matched).toBe('fuzzy');
  });

  it('a page the strict pass fills is the page the wide threshold would give, and paging crosses into the wider hits', async () => {
    const own = (await freshOrg(runtime, 'strict')).orgId;
    for (let i = 0; i < 12; i++) await addTask(own, `tsk_wh_${String(i).padStart(2, '0')}`, `Warehouse shelving ${i}`);
    await addTask(own, 'tsk_wardrobe', 'Wardrobe repair');
    await addTask(own, 'tsk_waratah', 'Waratah planting');
    // The definition: every row at or above the fuzzy threshold, by similarity then id (no full-text hit here).
    const expected = await runtime.db.tx(async (q) => {
      await q.query(`SELECT set_config('pg_trgm.word_similarity_threshold', '0.3', true)`);
      const rows = await q.query<{ task_id: string }>(
        `SELECT task_id FROM board_tasks WHERE org_id = $1 AND wops_unaccent($2) <% search_fuzzy
          ORDER BY word_similarity(wops_unaccent($2), search_fuzzy) DESC, task_id`,
        [own, 'wareh'],
      );
      return rows.map((r) => r.task_id);
    });
    expect(expected).toHaveLength(14);
    expect(expected.slice(0, 12).every((id) => id.startsWith('tsk_wh_'))).toBe(true);
    const first = await search({ org: own, q: 'wareh', limit: 5 });
    expect(first.items.map((i) => i.id)).toEqual(expected.slice(0, 5));
    expect(first.items.every((i) => i.matched === 'fuzzy')).toBe(true);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await search({ org: own, q: 'wareh', limit: 5, cursor });
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(expected);
  });

  it('stays out of precise queries: phrases and exclusions do not match by trigrams', async () => {
    expect(await ids('"recieve"')).toEqual([]);
    expect(await ids('recieve -supplier')).toEqual([]);
  });
});

describe('scope and paging', () => {
  it('never returns another org’s rows', async () => {
    expect(await ids('cafe')).toEqual(['tsk_cafe']);
    expect(await ids('invisible')).not.toContain('tsk_other_cafe');
    expect(await ids('cafe', { org: other })).toEqual(['tsk_other_cafe']);
  });

  it('applies declared filters', async () => {
    expect(await ids('invoice', { filters: { col: 'todo' } })).toEqual([]);
    expect(await ids('invoice', { filters: { col: ['done', 'todo'] } })).toEqual(['tsk_receive']);
  });

  it('pages with a cursor through text and fuzzy hits without a gap or a repeat', async () => {
    for (let i = 0; i < 7; i++) await addTask(org, `tsk_page_${i}`, `Pager item ${i}`, i % 2 ? 'pager pager pager' : 'other');
    await addTask(org, 'tsk_page_typo', 'Pagr item typo', '');
    const hits = (await search({ q: 'pager', limit: 100 })).items;
    const all = hits.map((i) => i.id);
    expect(hits.slice(0, 7).every((i) => i.matched === 'text' && i.id.startsWith('tsk_page_'))).toBe(true);
    expect(hits.slice(7).every((i) => i.matched === 'fuzzy')).toBe(true);
    expect(all.slice(7)).toContain('tsk_page_typo');
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await search({ q: 'pager', limit: 3, cursor });
      seen.push(...page.items.map((i) => i.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all);
  });
});

describe('a recent-candidates window (chat-sized tables)', () => {
  it('ranks only the newest `candidates` matches; narrowing by range reaches older ones', async () => {
    const newest = defineSearch({
      table: 'board_tasks',
      id: 'task_id',
      weights: { A: ['title'], B: ['description'] },
      ranges: { createdAt: 'created_at' },
      recent: { column: 'created_at', candidates: 2 },
    });
    const o = (await freshOrg(runtime, 'search')).orgId;
    for (const [i, id] of ['tsk_w1', 'tsk_w2', 'tsk_w3'].entries()) {
      await runtime.db.query(
        `INSERT INTO board_tasks (org_id, task_id, title, description, col, created_by, created_at) VALUES ($1, $2, $3, '', 'todo', '', $4)`,
        [o, id, i === 0 ? 'window window window cleaning' : 'window cleaning', `2026-0${i + 1}-01T00:00:00Z`],
      );
    }
    const run = (opts: Partial<SearchOptions> = {}) => runtime.db.tx((q) => newest.search(q, { org: o, q: 'window', ...opts }));
    // The oldest ranks highest (three matches of the word) but lies outside the newest two.
    expect((await run()).items.map((i) => i.id).sort()).toEqual(['tsk_w2', 'tsk_w3']);
    expect((await run({ ranges: { createdAt: { until: '2026-01-15T00:00:00Z' } } })).items.map((i) => i.id)).toEqual(['tsk_w1']);
  });
});

describe('day windows (recent.day: the doc and stem indexes carry each row day)', () => {
  const TABLE = 'search_window_probe';
  const spec = (candidates: number, day?: string) =>
    defineSearch({ table: TABLE, id: 'item_id', weights: { A: ['title'] }, fuzzy: [], recent: { column: 'at', candidates, ...(day ? { day } : {}) } });

  beforeAll(async () => {
    // A table of this test's own, made searchable as a migration makes one (PGlite workers share a database).
    await runtime.db.query(`CREATE TABLE IF NOT EXISTS ${TABLE} (org_id text NOT NULL, item_id text NOT NULL, title text NOT NULL, at timestamptz NOT NULL,
                              PRIMARY KEY (org_id, item_id))`);
    const [has] = await runtime.db.query(`SELECT 1 FROM information_schema.columns WHERE table_name = $1 AND column_name = 'search_day'`, [TABLE]);
    if (!has) {
      await runtime.db.query(`SELECT wops_search_indexes('${TABLE}', ARRAY['title'], ARRAY[]::text[], ARRAY[]::text[], ARRAY['title'])`);
      await runtime.db.query(`SELECT wops_search_recent('${TABLE}', 'at')`);
    }
  });

  /** Rows titled `word` at these many days ago; the ids name the word and the day. */
  async function rows(o: string, word: string, daysAgo: number[]) {
    for (const d of daysAgo) {
      await runtime.db.query(`INSERT INTO ${TABLE} (org_id, item_id, title, at) VALUES ($1, $2, $3, now() - make_interval(days => $4))`, [
        o,
        `${word}-${d}`,
        `${word} report`,
        d,
      ]);
    }
  }

  /** The ids a search finds and how many statements of its exact-words tier asked a day window. */
  async function run(s: ReturnType<typeof spec>, o: string, word: string) {
    let windows = 0;
    const items = await runtime.db.tx(async (q) => {
      const counting = {
        query: (sql: string, params?: readonly unknown[]) => {
          if (sql.includes('search_day >=') && !sql.includes('wops_search_stem')) windows++; // the exact-words tier's
          return q.query(sql, params);
        },
      };
      return (await s.search(counting as typeof q, { org: o, q: word, limit: 50 })).items.map((i) => i.id).sort();
    });
    return { items, windows };
  }

  it('the newest candidates, as the search over every day finds them, from the last week, a wider window or every day', async () => {
    const o = (await freshOrg(runtime, 'search')).orgId;
    await rows(o, 'weekly', [1, 2, 20, 30, 300]);
    await rows(o, 'monthly', [1, 12, 13, 200]);
    await rows(o, 'yearly', [700, 800]);
    for (const [word, candidates, windows] of [
      ['weekly', 2, 1], // the last week holds both
      ['monthly', 2, 2], // one in the last week; 7 * 2 * 1.5 / 1 = 21 days hold three
      ['weekly', 4, 2], // two in the last week; 7 * 4 * 1.5 / 2 = 21 days hold three: then every day
      ['yearly', 2, 1], // nothing in the last week: every day
    ] as const) {
      const windowed = await run(spec(candidates, 'search_day'), o, word);
      const everyDay = await run(spec(candidates), o, word);
      expect(windowed.items, `${word} ${candidates}`).toEqual(everyDay.items);
      expect(windowed.windows, `${word} ${candidates}: day windows asked`).toBe(windows);
      expect(everyDay.windows).toBe(0);
    }
    // A phrase is kept among the newest rows holding its words: in order, found; out of order, not.
    expect((await run(spec(2, 'search_day'), o, '"weekly report"')).items).toEqual((await run(spec(2), o, '"weekly report"')).items);
    expect((await run(spec(2, 'search_day'), o, '"weekly report"')).items).toEqual(['weekly-1', 'weekly-2']);
    expect((await run(spec(2, 'search_day'), o, '"report weekly"')).items).toEqual([]);
    expect((await run(spec(2, 'search_day'), o, 'weekly')).items).toEqual(['weekly-1', 'weekly-2']);
    expect((await run(spec(2, 'search_day'), o, 'monthly')).items).toEqual(['monthly-1', 'monthly-12']);
  });
});

describe('hostile queries answer, never INTERNAL', () => {
  const refused = async (opts: Partial<SearchOptions>) => {
    const err = await search({ q: '', ...opts }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    return (err as ApiError).code;
  };

  it('punctuation only, control characters, lone surrogates and SQL-looking text', async () => {
    for (const q of [
      '',
      '   ',
      '!!!',
      '"',
      '""',
      '-',
      'OR',
      '- - -',
      ')(*&^%$#@!',
      '\u0000\u0001',
      '\uD800',
      "'; DROP TABLE board_tasks; --",
      '\\',
      '$1',
      '<->',
      '!x & y',
      'a:* | b',
    ]) {
      await expect(search({ q }), JSON.stringify(q)).resolves.toBeDefined();
    }
    expect(await ids("Robert'); DROP TABLE")).toEqual(['tsk_hostile']);
    expect(await ids('cafe\u0000')).toEqual(['tsk_cafe']);
  });

  it('refuses over-long queries and forged cursors as BAD_REQUEST naming the field', async () => {
    expect(await refused({ q: 'x'.repeat(10_000) })).toBe('BAD_REQUEST');
    await expect(search({ q: 'x'.repeat(MAX_QUERY_CHARS + 1), fields: { q: 'query' } })).rejects.toThrow(/^query: /);
    await expect(search({ q: 'cafe', cursor: 'not-a-cursor' })).rejects.toThrow(/^cursor: /);
    await expect(search({ q: 'cafe', cursor: Buffer.from('[0,"1 OR 1=1","x"]').toString('base64url') })).rejects.toThrow(/^cursor: /);
    expect(await ids('x'.repeat(MAX_QUERY_CHARS))).toEqual([]);
  });
});

describe('word forms', () => {
  it('"invoices" finds "invoice" and "harbourmasters" finds "harbourmaster", below the rows with the very word, highlighted', async () => {
    await addTask(org, 'tsk_invoices', 'Chase the overdue invoices', 'Three clients');
    await addTask(org, 'tsk_harbour', 'Harbourmaster sign-off for the berth', '');
    const page = await search({ q: 'invoices' });
    expect(page.items.map((i) => i.id)).toEqual(['tsk_invoices', 'tsk_receive']);
    expect(page.items.every((i) => i.matched === 'text')).toBe(true);
    expect(page.items[1].highlights.title).toContainEqual({ text: 'invoice', match: true });
    expect(await ids('harbourmasters')).toEqual(['tsk_harbour']);
    expect((await search({ q: 'receiving invoices' })).items[0]).toMatchObject({ id: 'tsk_receive', matched: 'text' });
    // Paging crosses from the exact tier into the word forms and on, each row once.
    const first = await search({ q: 'invoices', limit: 1 });
    const second = await search({ q: 'invoices', limit: 1, cursor: first.nextCursor! });
    expect([...first.items, ...second.items].map((i) => i.id)).toEqual(['tsk_invoices', 'tsk_receive']);
    expect(second.nextCursor).toBeNull();
  });
});

describe('indexes', () => {
  it('every declared searchable has its three search GIN indexes, its columns as declared, serving every operator', async () => {
    for (const s of searchables()) {
      const rows = await runtime.db.query<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename = $1 AND indexdef LIKE '%USING gin%'`,
        [s.spec.table],
      );
      expect(rows.map((r) => r.indexname)).toEqual(
        expect.arrayContaining([`${s.spec.table}_search_doc`, `${s.spec.table}_search_stem`, `${s.spec.table}_search_fuzzy`]),
      );
      // The migration's columns are the declaration's (rows of this file have text in every weight).
      const differ = one(
        await runtime.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${s.spec.table} WHERE org_id = $1
            AND (search_doc IS DISTINCT FROM ${s.columns.search_doc} OR search_stem IS DISTINCT FROM ${s.columns.search_stem}
                 OR search_fuzzy IS DISTINCT FROM ${s.columns.search_fuzzy})`,
          [org],
        ),
      );
      expect(differ.n).toBe(0);
      // A day-windowed search needs its day in the doc and stem indexes, computed from its recent column.
      const day = s.spec.recent?.day;
      if (day) {
        for (const name of ['search_doc', 'search_stem'])
          expect(rows.find((r) => r.indexname === `${s.spec.table}_${name}`)?.indexdef, `${s.spec.table}_${name}`).toContain(`${name}, ${day})`);
        const [generated] = await runtime.db.query<{ generation_expression: string }>(
          `SELECT generation_expression FROM information_schema.columns WHERE table_name = $1 AND column_name = $2`,
          [s.spec.table, day],
        );
        expect(generated?.generation_expression).toContain(`wops_search_day(${s.spec.recent!.column})`);
      }
    }
    // Whether the planner prefers them over the org's btree depends on the data (docs/services.md, Search, has the figures);
    // this asks whether they serve the query's operators at all: with no other path, each condition is an index scan.
    const plan = await runtime.db.tx(async (q) => {
      await q.query('SET LOCAL enable_seqscan = off');
      const rows = await q.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT 1 FROM board_tasks WHERE search_doc @@ websearch_to_tsquery('wops_search', $1)
           OR search_stem @@ websearch_to_tsquery('wops_search_stem', $1) OR wops_unaccent($1) <% search_fuzzy`,
        ['recieve'],
      );
      return rows.map((r) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('board_tasks_search_doc');
    expect(plan).toContain('board_tasks_search_stem');
    expect(plan).toContain('board_tasks_search_fuzzy');
  });
});

describe('transactions', () => {
  // A read method's ctx.q is the pool: set_config(…, true) there ends with its own statement, so the search would run
  // with the server's defaults on whichever connection comes next. Reads search in a transaction of their own.
  const IN_CALL_TRANSACTION = new Set(['domain/knowledge/search.ts']); // knowledge.search is M: its ctx.q is the call's transaction
  it('no read handler hands its pool (ctx.q) to a search', () => {
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(join(ROOT, dir))) {
        const path = `${dir}/${name}`;
        if (statSync(join(ROOT, path)).isDirectory()) walk(path);
        else if (path.endsWith('.ts') && /\.search\(\s*ctx\.q\b/.test(readFileSync(join(ROOT, path), 'utf8')) && !IN_CALL_TRANSACTION.has(path))
          offenders.push(path);
      }
    };
    walk('domain');
    expect(offenders).toEqual([]);
  });
});
