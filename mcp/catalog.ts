import type { z } from 'zod';
import type { HoldDeclaration } from '../protocol/contract.js';
import { methodEvents } from '../protocol/events.js';
import { FAMILIES, METHODS, READS, STATIC_READS, type Flag } from '../protocol/registry.js';
import type { MethodHandler, ReadHandler } from '../domain/core/handler.js';
import type { Pipeline } from '../domain/core/pipeline.js';
import { ANY_OBJECT, isObjectSchema, jsonSchemaOf, mergeBranches, outline, type JsonSchema } from './json-schema.js';
import { HeldToolResult } from './holds.js';
import { holdListingNote } from './hold-notes.js';
import { toolNameFor } from './names.js';
import { toolsetsOf } from './toolsets.js';

/*
 * The tool catalog: one MCP tool per deployed method and per deployed GET read, generated from the registry
 * (scope, flags) and the contract (zod params and result). Nothing here is listed by hand.
 * Tool names: mcp/names.ts.
 */

/** The optional argument every mutating idempotent tool takes besides the method's params. */
export const IDEMPOTENCY_ARG = 'idempotencyKey';

export const IDEMPOTENCY_ARG_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description: 'Optional. Reuse the same key when you retry; omitted, it is derived from the call (see instructions).',
} as const;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** MCP Apps' tool metadata (`_meta.ui`): who may call it; a tool without it is the model's and the app's. */
export interface ToolUiMeta {
  visibility: readonly ('model' | 'app')[];
}

export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  _meta?: { ui: ToolUiMeta };
}

/** Whether a host puts the tool in the model's list (MCP Apps: visibility without "model" is the app's alone). */
export const modelVisible = (t: { _meta?: object }): boolean =>
  (t._meta as { ui?: Partial<ToolUiMeta> } | undefined)?.ui?.visibility?.includes('model') ?? true;

export interface CatalogEntry {
  /** MCP tool name. */
  tool: string;
  kind: 'method' | 'read';
  /** Method name (`board.createTask`) or read path (`approval.wait`). */
  target: string;
  /** The tool's family. */
  family: string;
  /** The toolsets that list it: its family, and its area for a books tool (`books.payables`). */
  toolsets: readonly string[];
  scope: string;
  flags: readonly Flag[];
  readOnly: boolean;
  /** Takes `idempotencyKey` (mutating and flagged I). */
  idempotent: boolean;
  /** A signature act: may answer with a hold instead of its result. */
  mayHold: boolean;
  /** How it holds (its contract's declaration), for the words that describe it. */
  hold?: HoldDeclaration;
  /** The ledger event kinds a call may append (protocol/events.ts methodEvents): for describe_method. */
  events: readonly string[];
  preAuth: boolean;
  /** For an MCP App's page only (contract mcpAppOnly): what the page calls it for; the model does not call it. */
  appOnly?: string;
  /** The contract behind the tool: for describe_method. */
  summary: string;
  params: z.ZodType;
  result?: z.ZodType;
  example: unknown;
  definition: ToolDefinition;
}

export interface Catalog {
  entries: readonly CatalogEntry[];
  byTool: ReadonlyMap<string, CatalogEntry>;
  byTarget: ReadonlyMap<string, CatalogEntry>;
  /** Deployed methods this face never serves (contract notOverMcp), with why: neither listed nor callable. */
  withheld: ReadonlyMap<string, string>;
}

export { toolNameFor };

const camelWords = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[ _]+/);

/** A tool's title: `Books: payroll sign` for books.payrollSign, `Org: whoami` for org/whoami, `Events` for events. */
export function titleFor(target: string): string {
  const [head, rest] = target.split(/[./]/);
  const cap = (w: string) => w.charAt(0).toUpperCase() + w.slice(1);
  return rest === undefined ? cap(camelWords(head).join(' ')) : `${cap(head)}: ${camelWords(rest).join(' ')}`;
}

/** Verbs of a method that only adds records (a draft, a comment, a request); any other word keeps it possibly destructive. */
const ADDITIVE_VERBS = new Set([
  'create',
  'add',
  'draft',
  'record',
  'request',
  'capture',
  'comment',
  'heartbeat',
  'register',
  'mint',
  'ask',
  'link',
  'decompose',
  'promise',
  'post',
  'start',
  'generate',
]);
const ALTERING_VERBS = new Set([
  'update',
  'delete',
  'remove',
  'void',
  'revoke',
  'move',
  'set',
  'resolve',
  'assign',
  'approve',
  'reject',
  'recall',
  'return',
  'dispose',
  'rename',
  'merge',
  'archive',
  'deactivate',
  'hold',
  'block',
  'complete',
  'send',
  'sign',
  'lodge',
  'accept',
]);

/** MCP's destructiveHint false promises only additive updates: said only of methods whose name says so. */
export function isAdditive(method: string): boolean {
  const words = camelWords(method.split('.')[1] ?? '');
  return words.some((w) => ADDITIVE_VERBS.has(w)) && !words.some((w) => ALTERING_VERBS.has(w));
}

/** A read's family: the part before its dot or slash when that is a family, else `org` (events, snapshot, ops). */
export function readFamily(path: string): string {
  // GET /directory is the member directory (the people families), not the directory family of outside parties.
  if (path === 'directory') return 'member';
  const head = path.split(/[./]/)[0];
  return FAMILIES.includes(head) ? head : 'org';
}

/**
 * What a caller must know beyond the flag letters (the server instructions explain M, I, G and R): a
 * governance gate unless the description already says so, and how it holds, from its contract's declaration.
 */
function flagNotes(flags: readonly Flag[], hold: HoldDeclaration | undefined, brief: string): string {
  const notes: string[] = [];
  if (flags.includes('G') && !/governance-gated/i.test(brief)) notes.push('Governance-gated.');
  if (hold) notes.push(holdListingNote(hold, brief));
  return notes.length ? ` ${notes.join(' ')}` : '';
}

function withIdempotencyArg(schema: JsonSchema): JsonSchema {
  const properties = { ...((schema.properties as Record<string, unknown> | undefined) ?? {}) };
  if (IDEMPOTENCY_ARG in properties) throw new Error(`params already have a field ${IDEMPOTENCY_ARG}`);
  properties[IDEMPOTENCY_ARG] = IDEMPOTENCY_ARG_SCHEMA;
  return { ...schema, properties };
}

/**
 * A tool's inputSchema: the params object (plus idempotencyKey for idempotent writes). Params that are a union of
 * objects (books.onboardingAdvance by step, books.reports by report) are merged into one object (mergeBranches).
 */
export function inputSchemaFor(params: z.ZodType, idempotent: boolean): JsonSchema {
  const json = jsonSchemaOf(params, 'input');
  const branches = (json.oneOf ?? json.anyOf) as Record<string, unknown>[] | undefined;
  let base: JsonSchema;
  if (isObjectSchema(json)) base = json;
  else if (branches?.length && branches.every(isObjectSchema)) base = mergeBranches(branches);
  else base = { ...ANY_OBJECT, description: 'The method params object.' };
  return idempotent ? withIdempotencyArg(base) : base;
}

const BRIEF_CHARS = 160;

/**
 * A tool's description in tools/list: the summary's opening sentences (up to BRIEF_CHARS; a longer first sentence
 * is cut at a word and marked …), the scope and flags, and what the flags mean for a caller. describe_method gives
 * the whole summary.
 */
export function listingDescription(summary: string, flags: readonly Flag[], scope: string, hold?: HoldDeclaration): string {
  const [first, ...rest] = sentences(summary);
  let brief = first.length > BRIEF_CHARS ? `${first.slice(0, first.lastIndexOf(' ', BRIEF_CHARS))} …` : first;
  for (const s of rest) {
    if (brief.length + s.length > BRIEF_CHARS) break;
    brief = `${brief} ${s}`;
  }
  return `${brief} [${scope}; ${flags.join(',')}]${flagNotes(flags, hold, brief)}`;
}

export const firstSentence = (summary: string): string => sentences(summary)[0];

/** Sentences end at . ! or ? before a space, outside parentheses (`(e.g. … )`, `approval.request` stay whole). */
function sentences(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && '.!?'.includes(c) && (i + 1 === text.length || text[i + 1] === ' ') && !/\b(e\.g|i\.e|etc)$/.test(text.slice(start, i))) {
      out.push(text.slice(start, i + 1).trim());
      start = i + 1;
    }
  }
  if (start < text.length && text.slice(start).trim()) out.push(text.slice(start).trim());
  return out.length ? out : [text];
}

const HELD_SCHEMA = outline(jsonSchemaOf(HeldToolResult, 'output')) as JsonSchema;

export function outputSchemaFor(result: z.ZodType | undefined, mayHold: boolean): JsonSchema {
  const declared = result ? outline(jsonSchemaOf(result, 'output')) : undefined;
  const plain: JsonSchema = declared && isObjectSchema(declared) ? declared : ANY_OBJECT;
  if (!mayHold) return plain;
  return { type: 'object', anyOf: [plain, HELD_SCHEMA] };
}

function methodEntry(name: string, handler: MethodHandler): CatalogEntry | undefined {
  const spec = METHODS.get(name);
  if (!spec) return undefined;
  const idempotent = spec.idempotent && spec.mutating;
  const tool = toolNameFor(name);
  // An R method that writes (contract writes) or acts outside (openWorld) is a write to MCP: hidden in read-only sessions.
  const readOnly = spec.readOnly && !handler.contract.writes && !handler.contract.openWorld;
  const appOnly = handler.contract.mcpAppOnly;
  return {
    tool,
    kind: 'method',
    target: name,
    family: spec.family,
    toolsets: toolsetsOf(name, spec.family),
    scope: spec.scope,
    flags: spec.flags,
    readOnly,
    idempotent,
    mayHold: handler.mayHold,
    hold: handler.contract.hold,
    events: methodEvents(spec.family, handler.contract),
    preAuth: spec.preAuth,
    ...(appOnly ? { appOnly } : {}),
    summary: handler.contract.summary,
    params: handler.contract.params,
    result: handler.contract.result,
    example: handler.contract.example,
    definition: {
      name: tool,
      title: titleFor(name),
      description: `${listingDescription(handler.contract.summary, spec.flags, spec.scope, handler.contract.hold)}${appOnly ? ` ${appOnlyNote(appOnly)}` : ''}`,
      inputSchema: inputSchemaFor(handler.contract.params, idempotent),
      outputSchema: outputSchemaFor(handler.contract.result, handler.mayHold),
      annotations: readOnly
        ? { title: titleFor(name), readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false }
        : {
            title: titleFor(name),
            readOnlyHint: false,
            destructiveHint: !isAdditive(name),
            idempotentHint: spec.idempotent || !!handler.contract.writes,
            openWorldHint: !!handler.contract.openWorld,
          },
      ...(appOnly ? { _meta: { ui: { visibility: ['app'] as const } } } : {}),
    },
  };
}

/** What an app-only tool's listing and describe_method say. */
export const appOnlyNote = (why: string): string => `App-only (MCP Apps): ${why}.`;

function readEntry(path: string, handler: ReadHandler): CatalogEntry | undefined {
  const spec = READS.get(path) ?? STATIC_READS.get(path);
  // A read that answers a file or an image (a vCard, an avatar) is for browsers and address books, not a tool.
  if (!spec || handler.contract.media) return undefined;
  const tool = toolNameFor(path);
  return {
    tool,
    kind: 'read',
    target: path,
    family: readFamily(path),
    toolsets: [readFamily(path)],
    scope: spec.scope,
    flags: ['R'],
    readOnly: true,
    idempotent: false,
    mayHold: false,
    events: [],
    preAuth: false,
    summary: handler.contract.summary,
    params: handler.contract.query,
    result: handler.contract.result,
    example: handler.contract.example,
    definition: {
      name: tool,
      title: titleFor(path),
      description: listingDescription(handler.contract.summary, ['R'], spec.scope),
      inputSchema: inputSchemaFor(handler.contract.query, false),
      outputSchema: outputSchemaFor(handler.contract.result, false),
      annotations: { title: titleFor(path), readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
  };
}

export function buildCatalog(handlers: ReadonlyMap<string, MethodHandler>, reads: ReadonlyMap<string, ReadHandler>): Catalog {
  const withheld = new Map([...handlers].flatMap(([name, h]) => (h.contract.notOverMcp ? [[name, h.contract.notOverMcp] as const] : [])));
  const served = [...handlers].filter(([name]) => !withheld.has(name));
  const entries = [...served.map(([name, h]) => methodEntry(name, h)), ...[...reads].map(([path, h]) => readEntry(path, h))].filter(
    (e): e is CatalogEntry => e !== undefined,
  );
  entries.sort((a, b) => a.tool.localeCompare(b.tool));
  const byTool = new Map<string, CatalogEntry>();
  for (const e of entries) {
    if (byTool.has(e.tool)) throw new Error(`two deployed targets map to the tool name ${e.tool}`);
    byTool.set(e.tool, e);
  }
  return { entries, byTool, byTarget: new Map(entries.map((e) => [e.target, e])), withheld };
}

const cache = new WeakMap<Pipeline, Catalog>();

/** The catalog of a pipeline's deployed handlers, built once (JSON Schemas are generated a single time). */
export function catalogFor(pipeline: Pipeline): Catalog {
  let catalog = cache.get(pipeline);
  if (!catalog) {
    catalog = buildCatalog(pipeline.handlers, pipeline.reads);
    cache.set(pipeline, catalog);
  }
  return catalog;
}
