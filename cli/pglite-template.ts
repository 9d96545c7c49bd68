import path from 'node:path';
import { DEFAULT_TEMPLATE_DIR, ensureTemplate, readTemplate } from '../db/pglite-template.js';

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
  return (await ensureTemplate(where, print)) ? 0 : 1;
}
