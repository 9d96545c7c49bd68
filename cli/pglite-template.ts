import { DEFAULT_TEMPLATE_DIR, buildTemplate, readTemplate, templateName } from '../db/pglite-template.js';

/** `pglite-template`: build the template now (npm install runs this), so no later start pays for it. */
export async function pgliteTemplateCommand(dir: string | null | undefined, print: (line: string) => void): Promise<number> {
  if (dir === null) {
    print('PGLITE_TEMPLATE_DIR=off: new PGlite databases are created with initdb; nothing to build');
    return 0;
  }
  const where = dir ?? DEFAULT_TEMPLATE_DIR;
  if (await readTemplate(where)) {
    print(`PGlite template up to date: ${where}/${templateName()}`);
    return 0;
  }
  print('creating the PGlite template (initdb and every migration, in memory)…');
  const started = performance.now();
  const built = await buildTemplate(where);
  if (!built.file) {
    print(`could not store the PGlite template in ${where}: ${built.error?.message}`);
    return 1;
  }
  print(`PGlite template stored in ${built.file} (${Math.round(performance.now() - started)} ms)`);
  return 0;
}
