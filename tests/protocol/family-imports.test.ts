import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAMILIES, ROOT, familyOf, readImports, sourceFiles, sourceOf, type Import } from '../helpers/imports.js';

/*
 * A family is one module (issue 28): another family is reached only through its index.ts; domain/core imports no
 * family; no two families need each other at run time. The imports that break the first and third rules today are
 * listed in boundaries-baseline.json, which may only shrink: a new exception fails, and so does an entry no longer
 * needed. After moving code, UPDATE_BOUNDARIES=1 npx vitest run tests/protocol/family-imports.test.ts rewrites it.
 *
 * A family is a folder directly under domain/ except core, jobs, stream and inbox (tests/helpers/imports.ts says
 * why); a group folder (domain/people: member, team, org, ...) is one module, reached through domain/people/index.ts. Those and the files directly under domain/ (deployed.ts, refs.ts, event-records.ts, ...) are not restricted
 * by the first rule, but imports through them count for cycles: X -> refs.ts -> Y is X needing Y.
 */

const BASELINE = join(ROOT, 'tests/protocol/boundaries-baseline.json');
const UPDATE = process.env.UPDATE_BOUNDARIES === '1';

interface Baseline {
  /** `importer -> imported` source files, by `family -> family`. */
  imports: Record<string, string[]>;
  /** Run-time dependencies (`family -> family`, or a non-family file) that close a cycle between families. */
  cycles: string[];
}

const IMPORTS: Import[] = sourceFiles(join(ROOT, 'domain'))
  .flatMap(readImports)
  .map((i) => ({ ...i, target: sourceOf(i.target) }));

interface CrossImport extends Import {
  from: string;
  to: string;
}

/** Imports of one family's file by another family's. */
function crossFamily(imports: Import[]): CrossImport[] {
  return imports.flatMap((i) => {
    const from = familyOf(i.file);
    const to = familyOf(i.target);
    return from && to && from !== to ? [{ ...i, from, to }] : [];
  });
}

/** Rule a: imports of another family's files other than its index.ts, by family pair. */
function indexExceptions(imports: Import[]): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const i of crossFamily(imports)) {
    if (i.target === `domain/${i.to}/index.ts`) continue;
    (out[`${i.from} -> ${i.to}`] ??= new Set()).add(`${i.file} -> ${i.target}`);
  }
  return Object.fromEntries(
    Object.keys(out)
      .sort()
      .map((k) => [k, [...out[k]].sort()]),
  );
}

/** Rule c: run-time edges that lie on a cycle through two families or more (a family is one node). */
function cycleEdges(imports: Import[]): string[] {
  const edges = runtimeEdges(imports);
  const scc = components(edges);
  const out: string[] = [];
  for (const [a, targets] of edges) {
    for (const b of targets) if (scc.get(a) === scc.get(b) && familiesIn(scc.get(a)!).length > 1) out.push(`${a} -> ${b}`);
  }
  return out.sort();
}

/** Run-time imports between domain files, a family's files being one node. */
function runtimeEdges(imports: Import[]): Map<string, Set<string>> {
  const node = (path: string) => familyOf(path) ?? path;
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    if (i.typeOnly || !i.target.startsWith('domain/')) continue;
    const [a, b] = [node(i.file), node(i.target)];
    if (a !== b) (edges.get(a) ?? edges.set(a, new Set()).get(a)!).add(b);
  }
  return edges;
}

const familiesIn = (nodes: string[]) => nodes.filter((n) => FAMILIES.includes(n)).sort();

/** Strongly connected components (Tarjan): each node to the members of its component. */
function components(edges: Map<string, Set<string>>): Map<string, string[]> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out = new Map<string, string[]>();
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    for (const n of group) out.set(n, group);
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Entries of `now` not in `before`, and entries of `before` not in `now`. */
function diff(before: string[], now: string[]): { added: string[]; gone: string[] } {
  return { added: now.filter((e) => !before.includes(e)), gone: before.filter((e) => !now.includes(e)) };
}

const flat = (byPair: Record<string, string[]>) => Object.values(byPair).flat();

function readBaseline(): Baseline {
  return existsSync(BASELINE) ? (JSON.parse(readFileSync(BASELINE, 'utf8')) as Baseline) : { imports: {}, cycles: [] };
}

describe('family boundaries', () => {
  const current: Baseline = { imports: indexExceptions(IMPORTS), cycles: cycleEdges(IMPORTS) };
  if (UPDATE) writeFileSync(BASELINE, `${JSON.stringify(current, null, 2)}\n`);
  const baseline = readBaseline();

  it('reports the counts', () => {
    const cross = crossFamily(IMPORTS);
    const pairs = new Map<string, CrossImport[]>();
    for (const i of cross) pairs.set(`${i.from} -> ${i.to}`, [...(pairs.get(`${i.from} -> ${i.to}`) ?? []), i]);
    const mutual = [...pairs.keys()].map((p) => p.split(' -> ')).filter(([a, b]) => a < b && pairs.has(`${b} -> ${a}`));
    const files = new Set(cross.map((i) => `${i.file} -> ${i.target}`));
    const groups = new Set(
      [...components(runtimeEdges(IMPORTS)).values()]
        .map(familiesIn)
        .filter((g) => g.length > 1)
        .map((g) => g.join(', ')),
    );
    console.info(
      [
        `cross-family imports: ${files.size} importer -> imported files (${cross.length} statements), ` +
          `${[...files].filter((f) => f.endsWith('/index.ts')).length} into an index.ts, ${[...files].filter((f) => f.endsWith('/model.ts')).length} into a model.ts`,
        `family pairs: ${pairs.size}, through index.ts only: ${[...pairs.values()].filter((l) => l.every((i) => i.target === `domain/${i.to}/index.ts`)).length}`,
        `mutual pairs: ${mutual.length} (${mutual.map(([a, b]) => `${a} <-> ${b}`).join(', ')})`,
        `families on a run-time cycle: ${[...groups].map((g) => `[${g}]`).join(' ')} (${current.cycles.length} edges)`,
        `baseline: ${flat(baseline.imports).length} imports past an index.ts in ${Object.keys(baseline.imports).length} family pairs`,
      ].join('\n'),
    );
  });

  it('the rules see what they look for (they cannot pass by seeing nothing)', () => {
    expect(IMPORTS).toContainEqual({ file: 'domain/jobs/scheduler.ts', target: 'domain/jobs/define.ts', typeOnly: false });
    expect(IMPORTS).toContainEqual({ file: 'domain/jobs/define.ts', target: 'domain/core/deps.ts', typeOnly: true });
    expect(familyOf('domain/books/ask/answerer.ts')).toBe('books');
    expect(familyOf('domain/people/member/lane.ts')).toBe('people'); // a group folder is one module
    expect([familyOf('domain/core/pipeline.ts'), familyOf('domain/deployed.ts'), familyOf('domain/inbox/index.ts')]).toEqual([undefined, undefined, undefined]);
    const made: Import[] = [
      { file: 'domain/board/tasks.ts', target: 'domain/people/member/model.ts', typeOnly: true },
      { file: 'domain/board/tasks.ts', target: 'domain/people/index.ts', typeOnly: false },
      { file: 'domain/people/member/list.ts', target: 'domain/refs.ts', typeOnly: false },
      { file: 'domain/refs.ts', target: 'domain/board/index.ts', typeOnly: false },
    ];
    expect(indexExceptions(made)).toEqual({ 'board -> people': ['domain/board/tasks.ts -> domain/people/member/model.ts'] });
    expect(cycleEdges(made)).toEqual(['board -> people', 'domain/refs.ts -> board', 'people -> domain/refs.ts']);
    expect(cycleEdges(made.slice(1))).toEqual(cycleEdges(made)); // the type-only import closes no cycle
    expect(cycleEdges(made.slice(0, 3))).toEqual([]);
  });

  it('a family reaches another only through its index.ts (baseline: boundaries-baseline.json imports)', () => {
    expect(diff(flat(baseline.imports), flat(current.imports))).toEqual({ added: [], gone: [] });
  });

  it('no two families need each other at run time (baseline: boundaries-baseline.json cycles)', () => {
    expect(diff(baseline.cycles, current.cycles)).toEqual({ added: [], gone: [] });
  });

  it('domain/core imports no family', () => {
    const found = IMPORTS.filter((i) => i.file.startsWith('domain/core/') && familyOf(i.target)).map((i) => `${i.file} -> ${i.target}`);
    expect(found).toEqual([]);
  });
});
