import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * What the boundary tests read: every relative import of a source file (static, `export … from`, dynamic
 * `import()`, side-effect `import '…'`, type-only too), with a regular expression rather than a parser so a scan
 * of the whole tree stays fast; and which family a file of domain/ belongs to.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Folders directly under domain/ that are not families, which any file may import: core (the pipeline, handlers,
 * deps, auth, errors, ids, the runtime); jobs and stream (the scheduler and the live event stream, which families
 * plug into); inbox (a read gathering the families' "waiting on" exports: a composition, like the files directly
 * under domain/).
 */
const NOT_FAMILIES = new Set(['core', 'jobs', 'stream', 'inbox']);

/** The families: every other folder directly under domain/. */
export const FAMILIES = readdirSync(join(ROOT, 'domain')).filter((d) => !NOT_FAMILIES.has(d) && statSync(join(ROOT, 'domain', d)).isDirectory());

/** The family a path (`domain/board/tasks.ts`) belongs to, if any. */
export function familyOf(path: string): string | undefined {
  const [top, dir, ...rest] = path.split('/');
  return top === 'domain' && rest.length > 0 && FAMILIES.includes(dir) ? dir : undefined;
}

const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;
/** Where an import or export statement starts: the keyword at a line's start. */
const STATEMENT = /^[ \t]*(?:import|export)\b/gm;

export interface Import {
  /** The importing file, relative to the root: `domain/board/tasks.ts`. */
  file: string;
  /** The target as written, resolved from the root: `domain/board/model.js`. */
  target: string;
  /** Erased when compiled: `import type`, `export type`, `typeof import()`, or braces naming only `type` bindings. */
  typeOnly: boolean;
}

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.(ts|mts|js|mjs)$/.test(name)) out.push(path);
  }
  return out;
}

/** Every relative import of one file (an absolute path). */
export function readImports(path: string): Import[] {
  const text = readFileSync(path, 'utf8');
  const file = relative(ROOT, path);
  return [...text.matchAll(IMPORT)].map((m) => {
    const target = relative(ROOT, resolve(dirname(path), m[1]));
    if (m[0].startsWith('from')) return { file, target, typeOnly: typeOnlyClause(text, m.index) };
    // `typeof import('…')` names a module's type; any other import() loads it.
    const dynamic = /^import\s*\(/.test(m[0]);
    return { file, target, typeOnly: dynamic && /\btypeof\s*$/.test(text.slice(0, m.index)) };
  });
}

/** The source file a target names: `x.js` is `x.ts` when that exists (NodeNext imports name the compiled file). */
export function sourceOf(target: string): string {
  const ts = target.replace(/\.js$/, '.ts');
  return ts !== target && existsSync(join(ROOT, ts)) ? ts : target;
}

/** Whether the `import … from` or `export … from` statement ending at `fromAt` binds types only. */
function typeOnlyClause(text: string, fromAt: number): boolean {
  let start = -1;
  for (const s of text.slice(0, fromAt).matchAll(STATEMENT)) start = s.index;
  const clause = text
    .slice(start, fromAt)
    .replace(/\/\/.*$/gm, '')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .trim();
  const head = /^(?:import|export)\s+/.exec(clause);
  if (!head) return false;
  const rest = clause.slice(head[0].length);
  if (/^type\s*[{*\w]/.test(rest) && !/^type\s*,/.test(rest)) return true;
  const braces = /^\{([^}]*)\}$/.exec(rest);
  if (!braces) return false;
  const names = braces[1]
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return names.length > 0 && names.every((n) => /^type\s+\w/.test(n));
}
