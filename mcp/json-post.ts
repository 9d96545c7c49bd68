import type { IncomingHttpHeaders } from 'node:http';
import { MAX_BATCH_SIZE } from '@modelcontextprotocol/sdk/server/requestBody.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/*
 * One stateless Streamable HTTP POST answered with one JSON body: what the SDK's
 * WebStandardStreamableHTTPServerTransport does without sessions and with enableJsonResponse (the same checks
 * in the same order, the same statuses and JSON-RPC errors; tests/mcp/json-post.test.ts runs both on the same
 * requests), but on the body fastify has parsed and the Node headers. The SDK's Node transport turns every
 * request into a Web Request and reads its answer back out of a Web Response; that round trip and its
 * bookkeeping were about a third of the MCP face's CPU per tool call. A server is connected to one per POST.
 */

/** What to write back: a status and, except for 202, a JSON-RPC body. */
export interface JsonAnswer {
  status: number;
  body?: string;
}

const rpcError = (status: number, code: number, message: string, data?: unknown): JsonAnswer => ({
  status,
  body: JSON.stringify({ jsonrpc: '2.0', error: data === undefined ? { code, message } : { code, message, data }, id: null }),
});

/** A header as a Web `Headers.get` gives it: repeated values joined, absent as undefined. */
const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

function parseMessages(body: unknown): JSONRPCMessage[] | undefined {
  try {
    return (Array.isArray(body) ? body : [body]).map((m) => JSONRPCMessageSchema.parse(m));
  } catch {
    return undefined;
  }
}

export class JsonPostTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  private closed = false;
  /** The POST's requests in order, each with its response once the server has sent it. */
  private readonly responses = new Map<RequestId, JSONRPCMessage | undefined>();
  private answered?: (answer: JsonAnswer) => void;

  async start(): Promise<void> {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    // A JSON answer carries responses only: notifications and requests to the client are dropped, as the SDK does.
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
    const id = message.id as RequestId;
    if (!this.responses.has(id)) throw new Error(`No connection established for request ID: ${String(id)}`);
    this.responses.set(id, message);
    const all = [...this.responses.values()];
    if (all.includes(undefined)) return;
    this.answered?.({ status: 200, body: JSON.stringify(all.length === 1 ? all[0] : all) });
  }

  /** Check and dispatch one POST; resolves when every request in it is answered (202 at once when none is). */
  async handle(headers: IncomingHttpHeaders, body: unknown): Promise<JsonAnswer> {
    const extra: MessageExtraInfo = { requestInfo: { headers } };
    let messages: JSONRPCMessage[] | undefined;
    try {
      const accept = header(headers, 'accept');
      if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
        return rpcError(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream');
      }
      if (!isJsonContentType(header(headers, 'content-type') ?? null)) {
        return rpcError(415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      }
      if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
        return rpcError(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
      }
      messages = parseMessages(body);
      if (!messages) return rpcError(400, -32700, 'Parse error: Invalid JSON-RPC message');
      // A schema parse that fails builds an error: only a message named initialize can be one.
      const initializing = messages.some((m) => 'method' in m && m.method === 'initialize' && isInitializeRequest(m));
      if (initializing && messages.length > 1) {
        return rpcError(400, -32600, 'Invalid Request: Only one initialization request is allowed');
      }
      const version = header(headers, 'mcp-protocol-version');
      if (!initializing && version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        return rpcError(400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')})`);
      }
      if (!messages.some(isJSONRPCRequest)) {
        for (const m of messages) this.onmessage?.(m, extra);
        return { status: 202 };
      }
      for (const m of messages) if (isJSONRPCRequest(m)) this.responses.set(m.id, undefined);
    } catch (err) {
      return rpcError(400, -32700, 'Parse error', String(err));
    }
    const requests = messages;
    return new Promise((resolve) => {
      this.answered = resolve;
      for (const m of requests) this.onmessage?.(m, extra);
    });
  }
}
