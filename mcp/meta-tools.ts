import { z } from 'zod';
import { formatIssue } from '../protocol/schema.js';
import { FAMILIES, METHODS, READS, STATIC_READS, type Flag } from '../protocol/registry.js';
import { invokeMethod, invokeRead } from './calls.js';
import { appOnlyNote, firstSentence, readFamily, toolNameFor, type CatalogEntry, type ToolDefinition } from './catalog.js';
import { holdDescribeNote } from './hold-notes.js';
import { ANY_OBJECT, jsonSchemaOf, outline, type JsonSchema } from './json-schema.js';
import { errorResult, okResult, type ToolResult } from './results.js';
import type { McpSession, ToolCall } from './session.js';
import { hiddenBecause, humanDecisionError } from './toolsets.js';

/*
 * Three meta-tools reach the whole registry (424 methods, 13 reads) whatever the session lists: search,
 * describe, invoke. Invoke is two tools, reads and writes, so a client's approval prompt still tells them
 * apart (invoke_read is read-only; invoke_write is not, and is absent in read-only mode).
 */

export const META_TOOLS = {
  search: 'search_methods',
  describe: 'describe_method',
  read: 'invoke_read',
  write: 'invoke_write',
} as const;
export const META_TOOL_NAMES: readonly string[] = Object.values(META_TOOLS);

const name = z.string().min(1).max(120).describe('Method (`board.createTask`), read (`events`, `approval.wait`) or tool name (`board_createTask`).');
const params = z.record(z.string(), z.unknown()).describe('The method’s params (see describe_method). Default {}.').optional();

const SearchArgs = z.strictObject({
  query: z.string().max(200).describe('Words to look for in names and summaries, e.g. "invoice send".').optional(),
  family: z.string().max(40).describe('Only this family, e.g. books.').optional(),
  scope: z.string().max(40).describe('Only methods needing this scope, e.g. books.write.').optional(),
  includeUndeployed: z.boolean().default(false).describe('Also registry methods this server does not serve (they answer NOT_FOUND). Default false.'),
  limit: z.number().int().min(1).max(100).default(20).describe('At most this many matches (default 20).'),
});
const Match = z.strictObject({
  name: z.string(),
  scope: z.string(),
  flags: z.string().describe('R read-only, M writes one ledger event, I idempotent, G governance-gated, P pre-auth.'),
  brief: z.string().nullable().describe('The first sentence of its summary (describe_method gives all of it).'),
  allowed: z.boolean().describe('Your key may call it here.'),
  tool: z.string().nullable().describe('The tool listed for it in this session, if any; else use invoke_read/invoke_write.'),
  deployed: z.boolean().optional().describe('Only with includeUndeployed: false means calls answer NOT_FOUND here.'),
});
const SearchResult = z.strictObject({ matches: z.array(Match), total: z.number().int().describe('Matches before the limit.') });

const DescribeArgs = z.strictObject({
  name,
  includeResult: z.boolean().default(false).describe('Also the JSON Schema of its result (long for reports). Default false.'),
});
const DescribeResult = z.strictObject({
  name: z.string(),
  kind: z.enum(['method', 'read']),
  scope: z.string(),
  flags: z.string(),
  allowed: z.boolean(),
  tool: z.string().nullable(),
  summary: z.string(),
  params: z.record(z.string(), z.unknown()).describe('JSON Schema of the params (for a read: its query).'),
  example: z.unknown().describe('A valid params object.'),
  events: z.array(z.string()).describe('The ledger event kinds a call may append, one per call (a held call: `<family>.signature.hold`); none for a read.'),
  result: z.record(z.string(), z.unknown()).nullable().optional().describe('JSON Schema of the result: only with includeResult.'),
  notes: z.array(z.string()),
});

const ReadArgs = z.strictObject({ name, params });
const WriteArgs = z.strictObject({
  name,
  params,
  idempotencyKey: z
    .string()
    .min(1)
    .max(255)
    .describe('Optional, for idempotent (I) methods. Reuse the same key when you retry; omitted, it is derived from name and params.')
    .optional(),
});

function definition(tool: string, title: string, description: string, args: z.ZodType, result: JsonSchema, readOnly: boolean): ToolDefinition {
  return {
    name: tool,
    title,
    description,
    inputSchema: jsonSchemaOf(args, 'input') as JsonSchema,
    outputSchema: result,
    annotations: readOnly
      ? { title, readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: false }
      : { title, readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  };
}

export const META_DEFINITIONS: Record<string, ToolDefinition> = {
  [META_TOOLS.search]: definition(
    META_TOOLS.search,
    'Search methods',
    'Find methods and reads served here, listed as tools or not, by words, family or scope: name, scope, flags, first sentence, and the tool to call.',
    SearchArgs,
    outline(jsonSchemaOf(SearchResult, 'output')) as JsonSchema,
    true,
  ),
  [META_TOOLS.describe]: definition(
    META_TOOLS.describe,
    'Describe a method',
    'Describe one method or read: its whole summary, the JSON Schema of its params, an example call, and its result schema on request.',
    DescribeArgs,
    outline(jsonSchemaOf(DescribeResult, 'output')) as JsonSchema,
    true,
  ),
  [META_TOOLS.read]: definition(
    META_TOOLS.read,
    'Invoke a read',
    'Call any read-only method (R) or GET read by name, including ones whose toolset is not listed.',
    ReadArgs,
    ANY_OBJECT,
    true,
  ),
  [META_TOOLS.write]: definition(
    META_TOOLS.write,
    'Invoke a write',
    'Call any mutating method by name, including ones whose toolset is not listed. Same rules as its own tool: idempotency, holds, ledger.',
    WriteArgs,
    ANY_OBJECT,
    false,
  ),
};

interface RegistryItem {
  name: string;
  kind: 'method' | 'read';
  family: string;
  scope: string;
  flags: readonly Flag[];
}

const REGISTRY: readonly RegistryItem[] = [
  ...[...METHODS.values()].map((m) => ({ name: m.name, kind: 'method' as const, family: m.family, scope: m.scope, flags: m.flags })),
  ...[...READS.values(), ...STATIC_READS.values()].map((r) => ({
    name: r.path,
    kind: 'read' as const,
    family: readFamily(r.path),
    scope: r.scope,
    flags: ['R'] as Flag[],
  })),
];

function findItem(raw: string): RegistryItem | undefined {
  return REGISTRY.find((i) => i.name === raw) ?? REGISTRY.find((i) => toolNameFor(i.name) === raw);
}

function matchOf(session: McpSession, call: ToolCall, item: RegistryItem, withDeployed: boolean): z.infer<typeof Match> {
  const entry = session.catalog.byTarget.get(item.name);
  const hidden = entry && hiddenBecause(entry, call.principal, session.selection);
  return {
    name: item.name,
    scope: item.scope,
    flags: item.flags.join(','),
    brief: entry ? firstSentence(entry.summary) : null,
    // An MCP App's tool is the page's, not the model's: not for this caller to call.
    allowed: entry !== undefined && !entry.appOnly && hidden !== 'scope' && hidden !== 'humanDecision' && hidden !== 'excluded',
    tool: entry && !hidden && !entry.appOnly ? entry.tool : null,
    ...(withDeployed ? { deployed: entry !== undefined } : {}),
  };
}

/** Lowercase words of a name and summary; camelCase split (`invoiceSend` -> invoice, send). */
const words = (text: string) => text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();

/** Words a plain-English query carries that say nothing about a method ("search the directory for a person"). */
const STOP_WORDS = new Set(
  (
    'a an the to for of in on at by with from into onto about as and or but not no is are be been was were it its this that these those ' +
    'i me my we our us you your he she they them their his her there here what which who whom whose when where why how ' +
    'do does did can could should would will shall may might must please want need like just some any all each every one ' +
    'get let make show tell give use using via new'
  ).split(' '),
);

/** Plain words for what names say otherwise: a query's word also finds these. */
const SYNONYMS: Record<string, readonly string[]> = {
  add: ['create', 'new'],
  create: ['add'],
  find: ['search', 'list', 'get'],
  look: ['search', 'get'],
  lookup: ['search', 'get'],
  search: ['find', 'query'],
  person: ['people', 'member', 'contact'],
  people: ['person', 'member', 'contact'],
  document: ['doc', 'file'],
  doc: ['document', 'file'],
  remove: ['delete'],
  delete: ['remove'],
  message: ['send', 'messaging'],
  comment: ['annotation'],
  note: ['comment', 'annotation'],
};

/** A word without a plural s (invoices -> invoice), so either form matches. */
const stem = (w: string) => (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') ? w.slice(0, -1) : w);

/** The query's words that carry meaning, stemmed. */
export const queryTerms = (query: string): string[] => [
  ...new Set(
    words(query)
      .split(/[^a-z0-9_]+/)
      .filter((t) => t && !STOP_WORDS.has(t))
      .map(stem),
  ),
];

/** How well one query word matches a set of words: itself 1, a synonym 0.8, a prefix of one (3+ letters) 0.5. */
function wordMatch(term: string, set: ReadonlySet<string>): number {
  if (set.has(term)) return 1;
  if ((SYNONYMS[term] ?? []).some((s) => set.has(stem(s)))) return 0.8;
  if (term.length >= 3) for (const w of set) if (w.startsWith(term) || (w.length >= 3 && term.startsWith(w))) return 0.5;
  return 0;
}

const wordSet = (text: string): Set<string> =>
  new Set(
    words(text)
      .split(/[^a-z0-9]+/)
      .filter(Boolean)
      .map(stem),
  );

function search(session: McpSession, call: ToolCall, args: z.infer<typeof SearchArgs>): ToolResult {
  if (args.family && !FAMILIES.includes(args.family) && args.family !== 'org') {
    return errorResult('BAD_REQUEST', `family: unknown family ${JSON.stringify(args.family)}`);
  }
  const terms = queryTerms(args.query ?? '');
  const scored = REGISTRY.filter((i) => (!args.family || i.family === args.family) && (!args.scope || i.scope === args.scope))
    .filter((i) => args.includeUndeployed || session.catalog.byTarget.has(i.name))
    .map((item) => {
      const entry = session.catalog.byTarget.get(item.name);
      // Whole words (stop words dropped), not substrings: "a" or "to" no longer match every name. A word of the
      // name counts more than one of the summary (summaries mention other methods); the first sentence more than the rest.
      const name = wordSet(`${item.name} ${item.scope}`);
      // The act itself: the first word of the method's own name (search in directory.search, create in annotation.create).
      const verb = wordSet(words(item.name.split(/[./]/)[1] ?? item.name).split(' ')[0]);
      const brief = wordSet(entry ? firstSentence(entry.summary) : '');
      const summary = wordSet(entry?.summary ?? '');
      const each = terms.map((t) => 3 * wordMatch(t, name) + wordMatch(t, verb) + wordMatch(t, brief) + 0.5 * wordMatch(t, summary));
      // A method that answers every word of the query ranks above one that answers some of them strongly.
      const coverage = terms.length ? each.filter((v) => v > 0).length / terms.length : 1;
      const score = each.reduce((a, b) => a + b, 0) * (0.5 + 0.5 * coverage);
      return { item, score, deployed: entry !== undefined };
    })
    // A query of stop words only asks for nothing in particular: it matches nothing (no query lists everything).
    .filter((s) => !args.query?.trim() || s.score > 0)
    .sort((a, b) => b.score - a.score || Number(b.deployed) - Number(a.deployed) || a.item.name.localeCompare(b.item.name));
  return okResult({ matches: scored.slice(0, args.limit).map((s) => matchOf(session, call, s.item, args.includeUndeployed)), total: scored.length });
}

const FLAG_NOTES: Record<Flag, string> = {
  R: 'R: read-only; appends nothing.',
  M: 'M: mutating; appends exactly one ledger event.',
  I: 'I: idempotent; reuse the same idempotency key when you retry (omitted, one is derived from the call).',
  G: 'G: governance-gated; GOVERNANCE_NOT_READY until an admin declares decision rights.',
  P: 'P: pre-auth; runs without a credential.',
};

/** A method the MCP face never serves (its contract's notOverMcp), and why. */
const withheldMessage = (name: string, reason: string): string => `${name} is not served over MCP on any server: ${reason}; nothing was called`;

function describe(session: McpSession, call: ToolCall, args: z.infer<typeof DescribeArgs>): ToolResult {
  const raw = args.name;
  const item = findItem(raw);
  if (!item) return errorResult('NOT_FOUND', `no method or read named ${JSON.stringify(raw)} in the registry; use ${META_TOOLS.search}`);
  const entry = session.catalog.byTarget.get(item.name);
  const withheld = session.catalog.withheld.get(item.name);
  if (withheld) return errorResult('NOT_FOUND', withheldMessage(item.name, withheld));
  if (!entry) {
    return errorResult(
      'NOT_FOUND',
      `${item.kind} ${item.name} is in the registry [${item.scope}; ${item.flags.join(',')}] but not deployed on this server: calls answer NOT_FOUND`,
    );
  }
  const notes = item.flags.map((f) => FLAG_NOTES[f]);
  if (entry.hold) notes.push(holdDescribeNote(entry.hold));
  if (entry.appOnly) notes.push(`${appOnlyNote(entry.appOnly)} Hosts give its tool to the page, not to you; ${META_TOOLS.write} refuses it.`);
  const { name, scope, flags, allowed, tool } = matchOf(session, call, item, false);
  return okResult({
    name,
    kind: item.kind,
    scope,
    flags,
    allowed,
    tool,
    summary: entry.summary,
    params: jsonSchemaOf(entry.params, 'input'),
    example: entry.example,
    events: entry.events,
    ...(args.includeResult ? { result: entry.result ? jsonSchemaOf(entry.result, 'output') : null } : {}),
    notes,
  });
}

/** invoke_read / invoke_write: the name decides method or read; the wrong tool for it is BAD_REQUEST. */
async function invoke(session: McpSession, call: ToolCall, write: boolean, args: z.infer<typeof WriteArgs>): Promise<ToolResult> {
  const item = findItem(args.name);
  const entry: CatalogEntry | undefined = item && session.catalog.byTarget.get(item.name);
  const withheld = item && session.catalog.withheld.get(item.name);
  if (item && withheld) return errorResult('NOT_FOUND', withheldMessage(item.name, withheld));
  if (entry?.appOnly) return errorResult('NOT_FOUND', `${entry.target} is for an MCP App's page, not for you: ${entry.appOnly}; nothing was called`);
  if (entry && session.selection.exclude.has(entry.tool)) {
    return errorResult('NOT_FOUND', `${entry.target} is excluded in this session`);
  }
  if (entry && hiddenBecause(entry, call.principal, session.selection) === 'humanDecision') {
    const refused = humanDecisionError(entry, call.principal, session.publicUrl);
    return errorResult(refused.code, refused.message);
  }
  const tool = write ? META_TOOLS.write : META_TOOLS.read;
  // Whether it writes: the catalog's word (an R method with a write log writes), else the registry flags.
  if (item && (entry ? entry.readOnly : item.flags.includes('R')) === write) {
    const other = write ? META_TOOLS.read : META_TOOLS.write;
    return errorResult('BAD_REQUEST', `name: ${item.name} ${write ? 'is read-only' : 'writes'}; call it with ${other}`);
  }
  if (item?.kind === 'read') return invokeRead(session, call, item.name, args.params ?? {});
  const method = item?.name ?? args.name;
  return invokeMethod(session, call, method, args.params ?? {}, { givenKey: args.idempotencyKey, retry: `${tool} (name "${method}")` });
}

export async function runMetaTool(session: McpSession, call: ToolCall, tool: string, raw: unknown): Promise<ToolResult> {
  const schema: z.ZodType | undefined = {
    [META_TOOLS.search]: SearchArgs,
    [META_TOOLS.describe]: DescribeArgs,
    [META_TOOLS.read]: ReadArgs,
    [META_TOOLS.write]: WriteArgs,
  }[tool];
  if (!schema) return errorResult('NOT_FOUND', `no meta-tool ${tool}`);
  const parsed = schema.safeParse(raw ?? {});
  if (!parsed.success) {
    return errorResult('BAD_REQUEST', formatIssue(parsed.error.issues[0], 'arguments'));
  }
  const args = parsed.data as never;
  switch (tool) {
    case META_TOOLS.search:
      return search(session, call, args);
    case META_TOOLS.describe:
      return describe(session, call, args);
    case META_TOOLS.read:
      return invoke(session, call, false, args);
    default:
      return invoke(session, call, true, args);
  }
}
