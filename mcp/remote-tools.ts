import { randomUUID } from 'node:crypto';
import type { CallFrame } from '../protocol/frames.js';
import type { ToolDefinition } from './catalog.js';
import { errorResult, type ToolResult } from './results.js';
import { credential, type McpSession } from './session.js';

/*
 * Tools beyond the catalog, listed per caller (a family's remote tools, such as the integrations'). The MCP face
 * declares the extension point and names no family: a family contributes `mcpToolsets` with how to list the
 * caller's tools, how to read the version of that list, and how to call one. Each of those runs methods through
 * the pipeline as the session's key (RunMethod), so scopes, rate limits and every check of those methods apply
 * exactly as over HTTP. Hidden in read-only sessions: a remote tool acts in the outside world.
 */

/** Runs a method through the pipeline as the session's key and answers its frame. */
export type RunMethod = (method: string, params: Record<string, unknown>) => Promise<CallFrame>;

export interface ExtraTool {
  /** The MCP tool name; must not collide with a catalog tool's. */
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The remote says it only reads (its own claim, shown as a hint). */
  readOnlyHint: boolean;
  /** What call() needs to reach it (ids), kept by the session between list and call. */
  ref: Record<string, string>;
}

/** A call's answer: MCP content blocks, as the tool gave them, and whether it is a tool error. */
export interface ExtraToolResult {
  content: Record<string, unknown>[];
  structuredContent?: Record<string, unknown>;
  isError: boolean;
}

export interface McpToolset {
  /** Its name (`<family>.<name>`): listed when the session selects it, its family, a desk with its family, or all. */
  toolset: string;
  family: string;
  /** Every tool the caller may call now, and the version of that set. */
  list(run: RunMethod): Promise<CallFrame<{ version: string; tools: ExtraTool[] }>>;
  /** The version alone: it moves exactly when list() would answer otherwise. */
  version(run: RunMethod): Promise<CallFrame<string>>;
  call(run: RunMethod, ref: Record<string, string>, args: Record<string, unknown>): Promise<CallFrame<ExtraToolResult>>;
  /**
   * A notifier topic (db/notifier.ts) the family publishes `{orgId}` on, at the commit of whatever may move the
   * version: a session that listed the tools checks at once and sends tools/list_changed, without waiting for a call.
   */
  movedTopic?: string;
}

declare module '../domain/core/family.js' {
  interface Contributions {
    /** Tools the MCP face lists per caller beyond the catalog (mcp/remote-tools.ts). */
    mcpToolsets: McpToolset;
  }
}

/** What one session last listed of the extra tools: by name, and each toolset's version (for list_changed). */
export interface ExtraListing {
  tools: Map<string, { source: McpToolset; ref: Record<string, string> }>;
  versions: Map<string, string>;
}

/** The contributed toolsets this session selects (none when read-only). */
export function extraToolsets(session: McpSession): McpToolset[] {
  const sel = session.selection;
  if (sel.readOnly) return [];
  return session.pipeline.deps.families
    .contributions('mcpToolsets')
    .map((c) => c.value)
    .filter((t) => sel.toolsets === 'all' || sel.toolsets.has(t.toolset) || sel.toolsets.has(t.family));
}

const runner =
  (session: McpSession): RunMethod =>
  async (method, params) =>
    (await session.pipeline.call({ method, params, ...credential(session), requestId: randomUUID() })).frame;

/** List the extra tools the caller may call now, remembering them for calls and list_changed. */
export async function listExtraTools(session: McpSession): Promise<ToolDefinition[]> {
  const listing: ExtraListing = { tools: new Map(), versions: new Map() };
  const out: ToolDefinition[] = [];
  for (const source of extraToolsets(session)) {
    const frame = await source.list(runner(session));
    // A caller who may not list them (scope) simply has none: its calls of the methods would say why.
    if (!frame.ok) continue;
    listing.versions.set(source.toolset, frame.result.version);
    for (const t of frame.result.tools) {
      if (session.catalog.byTool.has(t.name) || listing.tools.has(t.name)) continue;
      listing.tools.set(t.name, { source, ref: t.ref });
      out.push({
        name: t.name,
        description: t.description,
        // MCP requires an object schema at the top; the pinned one is (it was listed over MCP).
        inputSchema: { ...t.inputSchema, type: 'object' },
        annotations: { readOnlyHint: t.readOnlyHint, destructiveHint: !t.readOnlyHint, idempotentHint: false, openWorldHint: true },
      });
    }
  }
  session.extraListing = listing;
  return out;
}

/** Call an extra tool by name; undefined when no selected toolset has it (the caller answers unknown tool). */
export async function callExtraTool(session: McpSession, name: string, args: Record<string, unknown>): Promise<ToolResult | undefined> {
  // A client may call a tool it listed in an earlier session (or before a connect): list again once.
  if (!session.extraListing?.tools.has(name)) await listExtraTools(session);
  const hit = session.extraListing?.tools.get(name);
  if (!hit) return undefined;
  const frame = await hit.source.call(runner(session), hit.ref, args);
  if (!frame.ok) return errorResult(frame.error.code, frame.error.message);
  const { content, structuredContent, isError } = frame.result;
  return { content: content as ToolResult['content'], ...(structuredContent ? { structuredContent } : {}), ...(isError ? { isError: true } : {}) };
}

/** True when a toolset's version moved since this session listed it: the session then sends tools/list_changed. */
export async function extraListMoved(session: McpSession): Promise<boolean> {
  const listing = session.extraListing;
  if (!listing || listing.versions.size === 0) return false;
  for (const source of extraToolsets(session)) {
    const listed = listing.versions.get(source.toolset);
    if (listed === undefined) continue;
    const now = await source.version(runner(session));
    if (now.ok && now.result !== listed) {
      listing.versions.set(source.toolset, now.result);
      return true;
    }
  }
  return false;
}

/**
 * Tell the session's client when another session's act moves its extra tools: on each toolset's `movedTopic` for
 * the session's org (`orgId`), the version is read again and `onMoved` runs when it moved. Returns the function that stops it.
 */
export function watchExtraTools(session: McpSession, orgId: string, onMoved: () => void): () => void {
  const topics = new Set(extraToolsets(session).flatMap((t) => (t.movedTopic ? [t.movedTopic] : [])));
  let checking: Promise<void> | undefined;
  const check = () => {
    // One check at a time per session; a message during one is covered by it (it reads the version after).
    checking ??= extraListMoved(session)
      .then((moved) => (moved ? onMoved() : undefined))
      .catch((err: Error) => session.pipeline.deps.log.warn({ err }, 'mcp: reading the extra tools version failed'))
      .finally(() => (checking = undefined));
  };
  const stops = [...topics].map((topic) =>
    session.pipeline.deps.notifier.subscribe(
      topic,
      (p) => {
        if (p.orgId === orgId) check();
      },
      check,
    ),
  );
  return () => stops.forEach((stop) => stop());
}
