import type { z } from 'zod';
import { FAMILIES, METHODS, READS, STATIC_READS, type Flag } from '../protocol/registry.js';
import type { MethodHandler, ReadHandler } from '../domain/handler.js';
import type { Pipeline } from '../domain/pipeline.js';
import { ANY_OBJECT, isObjectSchema, jsonSchemaOf, outline, type JsonSchema } from './json-schema.js';
import { HeldToolResult } from './holds.js';

/*
 * The tool catalog: one MCP tool per deployed method and per deployed GET read, generated from the registry
 * (scope, flags) and the contract (zod params and result). Nothing here is listed by hand.
 *
 * Tool names: the method name with its dot replaced by an underscore (`board.createTask` -> `board_createTask`),
 * a read's path likewise (`approval.wait` -> `approval_wait`, `org/whoami` -> `org_whoami`). The MCP spec
 * allows dots, but several model APIs accept only [a-zA-Z0-9_-] in tool names, so underscores it is.
 */

/** The optional argument every mutating idempotent tool takes besides the method's params. */
export const IDEMPOTENCY_ARG = 'idempotencyKey';

export const IDEMPOTENCY_ARG_SCHEMA = {
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description:
    'Optional. Reuse the same key when you retry; omitted, it is derived from the call (see instructions).',
} as const;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
}

export interface CatalogEntry {
  /** MCP tool name. */
  tool: string;
  kind: 'method' | 'read';
  /** Method name (`board.createTask`) or read path (`approval.wait`). */
  target: string;
  /** The toolset the tool belongs to: its family. */
  family: string;
  scope: string;
  flags: readonly Flag[];
  readOnly: boolean;
  /** Takes `idempotencyKey` (mutating and flagged I). */
  idempotent: boolean;
  /** A signature act: may answer with a hold instead of its result. */
  mayHold: boolean;
  preAuth: boolean;
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
}

export const toolNameFor = (target: string): string => target.replace(/[./]/g, '_');

/** A read's family: the part before its dot or slash when that is a family, else `org` (events, snapshot, ops). */
export function readFamily(path: string): string {
  const head = path.split(/[./]/)[0];
  return FAMILIES.includes(head) ? head : 'org';
}

function flagNote(flags: readonly Flag[], mayHold: boolean): string {
  const notes: string[] = [];
  if (flags.includes('G')) notes.push('Governance-gated: GOVERNANCE_NOT_READY until decision rights are declared.');
  if (mayHold) notes.push('Signature act: without approvalId or signatureToken it returns a hold (status approval_required) for a human to approve.');
  if (flags.includes('M') && !flags.includes('I')) notes.push('Not idempotent: every call is a new act.');
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
 * objects (books.onboardingAdvance by step, books.reports by report) become an object whose anyOf lists each
 * branch in full, since MCP requires an object at the top.
 */
export function inputSchemaFor(params: z.ZodType, idempotent: boolean): JsonSchema {
  const json = jsonSchemaOf(params, 'input');
  const branches = (json.oneOf ?? json.anyOf) as Record<string, unknown>[] | undefined;
  if (!isObjectSchema(json) && branches?.length && branches.every(isObjectSchema)) {
    return { type: 'object', anyOf: branches.map((b) => (idempotent ? withIdempotencyArg(b) : b)) };
  }
  const base: JsonSchema = isObjectSchema(json) ? json : { ...ANY_OBJECT, description: 'The method params object.' };
  return idempotent ? withIdempotencyArg(base) : base;
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
  return {
    tool,
    kind: 'method',
    target: name,
    family: spec.family,
    scope: spec.scope,
    flags: spec.flags,
    readOnly: spec.readOnly,
    idempotent,
    mayHold: handler.mayHold,
    preAuth: spec.preAuth,
    summary: handler.contract.summary,
    params: handler.contract.params,
    result: handler.contract.result,
    example: handler.contract.example,
    definition: {
      name: tool,
      description: `${handler.contract.summary} [${spec.scope}; ${spec.flags.join(',')}]${flagNote(spec.flags, handler.mayHold)}`,
      inputSchema: inputSchemaFor(handler.contract.params, idempotent),
      outputSchema: outputSchemaFor(handler.contract.result, handler.mayHold),
      annotations: spec.readOnly
        ? { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false }
        : { readOnlyHint: false, idempotentHint: spec.idempotent, openWorldHint: false },
    },
  };
}

function readEntry(path: string, handler: ReadHandler): CatalogEntry | undefined {
  const spec = READS.get(path) ?? STATIC_READS.get(path);
  if (!spec) return undefined;
  const tool = toolNameFor(path);
  return {
    tool,
    kind: 'read',
    target: path,
    family: readFamily(path),
    scope: spec.scope,
    flags: ['R'],
    readOnly: true,
    idempotent: false,
    mayHold: false,
    preAuth: false,
    summary: handler.contract.summary,
    params: handler.contract.query,
    result: handler.contract.result,
    example: handler.contract.example,
    definition: {
      name: tool,
      description: `${handler.contract.summary} [${spec.scope}; R]`,
      inputSchema: inputSchemaFor(handler.contract.query, false),
      outputSchema: outputSchemaFor(handler.contract.result, false),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
  };
}

export function buildCatalog(handlers: ReadonlyMap<string, MethodHandler>, reads: ReadonlyMap<string, ReadHandler>): Catalog {
  const entries = [
    ...[...handlers].map(([name, h]) => methodEntry(name, h)),
    ...[...reads].map(([path, h]) => readEntry(path, h)),
  ].filter((e): e is CatalogEntry => e !== undefined);
  entries.sort((a, b) => a.tool.localeCompare(b.tool));
  const byTool = new Map<string, CatalogEntry>();
  for (const e of entries) {
    if (byTool.has(e.tool)) throw new Error(`two deployed targets map to the tool name ${e.tool}`);
    byTool.set(e.tool, e);
  }
  return { entries, byTool, byTarget: new Map(entries.map((e) => [e.target, e])) };
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
