import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { migrate, migrationFiles } from './migrate.js';
import { wrapPglite } from './pglite.js';

/*
 * A new PGlite database starts as a copy of a template: an empty database with every migration applied, saved
 * as a tar file. PGlite's own initdb takes 2–4 s and the migrations 0.4 s; loading the copy takes under 1 s.
 * The template is keyed by PGlite's version and the migration files, so a change to either makes a new one.
 * It holds schema only: instance secrets, orgs and keys are created after it is loaded.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Where templates live unless PGLITE_TEMPLATE_DIR says otherwise (the usual place for a package's caches). */
export const DEFAULT_TEMPLATE_DIR = path.join(ROOT, 'node_modules', '.cache', 'workspace-ops');

/** The template's file name for this PGlite version and these migrations. */
export function templateName(): string {
  const hash = createHash('sha256');
  hash.update(`pglite ${pgliteVersion()}\n`);
  for (const file of migrationFiles()) hash.update(`${file.name}\n${file.sql}\n`);
  return `pglite-template-${hash.digest('hex').slice(0, 16)}.tar`;
}

function pgliteVersion(): string {
  const manifest = path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : 'unknown';
}

/** True when `dataDir` holds no database yet (PostgreSQL writes PG_VERSION first thing in initdb). */
export function isNewDataDir(dataDir: string): boolean {
  return !existsSync(path.join(dataDir, 'PG_VERSION'));
}

/** The stored template, or undefined when there is none (or it is not a tar file, e.g. cut short by a crash). */
export async function readTemplate(dir: string): Promise<Blob | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path.join(dir, templateName()));
  } catch {
    return undefined;
  }
  // POSIX tar: "ustar" at offset 257 of the first header. Writes are atomic, so this only guards against junk.
  return bytes.subarray(257, 262).toString('latin1') === 'ustar' ? new Blob([bytes]) : undefined;
}

/**
 * Create the template in memory and store it in `dir` (atomically: write, then rename), removing templates of
 * other versions. Returns it, so the caller can use it even when `dir` cannot be written.
 */
export async function buildTemplate(dir: string): Promise<{ template: Blob; file?: string; error?: Error }> {
  const pglite = await PGlite.create();
  let template: Blob;
  try {
    await migrate(wrapPglite(pglite));
    await pglite.query('CHECKPOINT');
    template = await pglite.dumpDataDir('none');
  } finally {
    await pglite.close();
  }
  try {
    const file = path.join(dir, templateName());
    await mkdir(dir, { recursive: true });
    const partial = `${file}.${randomBytes(4).toString('hex')}.partial`;
    await writeFile(partial, Buffer.from(await template.arrayBuffer()));
    await rename(partial, file);
    for (const name of await readdir(dir)) {
      if (name.startsWith('pglite-template-') && name !== path.basename(file) && !name.endsWith('.partial')) await rm(path.join(dir, name), { force: true });
    }
    return { template, file };
  } catch (err) {
    return { template, error: err as Error };
  }
}

/** The stored template, built and stored first if there is none. */
export async function ensureTemplate(dir: string, notice: (message: string) => void = () => {}): Promise<Blob> {
  const stored = await readTemplate(dir);
  if (stored) return stored;
  const started = performance.now();
  notice('creating the PGlite template (a migrated empty database; once per install, new databases are copied from it)');
  const built = await buildTemplate(dir);
  const ms = Math.round(performance.now() - started);
  notice(built.file ? `PGlite template stored in ${built.file} (${ms} ms)` : `PGlite template built in ${ms} ms but not stored: ${built.error?.message}`);
  return built.template;
}
