import path from 'node:path';
import { DEFAULT_TEMPLATE_DIR, buildTemplate, readTemplate } from '../db/pglite-template.js';

/** `pglite-template`: build the template now (npm install runs this), so no later start pays for it. */
export async function pgliteTemplateCommand(dir: string | null | undefined, print: (line: string) => void): Promise<number> {
  if (dir === null) {
    print('PGLITE_TEMPLATE_DIR=off: new PGlite databases are created with initdb; nothing to build');
    return 0;
  }
  const where = dir ?? DEFAULT_TEMPLATE_DIR;
  const stored = await readTemplate(where);
  if (stored) {
    print(`PGlite template up to date: ${path.dirname(stored.dataDir)}`);
    return 0;
  }
  print('creating the PGlite template (initdb and every migration, in memory)…');
  const started = performance.now();
  try {
    const built = await buildTemplate(where);
    print(`PGlite template stored in ${path.dirname(built.dataDir)} (${Math.round(performance.now() - started)} ms)`);
    return 0;
  } catch (err) {
    print(`could not store the PGlite template in ${where}: ${(err as Error).message}`);
    return 1;
  }
}
