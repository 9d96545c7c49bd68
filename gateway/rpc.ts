import type { FastifyInstance, FastifyReply } from 'fastify';
import { bearerFrom } from '../domain/auth.js';
import type { Pipeline } from '../domain/pipeline.js';

/** `{ params: {...} }`, or a bare params object as the whole body (the spec accepts both). */
export function paramsFromBody(body: unknown): unknown {
  if (body === undefined || body === null) return {};
  if (typeof body === 'object' && !Array.isArray(body)) {
    const keys = Object.keys(body);
    if (keys.length === 1 && keys[0] === 'params') return (body as { params: unknown }).params;
  }
  return body;
}

const sendJson = (reply: FastifyReply, status: number, body: string) =>
  reply.code(status).type('application/json; charset=utf-8').send(body);

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

  const get = async (path: string, req: { query: unknown; headers: { authorization?: string }; id: string; raw: NodeJS.EventEmitter }, reply: FastifyReply) => {
    const aborted = new AbortController();
    req.raw.once('close', () => aborted.abort());
    const outcome = await pipeline.read({ path, query: req.query, apiKey: bearerFrom(req.headers.authorization), requestId: req.id, signal: aborted.signal });
    return sendJson(reply, outcome.status, outcome.body);
  };

  app.get<{ Params: { read: string } }>('/api/v1/:read', (req, reply) => get(req.params.read, req, reply));
  app.get('/api/v1/org/whoami', (req, reply) => get('org/whoami', req, reply));
}
