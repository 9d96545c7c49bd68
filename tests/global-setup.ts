import { DEFAULT_TEMPLATE_DIR, ensureTemplate } from '../db/pglite-template.js';

/** On PGlite, build the template once before the workers start, so they copy it instead of each running initdb. */
export default async function setup(): Promise<void> {
  if (process.env.DATABASE_URL) return;
  await ensureTemplate(DEFAULT_TEMPLATE_DIR, (message) => process.stderr.write(`[global-setup] ${message}\n`));
}
