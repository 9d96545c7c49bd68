import { BOOKS_AREAS } from './books/index.js';
import { CRM_AREAS } from './crm/index.js';
import { DIRECTORY_AREAS } from './directory/index.js';
import { EMAIL_AREAS } from './email/index.js';
import { FILES_AREAS } from './files/index.js';

/**
 * Families too large for one list of tools are split into areas, each a toolset of its own (`books.payables`,
 * `directory.merges`), so a desk can take the areas of one kind of work. MCP's toolsets and a persona's toolsets
 * are built from this one table.
 */
export const FAMILY_AREAS: Readonly<Record<string, Readonly<Record<string, object>>>> = {
  books: BOOKS_AREAS,
  crm: CRM_AREAS,
  directory: DIRECTORY_AREAS,
  email: EMAIL_AREAS,
  files: FILES_AREAS,
};

/** Every area toolset name: `<family>.<area>`. */
export const AREA_TOOLSET_NAMES: readonly string[] = Object.entries(FAMILY_AREAS).flatMap(([family, areas]) =>
  Object.keys(areas).map((area) => `${family}.${area}`),
);
