import { FAMILIES, METHODS, READS, STATIC_READS } from '../protocol/registry.js';
import { BOOKS_AREAS } from '../protocol/methods/books/index.js';
import type { Principal } from '../domain/auth.js';
import { toolNameFor, type CatalogEntry } from './catalog.js';

/*
 * Which tools a session lists. A model pays for every listed tool in context, so the list is cut down:
 *   1. only tools whose scope the key holds;
 *   2. only the chosen toolsets (families, or a books area such as `books.payables`; default books, board,
 *      approval; `all` for every family);
 *   3. in read-only mode only R tools;
 *   4. single tools added (include) or removed (exclude) by name.
 * The meta-tools reach the rest of the registry whatever the selection (except writes in read-only mode).
 */

export const DEFAULT_TOOLSETS = ['books', 'board', 'approval'] as const;

/** Toolsets narrower than a family: `books.<area>` for each books area (method name -> its area toolset). */
export const AREA_TOOLSETS: ReadonlyMap<string, string> = new Map(
  Object.entries(BOOKS_AREAS).flatMap(([area, contracts]) => Object.keys(contracts).map((suffix) => [`books.${suffix}`, `books.${area}`] as const)),
);

/** Every toolset name a selection may use: the families and the areas. */
export const TOOLSETS: readonly string[] = [...FAMILIES, ...new Set(AREA_TOOLSETS.values())];

/** The toolsets a method or read belongs to: its family, and its area where the family has areas. */
export function toolsetsOf(target: string, family: string): string[] {
  const area = AREA_TOOLSETS.get(target);
  return area ? [family, area] : [family];
}

/** Listed whenever the key may call them, whatever the toolsets: the hold flow needs them. */
export const ALWAYS_ON: ReadonlySet<string> = new Set(['approval.wait']);

export interface Selection {
  toolsets: ReadonlySet<string> | 'all';
  readOnly: boolean;
  /** Tool names listed beyond the toolsets. */
  include: ReadonlySet<string>;
  /** Tool names (including meta-tools) never listed nor callable in this session. */
  exclude: ReadonlySet<string>;
}

export const DEFAULT_SELECTION: Selection = {
  toolsets: new Set(DEFAULT_TOOLSETS),
  readOnly: false,
  include: new Set(),
  exclude: new Set(),
};

/** Raw settings as a flag, an environment variable or a header gives them. */
export interface SelectionInput {
  toolsets?: string;
  readOnly?: string | boolean;
  include?: string;
  exclude?: string;
}

export class SelectionError extends Error {}

const list = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

export function parseBoolean(raw: string | boolean | undefined, what: string): boolean {
  if (raw === undefined || raw === '') return false;
  if (typeof raw === 'boolean') return raw;
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new SelectionError(`${what}: expected true or false, got ${JSON.stringify(raw)}`);
}

/** A tool named by its tool name (`board_createTask`) or its method or read name (`board.createTask`). */
function toolName(raw: string, metaTools: readonly string[], what: string): string {
  if (metaTools.includes(raw)) return raw;
  const targets = [...METHODS.keys(), ...READS.keys(), ...STATIC_READS.keys()];
  const hit = targets.find((t) => t === raw || toolNameFor(t) === raw);
  if (!hit) throw new SelectionError(`${what}: unknown tool ${JSON.stringify(raw)}`);
  return toolNameFor(hit);
}

export function parseSelection(input: SelectionInput, metaTools: readonly string[]): Selection {
  const names = list(input.toolsets);
  let toolsets: Selection['toolsets'];
  if (input.toolsets === undefined) toolsets = DEFAULT_SELECTION.toolsets;
  else if (names.includes('all')) toolsets = 'all';
  else {
    for (const n of names) {
      if (n !== 'none' && !TOOLSETS.includes(n)) {
        throw new SelectionError(`toolsets: unknown toolset ${JSON.stringify(n)}; use family names (${FAMILIES.join(', ')}), books areas (${[...new Set(AREA_TOOLSETS.values())].join(', ')}), all or none`);
      }
    }
    toolsets = new Set(names.filter((n) => n !== 'none'));
  }
  return {
    toolsets,
    readOnly: parseBoolean(input.readOnly, 'read-only'),
    include: new Set(list(input.include).map((t) => toolName(t, metaTools, 'tools'))),
    exclude: new Set(list(input.exclude).map((t) => toolName(t, metaTools, 'exclude-tools'))),
  };
}

/** Why a catalog tool is not listed for this principal and selection; undefined when it is listed. */
export type Hidden = 'excluded' | 'readOnly' | 'scope' | 'toolset';

export function hiddenBecause(entry: CatalogEntry, principal: Principal, sel: Selection): Hidden | undefined {
  if (sel.exclude.has(entry.tool)) return 'excluded';
  if (sel.readOnly && !entry.readOnly) return 'readOnly';
  if (!principal.scopes.has(entry.scope)) return 'scope';
  if (sel.include.has(entry.tool) || ALWAYS_ON.has(entry.target)) return undefined;
  if (sel.toolsets !== 'all' && !entry.toolsets.some((t) => (sel.toolsets as ReadonlySet<string>).has(t))) return 'toolset';
  return undefined;
}

export function describeSelection(sel: Selection): string {
  const sets = sel.toolsets === 'all' ? 'all' : [...sel.toolsets].join(', ') || 'none';
  return `toolsets ${sets}${sel.readOnly ? ', read-only' : ''}`;
}
