import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FAMILIES, ROOT, familyOf, sourceFiles } from '../helpers/imports.js';

/*
 * Each table belongs to one module, declared at the top of the migration that creates it (db/migrate.ts skips
 * comment lines), one line per owner, as many lines as needed:
 *   -- tables: board: board_workstreams, board_tasks
 * The owner is a family (domain/<family>) or, for a table every family leans on, the module that writes it: core
 * (domain/core), jobs (domain/jobs), or a layer beside domain (ledger, blobs, ai-gateway, gateway). A family's code
 * names only its own tables, except for reading the ones in READ_BY_ALL; another module's table is reached through
 * that module's functions (decision 0085). Exceptions go in table-owners-baseline.json with their reasons in that
 * decision (one today: notification's join with the ledger's heads); it may only shrink; UPDATE_BOUNDARIES=1 rewrites it.
 */

const MIGRATIONS = join(ROOT, 'db/migrations');
const BASELINE = join(ROOT, 'tests/protocol/table-owners-baseline.json');
const UPDATE = process.env.UPDATE_BOUNDARIES === '1';

/**
 * Every row is keyed by its org, and every family records people as principal ids (actors, assignees, members),
 * so joining orgs or principals to show a name, a kind or a status is a read any family may make. Writing them
 * stays with their owner (people).
 */
const READ_BY_ALL = new Set(['orgs', 'principals']);

const DECLARATION = /^-- tables: ([a-z][a-z-]*): (.+)$/;
const NAME = '[a-z_][a-z0-9_]*(?:\\.[a-z_][a-z0-9_]*)?';
/** Relations a migration makes: tables (a name, not pg-boss's `pgboss.%I`), views, and tables renamed into being. */
const CREATED = new RegExp(
  `\\bCREATE\\s+(?:TABLE(?:\\s+IF\\s+NOT\\s+EXISTS)?|(?:OR\\s+REPLACE\\s+)?(?:MATERIALIZED\\s+)?VIEW)\\s+(${NAME})(?=[\\s(])|\\bRENAME\\s+TO\\s+(${NAME})`,
  'g',
);
/** A table named in SQL: after a keyword that reads it or one that writes it. */
const NAMED = new RegExp(`\\b(DELETE\\s+FROM|FROM|JOIN|REFERENCES|USING|INTO|UPDATE|TABLE|TRUNCATE)\\s+(?:ONLY\\s+)?(${NAME})`, 'g');
const READS = new Set(['FROM', 'JOIN', 'REFERENCES', 'USING']);

interface Migration {
  name: string;
  /** Table to owner, from the declaration lines. */
  declared: Map<string, string>;
  created: string[];
  /** Declaration lines below the first statement (not "at the top"). */
  misplaced: string[];
}

function readMigration(name: string): Migration {
  const lines = readFileSync(join(MIGRATIONS, name), 'utf8').split('\n');
  const first = lines.findIndex((l) => !/^\s*(--.*)?$/.test(l));
  const top = first < 0 ? lines.length : first;
  const declared = new Map<string, string>();
  for (const line of lines.slice(0, top)) {
    const m = DECLARATION.exec(line);
    for (const table of m?.[2].split(',').map((t) => t.trim()) ?? []) declared.set(table, m![1]);
  }
  const sql = lines.filter((l) => !/^\s*--/.test(l)).join('\n');
  const created = [...new Set([...sql.matchAll(CREATED)].map((m) => m[1] ?? m[2]))];
  const misplaced = lines.slice(top).filter((l) => /^\s*--\s*tables:/.test(l));
  return { name, declared, created, misplaced };
}

const MIGRATION_LIST = readdirSync(MIGRATIONS)
  .filter((f) => f.endsWith('.sql'))
  .sort()
  .map(readMigration);

/** Every table's owner (a table made again later, like a view replacing a renamed table, keeps one owner). */
const OWNERS = new Map(MIGRATION_LIST.flatMap((m) => [...m.declared]));

type Use = 'reads' | 'names' | 'writes';
const RANK: Record<Use, number> = { reads: 0, names: 1, writes: 2 };

/**
 * The tables a source text names in its string and template literals, each with the strongest use: `writes`
 * (INTO, UPDATE, DELETE FROM, TABLE, TRUNCATE), `names` (a literal that is just the name, for SQL built elsewhere:
 * `table: 'board_tasks'`) or `reads` (FROM, JOIN, REFERENCES, USING). A bare name without an underscore (`teams`,
 * `files`) counts only as the value of something named like a table, since it is often a plain word. Comments and
 * literal types are not read.
 */
function tablesNamed(text: string, known: ReadonlySet<string>): Map<string, Use> {
  const out = new Map<string, Use>();
  const note = (table: string, use: Use) => {
    if (known.has(table) && RANK[use] >= RANK[out.get(table) ?? 'reads']) out.set(table, use);
  };
  const visit = (node: ts.Node, parent?: ts.Node): void => {
    if (ts.isLiteralTypeNode(node)) return;
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      for (const m of node.text.matchAll(NAMED)) note(m[2], READS.has(m[1]) ? 'reads' : 'writes');
      if (ts.isStringLiteral(node) && (node.text.includes('_') || namedLikeTable(parent))) note(node.text, 'names');
    }
    ts.forEachChild(node, (child) => visit(child, node));
  };
  visit(ts.createSourceFile('source.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS));
  return out;
}

function namedLikeTable(node: ts.Node | undefined): boolean {
  const named = node && (ts.isPropertyAssignment(node) || ts.isVariableDeclaration(node)) ? node.name : undefined;
  return !!named && ts.isIdentifier(named) && /table/i.test(named.text);
}

/** `file uses table` for each other module's table a family's file names, by `family -> owner`. */
function exceptions(): Record<string, string[]> {
  const known = new Set(OWNERS.keys());
  const out: Record<string, string[]> = {};
  for (const family of FAMILIES) {
    for (const path of sourceFiles(join(ROOT, 'domain', family)).filter((p) => p.endsWith('.ts'))) {
      const file = path.slice(ROOT.length + 1);
      for (const [table, use] of tablesNamed(readFileSync(path, 'utf8'), known)) {
        const owner = OWNERS.get(table)!;
        if (owner === familyOf(file) || (use === 'reads' && READ_BY_ALL.has(table))) continue;
        (out[`${family} -> ${owner}`] ??= []).push(`${file} ${use} ${table}`);
      }
    }
  }
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((k) => [k, out[k].sort()]),
  );
}

const isFolder = (path: string) => existsSync(path) && statSync(path).isDirectory();

const DECISIONS = join(ROOT, 'docs/decisions');
const decision = (n: string) =>
  readFileSync(
    join(
      DECISIONS,
      readdirSync(DECISIONS).find((f) => f.startsWith(`${n}-`))!,
    ),
    'utf8',
  );

/**
 * Decision 0051's sentence "Owners of shared tables: `a`, `b` people; ...": table (or `ai_*` prefix) to owner.
 * A group's owner is the word after its last name; an aside in parentheses is not read.
 */
function statedOwners(text: string): Map<string, string> {
  const flat = text.replace(/\s+/g, ' ');
  const start = flat.indexOf('Owners of shared tables:');
  expect(start, 'decision 0051 states the owners of shared tables').toBeGreaterThanOrEqual(0);
  const sentence = flat.slice(start + 'Owners of shared tables:'.length, flat.indexOf('. ', start)).replace(/\([^)]*\)/g, '');
  const out = new Map<string, string>();
  for (const group of sentence.split(';')) {
    const names = [...group.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    const owner = group
      .slice(group.lastIndexOf('`') + 1)
      .trim()
      .split(' ')[0];
    for (const name of names) out.set(name, owner);
  }
  return out;
}

describe('table owners', () => {
  it('every table a migration makes is declared at its top, with one owner that exists', () => {
    const problems: string[] = [];
    for (const m of MIGRATION_LIST) {
      for (const t of m.created) if (!m.declared.has(t)) problems.push(`${m.name}: ${t} is not declared`);
      for (const t of m.declared.keys()) if (!m.created.includes(t)) problems.push(`${m.name}: ${t} is declared, not made here`);
      for (const l of m.misplaced) problems.push(`${m.name}: "${l}" is below the first statement`);
      for (const [t, owner] of m.declared) {
        if (OWNERS.get(t) !== owner) problems.push(`${m.name}: ${t} is declared for ${owner}, elsewhere for ${OWNERS.get(t)}`);
        if (!isFolder(join(ROOT, 'domain', owner)) && !isFolder(join(ROOT, owner))) problems.push(`${m.name}: owner ${owner} is no folder`);
      }
    }
    expect(problems).toEqual([]);
    expect(OWNERS.get('board_tasks')).toBe('board');
    expect(OWNERS.get('pgboss.job')).toBe('jobs');
    expect(OWNERS.get('books_contacts')).toBe('books'); // a table, then a view over its renamed successor
  });

  it('the scan sees the tables a file names (it cannot pass by seeing nothing)', () => {
    const known = new Set(OWNERS.keys());
    expect(tablesNamed(readFileSync(join(ROOT, 'domain/board/tasks.ts'), 'utf8'), known).get('board_tasks')).toBe('writes');
    const text = [
      '// FROM files: a comment names nothing',
      "type Kind = 'events';",
      "const title = 'moved from files to teams';",
      'const a = `SELECT p.name FROM principals p\n  JOIN channel_members m ON m.principal_id = p.principal_id`;',
      "const b = 'DELETE FROM messages WHERE org_id = $1';",
      "const c = { table: 'books_bills', kind: 'teams', other: { table: 'files' } };",
      'const d = `UPDATE ${c.table} SET x = 1 FROM orgs o`;',
    ].join('\n');
    expect(Object.fromEntries(tablesNamed(text, known))).toEqual({
      principals: 'reads',
      channel_members: 'reads',
      messages: 'writes',
      books_bills: 'names',
      files: 'names',
      orgs: 'reads',
    });
  });

  it('decision 0051 names shared tables with the owners the migrations declare, and every table decision 0085 settled', () => {
    const stated = statedOwners(decision('0051'));
    const wrong: string[] = [];
    for (const [name, owner] of stated) {
      const tables = name.endsWith('*') ? [...OWNERS.keys()].filter((t) => t.startsWith(name.slice(0, -1))) : [name];
      if (!tables.length) wrong.push(`${name}: no such table`);
      for (const t of tables) if (OWNERS.get(t) !== owner) wrong.push(`${t}: stated ${owner}, declared ${OWNERS.get(t)}`);
    }
    expect(wrong).toEqual([]);
    expect(stated.get('orgs')).toBe('people');
    // 0085 moved or kept these tables' uses: 0051's list of owners names each of them.
    const settled = [...decision('0085').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]).filter((t) => OWNERS.has(t));
    expect(settled).toContain('inbox_sessions');
    expect([...new Set(settled)].filter((t) => !stated.has(t))).toEqual([]);
  });

  it('a family names only its own tables (baseline: table-owners-baseline.json)', () => {
    const current = exceptions();
    if (UPDATE) writeFileSync(BASELINE, `${JSON.stringify(current, null, 2)}\n`);
    const baseline = (existsSync(BASELINE) ? JSON.parse(readFileSync(BASELINE, 'utf8')) : {}) as Record<string, string[]>;
    const [before, now] = [Object.values(baseline).flat(), Object.values(current).flat()];
    console.info(
      `tables: ${OWNERS.size} with ${new Set(OWNERS.values()).size} owners; families naming another's table: ` +
        `${now.length} file uses in ${Object.keys(current).length} pairs (${now.filter((e) => e.includes(' writes ')).length} writes)`,
    );
    expect({ added: now.filter((e) => !before.includes(e)), gone: before.filter((e) => !now.includes(e)) }).toEqual({ added: [], gone: [] });
  });
});
