import { FAMILIES, METHODS, READS, STATIC_READS } from '../protocol/registry.js';
import { FAMILY_AREAS } from '../protocol/methods/areas.js';
import type { Principal } from '../domain/core/auth.js';
import type { Catalog, CatalogEntry } from './catalog.js';
import { toolNameFor } from './names.js';
import { CALLER_TOOLSETS, CORE_TOOLS, DEFAULT_DESK, DESKS } from './desks.js';

/*
 * Which tools a session lists. A model pays for every listed tool in context, so the list is cut down:
 *   1. only tools whose scope the key holds, and never a human's decision (approval.resolve) unless the
 *      operator allows decisions over MCP;
 *   2. only the chosen desks (mcp/desks.ts; default `core`) or toolsets (families, or a family area such as
 *      `books.payables`; `all` for every family);
 *   3. in read-only mode only R tools;
 *   4. single tools added (include) or removed (exclude) by name.
 * The meta-tools reach the rest of the registry whatever the selection (except writes in read-only mode, and
 * for keys without any write scope).
 */

/** Scopes whose methods are a human's decision: the inbox and HTTP are their faces, not an agent's MCP session. */
export const HUMAN_DECISION_SCOPES: ReadonlySet<string> = new Set(['approval.decide']);

/** Toolsets narrower than a family: `<family>.<area>` for each area (protocol/methods/areas.ts); method name -> its area. */
export const AREA_TOOLSETS: ReadonlyMap<string, string> = new Map(
  Object.entries(FAMILY_AREAS).flatMap(([family, areas]) =>
    Object.entries(areas).flatMap(([area, contracts]) => Object.keys(contracts).map((suffix) => [`${family}.${suffix}`, `${family}.${area}`] as const)),
  ),
);

/** Every toolset name a selection may use: the families, the areas and the toolsets listed per caller. */
export const TOOLSETS: readonly string[] = [...FAMILIES, ...new Set(AREA_TOOLSETS.values()), ...CALLER_TOOLSETS];

/** The toolsets a method or read belongs to: its family, and its area where the family has areas. */
export function toolsetsOf(target: string, family: string): string[] {
  const area = AREA_TOOLSETS.get(target);
  return area ? [family, area] : [family];
}

/** Listed whenever the key may call them, whatever the toolsets: the hold flow needs them. */
export const ALWAYS_ON: ReadonlySet<string> = new Set(['approval.wait']);

export interface Selection {
  toolsets: ReadonlySet<string> | 'all';
  /** Each desk or toolset named, with the toolsets it stands for (to refuse one with nothing deployed). */
  named: ReadonlyMap<string, readonly string[]>;
  /** Tools of HUMAN_DECISION_SCOPES are listed and callable: an operator's choice (MCP_ALLOW_DECISIONS), never a header's. */
  humanDecisions: boolean;
  readOnly: boolean;
  /** Tool names listed beyond the toolsets. */
  include: ReadonlySet<string>;
  /** Tool names (including meta-tools) never listed nor callable in this session. */
  exclude: ReadonlySet<string>;
  /** No desk or toolset was named: the default desk, which an agent's persona toolsets replace (personaSelection). */
  defaulted: boolean;
}

const deskTools = (desk: string): string[] => [...DESKS[desk].tools, ...CORE_TOOLS].map(toolNameFor);

export const DEFAULT_SELECTION: Selection = {
  toolsets: new Set(DESKS[DEFAULT_DESK].toolsets),
  named: new Map([[DEFAULT_DESK, DESKS[DEFAULT_DESK].toolsets]]),
  humanDecisions: false,
  readOnly: false,
  include: new Set(deskTools(DEFAULT_DESK)),
  exclude: new Set(),
  defaulted: true,
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
  const names = input.toolsets === undefined ? [DEFAULT_DESK] : list(input.toolsets);
  const include = new Set(list(input.include).map((t) => toolName(t, metaTools, 'tools')));
  const named = new Map<string, readonly string[]>();
  const toolsets = new Set<string>();
  for (const n of names) {
    if (n === 'none' || n === 'all') continue;
    // A desk named like a family is that family's design group: a superset of the family toolset.
    const desk = DESKS[n];
    if (desk) {
      for (const t of desk.toolsets) toolsets.add(t);
      for (const t of deskTools(n)) include.add(t);
      named.set(n, desk.toolsets);
    } else if (TOOLSETS.includes(n)) {
      toolsets.add(n);
      named.set(n, [n]);
    } else {
      throw new SelectionError(
        `toolsets: unknown toolset ${JSON.stringify(n)}; use desks (${Object.keys(DESKS).join(', ')}), family names (${FAMILIES.join(', ')}), family areas (${[...new Set(AREA_TOOLSETS.values())].join(', ')}), all or none`,
      );
    }
  }
  return {
    toolsets: names.includes('all') ? 'all' : toolsets,
    named,
    humanDecisions: false,
    readOnly: parseBoolean(input.readOnly, 'read-only'),
    include,
    exclude: new Set(list(input.exclude).map((t) => toolName(t, metaTools, 'exclude-tools'))),
    defaulted: input.toolsets === undefined,
  };
}

/**
 * An agent's persona picks its default tools: a session that named no desk lists the persona's toolsets (and
 * the core tools) instead of the bare default desk. The persona's toolsets were checked against TOOLSETS when
 * written; one whose families are not deployed here lists nothing and is not refused (the agent did not choose
 * it for this server): `named` maps it to no toolsets, which requireDeployed passes.
 */
export function personaSelection(sel: Selection, toolsets: readonly string[]): Selection {
  if (!sel.defaulted || toolsets.length === 0) return sel;
  const known = toolsets.filter((t) => TOOLSETS.includes(t));
  return { ...sel, toolsets: new Set(known), named: new Map(known.map((t) => [t, []])), defaulted: false };
}

/** Refuse a desk or toolset with nothing deployed on this server (it would list nothing of its own). */
export function requireDeployed(selection: Selection, catalog: Catalog): void {
  for (const [name, named] of selection.named) {
    // A toolset listed per caller is deployed with its family.
    const toolsets = named.map((t) => (CALLER_TOOLSETS.includes(t) ? t.slice(0, t.indexOf('.')) : t));
    if (toolsets.length === 0 || catalog.entries.some((e) => e.toolsets.some((t) => toolsets.includes(t)))) continue;
    const deployed = Object.keys(DESKS).filter((d) => DESKS[d].toolsets.some((t) => catalog.entries.some((e) => e.toolsets.includes(t))));
    throw new SelectionError(
      `toolsets: ${JSON.stringify(name)} has nothing deployed on this server yet (${toolsets.join(', ')}); desks with tools here: core, ${deployed.join(', ')}`,
    );
  }
}

/** Why a catalog tool is not listed for this principal and selection; undefined when it is listed. */
export type Hidden = 'excluded' | 'humanDecision' | 'readOnly' | 'scope' | 'toolset';

export function hiddenBecause(entry: CatalogEntry, principal: Principal, sel: Selection): Hidden | undefined {
  if (sel.exclude.has(entry.tool)) return 'excluded';
  if (HUMAN_DECISION_SCOPES.has(entry.scope) && !sel.humanDecisions) return 'humanDecision';
  if (sel.readOnly && !entry.readOnly) return 'readOnly';
  if (!principal.scopes.has(entry.scope)) return 'scope';
  if (sel.include.has(entry.tool) || ALWAYS_ON.has(entry.target)) return undefined;
  if (sel.toolsets !== 'all' && !entry.toolsets.some((t) => (sel.toolsets as ReadonlySet<string>).has(t))) return 'toolset';
  return undefined;
}

/** Why a human's decision is not an agent's tool, and where it is made instead. */
export const humanDecisionRefusal = (target: string, publicUrl: string): string =>
  `${target} records a human's decision and is not served over MCP on this server: a human decides in the approval inbox (${publicUrl}/approvals) or over HTTP; tell your user what waits for them`;

/**
 * The answer to a call of a human's decision that this session does not serve, with the code of its cause: a key
 * without the scope (an agent's) is missing it, FORBIDDEN_SCOPE naming it as over HTTP, and is told what it can do
 * next; a key that holds it is refused by this server's choice (MCP_ALLOW_DECISIONS off), NOT_FOUND on this face.
 */
export function humanDecisionError(entry: CatalogEntry, principal: Principal, publicUrl: string): { code: 'FORBIDDEN_SCOPE' | 'NOT_FOUND'; message: string } {
  if (!principal.scopes.has(entry.scope)) {
    return {
      code: 'FORBIDDEN_SCOPE',
      message:
        `missing scope ${entry.scope} for ${entry.target}: it records a human's decision, which this key never makes (over MCP or HTTP). ` +
        `A human decides in the approval inbox (${publicUrl}/approvals); wait for the decision with approval_wait and tell your user what waits for them`,
    };
  }
  return { code: 'NOT_FOUND', message: humanDecisionRefusal(entry.target, publicUrl) };
}

/** invoke_write is offered only to a key that may call some deployed write here (not in read-only mode). */
export function mayWrite(catalog: Catalog, principal: Principal, sel: Selection): boolean {
  if (sel.readOnly || sel.exclude.has('invoke_write')) return false;
  return catalog.entries.some((e) => !e.readOnly && principal.scopes.has(e.scope) && (sel.humanDecisions || !HUMAN_DECISION_SCOPES.has(e.scope)));
}

export function describeSelection(sel: Selection): string {
  const sets = sel.toolsets === 'all' ? 'all' : [...sel.named.keys()].join(', ') || 'none';
  return `toolsets ${sets}${sel.readOnly ? ', read-only' : ''}`;
}
