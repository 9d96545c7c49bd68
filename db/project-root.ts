import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The package's root folder (the one with package.json). Files that are not code (db/migrations/*.sql, the
 * inbox's browser files in inbox/, the caches in node_modules/.cache) are found from here, never copied: the
 * same lookup works from the TypeScript sources (<root>/db) and from the compiled code (<root>/dist/db).
 */
function findRoot(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = here; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json in ${here} or any folder above it: the server runs from its package`);
  }
}

export const PROJECT_ROOT = findRoot();

/** A path inside the package, e.g. fromProjectRoot('db', 'migrations'). */
export function fromProjectRoot(...segments: string[]): string {
  return path.join(PROJECT_ROOT, ...segments);
}
