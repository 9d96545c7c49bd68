import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { bearerFrom } from '../domain/core/auth.js';
import type { Pipeline } from '../domain/core/pipeline.js';
import { STATIC_READS } from '../protocol/registry.js';

/** `{ params: {...} }`, or a bare params object as the whole body (the spec accepts both). */
export function paramsFromBody(body: unknown): unknown {
  if (body === undefined || body === null) return {};
  if (typeof body === 'object' && !Array.isArray(body)) {
    const keys = Object.keys(body);
    if (keys.length === 1 && keys[0] === 'params') return (body as { params: unknown }).params;
  }
  return body;
}

/** An org read's ETag: a hash of exactly the bytes sent, so any change to them is a new tag. */
const etagOf = (body: string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;

/** If-None-Match (RFC 9110 13.1.2): weak comparison, a list of tags, or *. */
const matchesEtag = (header: string | undefined, tag: string) =>
  header !== undefined && header.split(',').some((t) => t.trim() === '*' || t.trim().replace(/^W\//, '') === tag);

const sendJson = (reply: FastifyReply, status: number, body: string) => reply.code(status).type('application/json; charset=utf-8').send(body);

/** POST /api/v1/{family}.{method} and GET /api/v1/{read}: thin adapters over the pipeline. */
export async function rpcRoutes(app: FastifyInstance, opts: { pipeline: Pipeline }) {
  const { pipeline } = opts;

  app.post<{ Params: { method: string } }>('/api/v1/:method', async (req, reply) => {
    const key = req.headers['x-idempotency-key'];
    const outcome = await pipeline.call({
      method: req.params.method,
      params: paramsFromBody(req.body),
      apiKey: bearerFrom(req.headers.authorization),
      idempotencyKey: Array.isArray(key) ? key[0] : key,
      source: req.ip,
      requestId: req.id,
    });
    if (outcome.replayed) reply.header('idempotent-replay', 'true');
    if (outcome.retryAfterSeconds !== undefined) reply.header('retry-after', String(outcome.retryAfterSeconds));
    return sendJson(reply, outcome.status, outcome.body);
  });

  const get = async (
    path: string,
    req: { query: unknown; headers: { authorization?: string; 'if-none-match'?: string }; id: string; raw: NodeJS.EventEmitter },
    reply: FastifyReply,
    opts: { etag?: boolean; query?: unknown } = {},
  ) => {
    const aborted = new AbortController();
    req.raw.once('close', () => aborted.abort());
    const outcome = await pipeline.read({
      path,
      query: opts.query ?? req.query,
      apiKey: bearerFrom(req.headers.authorization),
      requestId: req.id,
      signal: aborted.signal,
    });
    if (outcome.status === 200 && opts.etag) {
      const tag = etagOf(outcome.body);
      reply.header('etag', tag).header('cache-control', 'private, no-cache');
      if (matchesEtag(req.headers['if-none-match'], tag)) return reply.code(304).send();
    }
    if (outcome.headers) return reply.code(outcome.status).headers(outcome.headers).send(outcome.body);
    return sendJson(reply, outcome.status, outcome.body);
  };

  app.get<{ Params: { read: string } }>('/api/v1/:read', (req, reply) => get(req.params.read, req, reply));
  // The org reads (/api/v1/org/*), one route each; `{name}` in a path is a parameter handed to the read with the query.
  for (const spec of STATIC_READS.values()) {
    app.get<{ Params: Record<string, string> }>(`/api/v1/${spec.path.replace(/\{(\w+)\}/g, ':$1')}`, (req, reply) =>
      get(spec.path, req, reply, { etag: true, query: { ...(req.query as object), ...req.params } }),
    );
  }
}
