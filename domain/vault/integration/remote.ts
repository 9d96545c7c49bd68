import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../../../protocol/errors.js';
import { canonicalJson, sha256Hex } from '../../../protocol/hashing.js';
import { guardedFetch } from './guard.js';

/*
 * Talking to a remote MCP server with the SDK's Client over Streamable HTTP, through the guarded fetch. The
 * credential goes only into the transport's request headers. Definitions are pinned as the SHA-256 of their
 * canonical JSON (name, title, description, input and output schema, annotations), so any change to what a model
 * would read about a tool moves its pin.
 */

export interface Target {
  url: URL;
  headers: Record<string, string>;
  allowHosts: readonly string[];
}

export interface RemoteTool {
  name: string;
  definition: Record<string, unknown>;
  sha256: string;
  readOnly: boolean;
}

export type Failure = 'timeout' | 'unreachable' | 'auth_failed';

/** A remote failure, classified, with a message that names no secret (the caller scrubs it again). */
export class RemoteError extends Error {
  constructor(
    readonly status: Failure,
    message: string,
  ) {
    super(message);
  }
}

export function classify(err: unknown): RemoteError {
  if (err instanceof RemoteError) return err;
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof UnauthorizedError || (err instanceof StreamableHTTPError && (err.code === 401 || err.code === 403)) || /\b(401|403)\b/.test(message)) {
    return new RemoteError('auth_failed', 'the server refused the credential (HTTP 401/403)');
  }
  if ((err instanceof McpError && err.code === (ErrorCode.RequestTimeout as number)) || /timed? ?out/i.test(message)) {
    return new RemoteError('timeout', 'the server did not answer in time');
  }
  const cause = (err as { cause?: { message?: string } }).cause?.message;
  return new RemoteError('unreachable', `the server could not be reached or did not speak MCP: ${(cause ?? message).slice(0, 200)}`);
}

export function pinOf(tool: Record<string, unknown>): RemoteTool {
  const definition: Record<string, unknown> = {};
  for (const k of ['name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations']) if (tool[k] !== undefined) definition[k] = tool[k];
  const annotations = (tool.annotations ?? {}) as { readOnlyHint?: boolean };
  return { name: String(tool.name), definition, sha256: sha256Hex(canonicalJson(definition)), readOnly: annotations.readOnlyHint === true };
}

/** A client session with the server (initialize done); the caller closes it. */
export async function openClient(target: Target, timeoutMs: number): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(target.url, {
    requestInit: { headers: target.headers },
    fetch: guardedFetch(target.allowHosts),
    reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 1000, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1 },
  });
  const client = new Client({ name: 'workspace-ops', version: '1.0.0' });
  try {
    await client.connect(transport, { timeout: timeoutMs });
  } catch (err) {
    await client.close().catch(() => {});
    throw err;
  }
  return client;
}

/** Open a client, run fn, close (connect's one-off listing; invokeTool keeps sessions in pool.ts). Every request is bounded by timeoutMs. */
export async function withClient<T>(target: Target, timeoutMs: number, fn: (client: Client) => Promise<T>): Promise<T> {
  let client: Client | undefined;
  try {
    client = await openClient(target, timeoutMs);
    return await fn(client);
  } catch (err) {
    // The caller's own refusals (a pin that no longer matches) pass as they are.
    if (err instanceof ApiError) throw err;
    throw classify(err);
  } finally {
    await client?.close().catch(() => {});
  }
}

/** Every tool the server lists (tools/list, paged), at most `max`; more is an error. */
export async function listTools(client: Client, timeoutMs: number, max: number): Promise<RemoteTool[]> {
  const out: RemoteTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : {}, { timeout: timeoutMs });
    for (const t of page.tools) out.push(pinOf(t));
    if (out.length > max) throw new RemoteError('unreachable', `the server lists more than ${max} tools`);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
