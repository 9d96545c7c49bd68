import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { ApiError, ERROR_STATUS } from '../protocol/errors.js';
import { errorFrame } from '../protocol/frames.js';
import { ledgerReadContracts } from '../protocol/reads/ledger.js';
import { authenticateKeyId, bearerFrom, type Principal } from '../domain/auth.js';
import { hiddenFamilies } from '../domain/ledger-reads.js';
import type { Runtime } from '../domain/runtime.js';
import type { FeedEvent, Subscription } from '../domain/stream/hub.js';
import { startEventStream } from './sse.js';

export interface StreamRouteOptions {
  /** A comment line this often keeps proxies from closing an idle stream; the key is checked again then (default 15 s). */
  heartbeatMs?: number;
  /** Frames a client that stopped reading may fall behind by before it is disconnected (default 1,000). */
  maxBufferedFrames?: number;
}

export const STREAM_PATH = '/api/v1/org/stream';
const READ_SCOPE = 'org.read';
const RETRY_MS = 3000;

const eventsQuery = ledgerReadContracts.events.query.shape;
const StreamQuery = z.strictObject({
  after: z.coerce.number().int().min(0).optional(),
  family: eventsQuery.family,
  kind: eventsQuery.kind,
});
const LastEventId = z.coerce.number().int().min(0);

function fail(reply: FastifyReply, err: ApiError) {
  return reply.code(ERROR_STATUS[err.code]).header('cache-control', 'no-store').send(errorFrame(err.code, err.message));
}

/**
 * GET /api/v1/org/stream: the org's ledger as Server-Sent Events, each frame one event the key may see (the rule
 * of GET /events: domain/ledger-reads.ts hiddenFamilies), `id:` its seq and `data:` its JSON exactly as GET /events
 * shows it (no `event:` line: every frame is a `message`, its kind is in the data). `Last-Event-ID` (or `?after=`,
 * which the header overrides, as a browser's EventSource resends its first URL) resumes strictly after that seq:
 * the backlog from the ledger, then live, with no gap or duplicate. Optional `family` and `kind` as on /events.
 */
export async function streamRoutes(app: FastifyInstance, opts: StreamRouteOptions & { runtime: Runtime }) {
  const { pipeline, deps } = opts.runtime;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxBuffered = opts.maxBufferedFrames ?? 1000;
  const open = new Set<(comment: string) => void>();

  app.get(STREAM_PATH, async (req: FastifyRequest, reply) => {
    let principal: Principal;
    let after: number | undefined;
    let query: z.output<typeof StreamQuery>;
    try {
      principal = await pipeline.principalFor(bearerFrom(req.headers.authorization));
      if (!principal.scopes.has(READ_SCOPE)) throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${READ_SCOPE} for ${STREAM_PATH}`);
      const parsed = StreamQuery.safeParse(req.query ?? {});
      if (!parsed.success) throw new ApiError('BAD_REQUEST', `query: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ')}`);
      query = parsed.data;
      const header = req.headers['last-event-id'];
      if (header !== undefined && header !== '') {
        const id = LastEventId.safeParse(header);
        if (!id.success) throw new ApiError('BAD_REQUEST', 'last-event-id: must be a seq (a non-negative integer)');
        after = id.data;
      } else after = query.after;
    } catch (err) {
      if (err instanceof ApiError) return fail(reply, err);
      throw err;
    }

    const hidden = new Set(hiddenFamilies(principal));
    const wanted = (e: FeedEvent) =>
      !hidden.has(e.row.family) && (query.family === undefined || e.row.family === query.family) && (query.kind === undefined || e.row.kind === query.kind);

    reply.hijack();
    const res: ServerResponse = reply.raw;
    startEventStream(res);
    res.write(`retry: ${RETRY_MS}\n\n`);

    let closed = false;
    let subscription: Subscription | undefined;
    /**
     * Frames written while the socket's buffers were full (the kernel's, then 16 KiB here): how far a client that
     * stopped reading has fallen behind. A burst the socket takes at once does not count.
     */
    let behind = 0;
    res.on('drain', () => (behind = 0));

    const frames = (events: readonly FeedEvent[]) => {
      let text = '';
      for (const e of events) if (wanted(e)) text += `id: ${e.row.seq}\ndata: ${e.json}\n\n`;
      return text;
    };
    const end = (comment: string) => {
      if (closed) return;
      cleanup();
      res.end(`: ${comment}\n\n`);
      // A client that does not read would hold the socket (and its buffer) open: cut it after a grace.
      setTimeout(() => res.destroy(), 30_000).unref();
    };
    const cleanup = () => {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      subscription?.close();
      open.delete(end);
    };
    open.add(end);
    req.raw.once('close', cleanup);

    // The backlog waits for the socket to drain; live batches never wait, and a client too far behind is let go.
    const catchUp = async (events: readonly FeedEvent[]) => {
      const text = frames(events);
      if (closed || text === '' || res.write(text)) return;
      await new Promise<void>((done) => {
        res.once('drain', done);
        res.once('close', done);
      });
    };
    const live = (events: readonly FeedEvent[]) => {
      const text = frames(events);
      if (closed || text === '') return;
      if (!res.writableNeedDrain) behind = 0;
      else behind += events.filter(wanted).length;
      res.write(text);
      if (behind > maxBuffered) end(`end: more than ${maxBuffered} frames behind; reconnect with Last-Event-ID to resume`);
    };

    let checking = false;
    const heartbeat = setInterval(() => {
      if (checking || closed) return;
      checking = true;
      authenticateKeyId(deps.db, principal.orgId, principal.keyId).then(
        () => {
          checking = false;
          if (!closed) res.write(': heartbeat\n\n');
        },
        (err: Error) => {
          checking = false;
          if (err instanceof ApiError && err.code === 'UNAUTHORIZED') end('end: the key is no longer valid (revoked?)');
          else req.log.warn({ err }, 'stream: key check failed');
        },
      );
    }, heartbeatMs);
    heartbeat.unref();

    let liveNow = false;
    try {
      subscription = await deps.stream.subscribe(principal.orgId, after, (events) => (liveNow ? live(events) : catchUp(events)));
      liveNow = true;
      if (closed) subscription.close();
      else res.write(`: live after ${subscription.cursor}\n\n`);
    } catch (err) {
      req.log.error({ err }, 'stream: subscribing failed');
      end('end: the server could not read the ledger; reconnect to resume');
    }
    return reply;
  });

  // Open streams would keep the server from closing.
  app.addHook('preClose', async () => {
    for (const end of [...open]) end('end: the server is shutting down; reconnect to resume');
  });
}
