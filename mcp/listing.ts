import type { Principal } from '../domain/core/auth.js';
import type { Catalog, ToolDefinition } from './catalog.js';
import { META_DEFINITIONS, META_TOOL_NAMES, META_TOOLS } from './meta-tools.js';
import { hiddenBecause, mayWrite, type Selection } from './toolsets.js';

/*
 * What a session lists. The list depends only on the catalog, the selection and the principal's scopes, so it
 * is computed once per distinct pair and remembered: stateless HTTP builds a server per request, and would
 * otherwise filter the whole catalog each time. Selections come from request headers, hence the bound.
 */

/** Distinct (selection, scope set) pairs remembered per catalog; past this the oldest is forgotten. */
const MAX_LISTINGS = 256;
const listings = new WeakMap<Catalog, Map<string, readonly ToolDefinition[]>>();

/** The tools a principal sees under a selection: the deployed tools it may list, then the meta-tools. */
export function listedTools(catalog: Catalog, selection: Selection, principal: Principal): readonly ToolDefinition[] {
  let remembered = listings.get(catalog);
  if (!remembered) listings.set(catalog, (remembered = new Map()));
  const key = listingKey(selection, principal.scopes);
  let tools = remembered.get(key);
  if (!tools) {
    tools = computeListing(catalog, selection, principal);
    if (remembered.size >= MAX_LISTINGS) remembered.delete(remembered.keys().next().value as string);
    remembered.set(key, tools);
  }
  return tools;
}

function computeListing(catalog: Catalog, selection: Selection, principal: Principal): readonly ToolDefinition[] {
  const direct = catalog.entries.filter((e) => !hiddenBecause(e, principal, selection)).map((e) => e.definition);
  const meta = META_TOOL_NAMES.filter((t) => !selection.exclude.has(t) && (t !== META_TOOLS.write || mayWrite(catalog, principal, selection)));
  return [...direct, ...meta.map((t) => META_DEFINITIONS[t])];
}

// Tool, toolset and scope names never contain ',' or '|'.
const names = (set: ReadonlySet<string>) => [...set].join(',');
const listingKey = (s: Selection, scopes: ReadonlySet<string>) =>
  [s.toolsets === 'all' ? '*' : names(s.toolsets), s.readOnly, s.humanDecisions, names(s.include), names(s.exclude), names(scopes)].join('|');
