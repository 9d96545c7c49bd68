import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Principal } from '../domain/core/auth.js';
import type { Pipeline } from '../domain/core/pipeline.js';
import type { Catalog } from './catalog.js';
import type { ExtraListing } from './remote-tools.js';
import type { Selection } from './toolsets.js';

/** One MCP connection's view of the domain: the key it acts as and what it lists. */
export interface McpSession {
  pipeline: Pipeline;
  /** The bearer secret: every request re-authenticates with it, so a revoked key stops at once. */
  apiKey: string;
  selection: Selection;
  catalog: Catalog;
  /** Base URL humans use: approval links point here. */
  publicUrl: string;
  /** The SDK server, for client capabilities and elicitation. */
  server: Server;
  /** How long a URL elicitation stays open for the client's answer (in the background: a hold never waits for it). */
  elicitationTimeoutMs: number;
  /** Approvals whose URL elicitation is still open in this session: a retried hold does not ask again. */
  openElicitations: Set<string>;
  /** Set when the server serves one request whose key was just authenticated: no need to authenticate again. */
  freshPrincipal?: Principal;
  /** The contributed tools this session last listed (mcp/remote-tools.ts). */
  extraListing?: ExtraListing;
}

/** One tool call: who is calling (authenticated for this call) and how to abandon it. */
export interface ToolCall {
  principal: Principal;
  signal: AbortSignal;
  requestId: string;
}

/** What the session's pipeline calls carry: its key, and the principal when this request has just authenticated it. */
export const credential = (session: McpSession): { apiKey: string; principal?: Principal } => ({
  apiKey: session.apiKey,
  principal: session.freshPrincipal,
});
