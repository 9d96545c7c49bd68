import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { migrate, migrationFiles } from './migrate.js';
import { PGLITE_EXTENSIONS, wrapPglite, type PgliteTemplate } from './pglite.js';
import { PROJECT_ROOT as ROOT } from './project-root.js';

/*
 * A new PGlite database starts as a copy of a template: an empty database with every migration applied. PGlite's
 * own initdb takes 2–4 s and the migrations 0.4 s; copying a closed data dir takes about 0.1–0.4 s, and loading
 * the same database from a tar into memory (the tests' databases) under 1 s. The template is keyed by PGlite's
 * version and the migration files, so a change to either makes a new one. It holds schema only: instance secrets,
 * orgs and keys are created after the copy.
 */

/** Where templates live unless PGLITE_TEMPLATE_DIR says otherwise (the usual place for a package's caches). */
export const DEFAULT_TEMPLATE_DIR = path.join(ROOT, 'node_modules', '.cache', 'workspace-ops');

const PREFIX = 'pglite-template-';

let name: string | undefined;

/** The template's folder name for this PGlite version and these migrations (read once per process). */
export function templateName(): string {
  if (name) return name;
  const hash = createHash('sha256');
  hash.update(`pglite ${pgliteVersion()}\n`);
  for (const file of migrationFiles()) hash.update(`${file.name}\n${file.sql}\n`);
  return (name = `${PREFIX}${hash.digest('hex').slice(0, 16)}`);
}

function pgliteVersion(): string {
  const manifest = path.join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json');
  return existsSync(manifest) ? (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version : 'unknown';
}

function templateAt(folder: string): PgliteTemplate {
  return { dataDir: path.join(folder, 'pgdata'), tarFile: path.join(folder, 'pgdata.tar') };
}

/** The stored template, or undefined when there is none. The folder appears by one rename, so it is complete. */
export async function readTemplate(dir: string): Promise<PgliteTemplate | undefined> {
  const template = templateAt(path.join(dir, templateName()));
  try {
    const [data, tar] = await Promise.all([stat(path.join(template.dataDir, 'PG_VERSION')), stat(template.tarFile)]);
    return data.isFile() && tar.isFile() ? template : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Create the template in memory, save it as a tar and as a closed data dir in a scratch folder, and rename that
 * folder into place; templates of other versions are removed. Throws when `dir` cannot be written.
 */
export async function buildTemplate(dir: string): Promise<PgliteTemplate> {
  const folder = path.join(dir, templateName());
  const scratch = `${folder}.partial-${randomBytes(4).toString('hex')}`;
  const template = templateAt(scratch);
  await mkdir(scratch, { recursive: true });
  try {
    const memory = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
    let tar: Blob;
    try {
      await migrate(wrapPglite(memory));
      await memory.query('CHECKPOINT');
      tar = await memory.dumpDataDir('none');
    } finally {
      await memory.close();
    }
    await writeFile(template.tarFile, Buffer.from(await tar.arrayBuffer()));
    await (await PGlite.create(template.dataDir, { extensions: PGLITE_EXTENSIONS, loadDataDir: tar })).close();
    await rename(scratch, folder).catch(async () => {
      if (await readTemplate(dir)) return rm(scratch, { recursive: true, force: true }); // another process was first
      await rm(folder, { recursive: true, force: true }); // an incomplete folder in the way, e.g. cut short by hand
      await rename(scratch, folder);
    });
  } catch (err) {
    await rm(scratch, { recursive: true, force: true });
    throw err;
  }
  for (const name of await readdir(dir)) {
    if (name.startsWith(PREFIX) && name !== path.basename(folder) && !name.includes('.partial-'))
      await rm(path.join(dir, name), { recursive: true, force: true });
  }
  return templateAt(folder);
}

/**
 * The stored template, built and stored first if there is none; undefined (with a notice) when it cannot be
 * stored, and the database is then created with initdb.
 */
export async function ensureTemplate(dir: string, notice: (message: string) => void = () => {}): Promise<PgliteTemplate | undefined> {
  const stored = await readTemplate(dir);
  if (stored) return stored;
  const started = performance.now();
  notice('creating the PGlite template (a migrated empty database; once per install, new databases are copied from it)');
  try {
    const built = await buildTemplate(dir);
    notice(`PGlite template stored in ${path.dirname(built.dataDir)} (${Math.round(performance.now() - started)} ms)`);
    return built;
  } catch (err) {
    notice(`could not store the PGlite template in ${dir} (${(err as Error).message}); new databases are made with initdb until it can be`);
    return undefined;
  }
}
