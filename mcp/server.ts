import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../protocol/errors.js';
import type { Principal } from '../domain/core/auth.js';
import type { Pipeline } from '../domain/core/pipeline.js';
import { invokeMethod, invokeRead } from './calls.js';
import { catalogFor, IDEMPOTENCY_ARG } from './catalog.js';
import { buildInstructions } from './instructions.js';
import { listedTools } from './listing.js';
import { META_TOOL_NAMES, META_TOOLS, runMetaTool } from './meta-tools.js';
import { callExtraTool, extraListMoved, extraToolsets, listExtraTools, watchExtraTools } from './remote-tools.js';
import { registerResources } from './resources.js';
import { errorResult, splitIdempotencyKey, type ToolResult } from './results.js';
import type { McpSession, ToolCall } from './session.js';
import { DEFAULT_SELECTION, hiddenBecause, humanDecisionError, mayWrite, requireDeployed, type Hidden, type Selection } from './toolsets.js';

export const SERVER_INFO = { name: 'workspace-ops', version: '0.1.0' };

export interface McpServerOptions {
  pipeline: Pipeline;
  apiKey: string;
  /** The key's principal, authenticated by the caller (the transport). */
  principal: Principal;
  /**
   * The server lives for one request whose key the transport has just authenticated (stateless HTTP): use
   * `principal` for the request instead of authenticating the key again. A long-lived server (stdio) leaves it
   * unset and re-authenticates every request, so a revoked key stops at once.
   */
  principalIsFresh?: boolean;
  selection?: Selection;
  /**
   * List and serve tools that record a human's decision (approval.resolve). Off by default: an LLM given a
   * human's key must not decide what its own agent asked for. An operator's opt-in (MCP_ALLOW_DECISIONS).
   */
  humanDecisions?: boolean;
  /** Base URL humans use (approval links); defaults to the domain config's publicUrl. */
  publicUrl?: string;
  elicitationTimeoutMs?: number;
}

const HIDDEN_REASON: Record<Exclude<Hidden, 'scope' | 'humanDecision'>, string> = {
  excluded: 'it is excluded',
  readOnly: 'the session is read-only',
  toolset: 'its toolset is not selected',
};

async function authenticated(session: McpSession): Promise<Principal> {
  return session.freshPrincipal ?? session.pipeline.principalFor(session.apiKey);
}

/** One for every server: the SDK's default builds a new Ajv per server, which a per-request server pays each time. */
const validator = new AjvJsonSchemaValidator();

async function callTool(session: McpSession, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
  let principal: Principal;
  try {
    principal = await authenticated(session);
  } catch (err) {
    if (err instanceof ApiError) return errorResult(err.code, err.message);
    throw err;
  }
  const call: ToolCall = { principal, signal, requestId: randomUUID() };
  if (META_TOOL_NAMES.includes(name)) {
    const off = session.selection.exclude.has(name) || (name === META_TOOLS.write && !mayWrite(session.catalog, principal, session.selection));
    if (off)
      return errorResult(
        'NOT_FOUND',
        `tool ${name} is not enabled in this session${name === META_TOOLS.write ? ' (read-only, or your key has no write scope)' : ''}`,
      );
    return runMetaTool(session, call, name, args);
  }
  const entry = session.catalog.byTool.get(name);
  if (!entry) {
    const extra = await callExtraTool(session, name, args);
    if (extra) return extra;
    throw new McpError(ErrorCode.InvalidParams, `Tool ${name} not found`);
  }
  const hidden = hiddenBecause(entry, principal, session.selection);
  if (hidden === 'humanDecision') {
    const refused = humanDecisionError(entry, principal, session.publicUrl);
    return errorResult(refused.code, refused.message);
  }
  // Hidden for want of scope: the pipeline answers FORBIDDEN_SCOPE naming it, exactly as over HTTP.
  if (hidden && hidden !== 'scope') {
    return errorResult(
      'NOT_FOUND',
      `tool ${name} is not enabled in this session: ${HIDDEN_REASON[hidden]}; ${META_TOOLS.read}/${META_TOOLS.write} reach it unless excluded or read-only`,
    );
  }
  if (entry.kind === 'read') return invokeRead(session, call, entry.target, args);
  const { params, key } = entry.idempotent ? splitIdempotencyKey(args, IDEMPOTENCY_ARG) : { params: args, key: undefined };
  return invokeMethod(session, call, entry.target, params, { givenKey: key, retry: name });
}

/** An MCP server for one API key: its tools generated from the registry, filtered for that key. */
export function createMcpServer(opts: McpServerOptions): McpServer {
  const selection = { ...(opts.selection ?? DEFAULT_SELECTION), humanDecisions: opts.humanDecisions ?? false };
  const catalog = catalogFor(opts.pipeline);
  requireDeployed(selection, catalog);
  const listedCount = listedTools(catalog, selection, opts.principal).length;
  const mcp = new McpServer(SERVER_INFO, {
    jsonSchemaValidator: validator,
    capabilities: { tools: {}, resources: {} },
    instructions: buildInstructions(opts.principal, selection, listedCount),
  });
  const session: McpSession = {
    pipeline: opts.pipeline,
    apiKey: opts.apiKey,
    selection,
    catalog,
    publicUrl: (opts.publicUrl ?? opts.pipeline.deps.config.publicUrl).replace(/\/$/, ''),
    server: mcp.server,
    elicitationTimeoutMs: opts.elicitationTimeoutMs ?? 120_000,
    openElicitations: new Set(),
    freshPrincipal: opts.principalIsFresh ? opts.principal : undefined,
  };

  const listChanged = !opts.principalIsFresh && extraToolsets(session).length > 0;
  mcp.server.setRequestHandler(ListToolsRequestSchema, async () => {
    try {
      const tools = listedTools(catalog, selection, await authenticated(session));
      return { tools: [...tools, ...(await listExtraTools(session))] };
    } catch (err) {
      if (err instanceof ApiError) throw new McpError(ErrorCode.InvalidRequest, `${err.code}: ${err.message}`, { code: err.code });
      throw err;
    }
  });
  mcp.server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      const result = await callTool(session, request.params.name, request.params.arguments ?? {}, extra.signal);
      // A call that connected, re-synced or disconnected an integration moves the caller's remote tools: the client
      // is told to list again (another session's act is pushed by the watch below).
      if (listChanged && (await extraListMoved(session))) mcp.sendToolListChanged();
      return result;
    } catch (err) {
      if (err instanceof McpError) throw err;
      session.pipeline.deps.log.error({ err, tool: request.params.name }, 'mcp tool call failed');
      return errorResult('INTERNAL', 'internal error; idempotent calls are safe to retry');
    }
  });
  if (listChanged) {
    const stop = watchExtraTools(session, opts.principal.orgId, () => void mcp.sendToolListChanged());
    const closed = mcp.server.onclose;
    mcp.server.onclose = () => {
      stop();
      closed?.();
    };
  }
  registerResources(mcp, session, opts.principal);
  // The SDK's McpServer advertises listChanged true for the tools and resources it handles. The catalog is fixed
  // for a connection; the contributed tools (remote-tools.ts) are not, and a session that lists them and outlives
  // one request is told when they move (at once, by the family's notifier topic). A one-request server (stateless
  // HTTP) never is.
  mcp.server.registerCapabilities({ tools: { listChanged }, resources: { listChanged: false } });
  return mcp;
}
