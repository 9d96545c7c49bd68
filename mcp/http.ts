import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../protocol/errors.js';
import { errorFrame } from '../protocol/frames.js';
import { SCOPES } from '../protocol/scopes.js';
import { bearerFrom, type Principal } from '../domain/core/auth.js';
import type { Pipeline } from '../domain/core/pipeline.js';
import { acceptedOrigins } from './config.js';
import { JsonPostTransport, type JsonAnswer } from './json-post.js';
import { META_TOOL_NAMES } from './meta-tools.js';
import { createMcpServer } from './server.js';
import { sessionSelection } from './persona.js';
import { parseSelection, SelectionError, type Selection } from './toolsets.js';

/*
 * Streamable HTTP at /mcp, as a fastify plugin the composition root registers on the gateway.
 *
 * Stateless: every POST authenticates its Authorization header, builds a server for that key's principal
 * and selection, answers with one JSON body (json-post.ts), and is done. Nothing lives between requests, so
 * any number of gateway processes behind a load balancer serve /mcp as they serve /api/v1 (the architecture's
 * stateless gateway), a revoked key stops at its next request, and there is no session table to expire or
 * leak. The cost: no server-to-client requests across requests, so URL elicitation is offered over stdio only;
 * over HTTP the hold result carries the same URL and next step.
 *
 * Toolsets and modes come from headers: x-mcp-toolsets, x-mcp-readonly, x-mcp-tools, x-mcp-exclude-tools.
 * A browser's Origin must be this server's own or a configured one (the MCP spec's DNS-rebinding rule):
 * a page on another site must not drive a local server with the user's key.
 */

export interface McpHttpOptions {
  pipeline: Pipeline;
  /** Base URL clients and humans use; defaults to the domain config's publicUrl. Its origin may call /mcp. */
  publicUrl?: string;
  /** Other browser origins allowed to call /mcp (MCP_ALLOWED_ORIGINS). */
  allowedOrigins?: readonly string[];
  /** Serve human decisions (approval.resolve) as tools (MCP_ALLOW_DECISIONS). */
  humanDecisions?: boolean;
}

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

const header = (req: FastifyRequest, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
};

export function selectionFromHeaders(req: FastifyRequest): Selection {
  return parseSelection(
    {
      toolsets: header(req, 'x-mcp-toolsets'),
      readOnly: header(req, 'x-mcp-readonly'),
      include: header(req, 'x-mcp-tools'),
      exclude: header(req, 'x-mcp-exclude-tools'),
    },
    META_TOOL_NAMES,
  );
}

const jsonRpcError = (reply: FastifyReply, status: number, code: number, message: string) =>
  reply.code(status).type('application/json').send({ jsonrpc: '2.0', error: { code, message }, id: null });

/** As the SDK's Node transport wrote it: JSON with its length, or a 202 with no body. */
function writeAnswer(reply: FastifyReply, answer: JsonAnswer): void {
  if (answer.body === undefined) {
    reply.raw.writeHead(answer.status, {}).end();
    return;
  }
  reply.raw.writeHead(answer.status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer.body) }).end(answer.body);
}

export async function mcpHttp(app: FastifyInstance, opts: McpHttpOptions): Promise<void> {
  const publicUrl = (opts.publicUrl ?? opts.pipeline.deps.config.publicUrl).replace(/\/$/, '');
  const resourceMetadataUrl = `${publicUrl}${RESOURCE_METADATA_PATH}`;
  // RFC 9728 protected-resource metadata. The bearer tokens are this server's API keys (minted by an admin,
  // or obtained by pairing), so no authorization server is named.
  const metadata = {
    resource: `${publicUrl}${MCP_PATH}`,
    resource_name: 'Workspace operations MCP server',
    bearer_methods_supported: ['header'],
    scopes_supported: SCOPES,
    resource_documentation: `${publicUrl}/`,
  };
  const serveMetadata = async () => metadata;
  app.get(RESOURCE_METADATA_PATH, serveMetadata);
  app.get(`${RESOURCE_METADATA_PATH}${MCP_PATH}`, serveMetadata);

  const unauthorized = (reply: FastifyReply, err: ApiError, keyGiven: boolean) =>
    reply
      .code(401)
      .header('www-authenticate', `Bearer resource_metadata="${resourceMetadataUrl}"${keyGiven ? ', error="invalid_token"' : ''}`)
      .send(errorFrame('UNAUTHORIZED', err.message));

  const origins = acceptedOrigins(publicUrl, opts.allowedOrigins ?? []);
  const checkOrigin = async (req: FastifyRequest, reply: FastifyReply) => {
    const origin = header(req, 'origin');
    if (origin === undefined || origins.has(origin)) return;
    return jsonRpcError(
      reply,
      403,
      -32000,
      `Forbidden: Origin ${origin.slice(0, 100)} may not call ${MCP_PATH} (allowed: ${[...origins].join(', ')}; set MCP_ALLOWED_ORIGINS to add one)`,
    );
  };

  app.post(MCP_PATH, { onRequest: checkOrigin }, async (req, reply) => {
    const apiKey = bearerFrom(req.headers.authorization);
    let principal: Principal;
    try {
      principal = await opts.pipeline.principalFor(apiKey);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'UNAUTHORIZED') return unauthorized(reply, err, apiKey !== undefined);
      throw err;
    }
    let selection: Selection;
    try {
      selection = await sessionSelection(opts.pipeline, principal, selectionFromHeaders(req));
    } catch (err) {
      if (err instanceof SelectionError) return reply.code(400).send(errorFrame('BAD_REQUEST', err.message));
      throw err;
    }
    if (req.body === undefined) return jsonRpcError(reply, 400, -32700, 'Parse error: empty body');

    let server: ReturnType<typeof createMcpServer>;
    try {
      server = createMcpServer({
        pipeline: opts.pipeline,
        apiKey: apiKey as string,
        principal,
        principalIsFresh: true,
        selection,
        publicUrl,
        humanDecisions: opts.humanDecisions,
      });
    } catch (err) {
      if (err instanceof SelectionError) return reply.code(400).send(errorFrame('BAD_REQUEST', err.message));
      throw err;
    }
    const transport = new JsonPostTransport();
    reply.hijack();
    // A client gone before its answer: abort the handlers still running. After a complete answer none is (a
    // JSON answer is sent once every request in it is answered), so there is nothing to close.
    reply.raw.on('close', () => {
      if (reply.raw.writableFinished) return;
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      writeAnswer(reply, await transport.handle(req.headers, req.body));
    } catch (err) {
      req.log.error({ err }, 'mcp request failed');
      if (!reply.raw.headersSent) {
        reply.raw
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
      }
    }
  });

  // Stateless: no standalone SSE stream to open and no session to delete.
  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    jsonRpcError(reply.header('allow', 'POST'), 405, -32000, 'Method not allowed: this server is stateless; POST JSON-RPC to /mcp');
  app.get(MCP_PATH, { onRequest: checkOrigin }, notAllowed);
  app.delete(MCP_PATH, { onRequest: checkOrigin }, notAllowed);
}
