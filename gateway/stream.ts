import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { ApiError, ERROR_STATUS } from '../protocol/errors.js';
import { matchKind, kindMatches } from '../protocol/events.js';
import { errorFrame } from '../protocol/frames.js';
import { ledgerReadContracts } from '../protocol/reads/ledger.js';
import { tierScopeNote } from '../protocol/scopes.js';
import { authenticateKeyId, bearerFrom, type Principal } from '../domain/core/auth.js';
import { refuseBeyondHead } from '../domain/ledger-reads.js';
import type { Runtime } from '../domain/deployed.js';
import { watchAccess } from '../domain/stream/access-watch.js';
import type { FeedEvent, Subscription } from '../domain/stream/hub.js';
import type { EventFilter } from '../domain/stream/visibility.js';
import type { LiveFrames } from '../domain/stream/live.js';
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
 * of GET /events: family scope, then per-event visibility of access-controlled rows, domain/stream/visibility.ts),
 * `id:` its seq and `data:` its JSON exactly as GET /events shows it (no `event:` line: every frame is a `message`,
 * its kind is in the data). `Last-Event-ID` (or `?after=`, which the header overrides, as a browser's EventSource
 * resends its first URL) resumes strictly after that seq: the backlog from the ledger, then live, with no gap or
 * duplicate; a seq beyond the org's head is refused (BAD_REQUEST naming the field and the head). Optional `family`
 * and `kind` as on /events. The stream ends as soon as its key stops authenticating (revoked, member suspended or
 * deactivated, org deleted: access-watch.ts, in every process), and its view follows a change of the key's scopes.
 */
export async function streamRoutes(app: FastifyInstance, opts: StreamRouteOptions & { runtime: Runtime }) {
  const { pipeline, deps } = opts.runtime;
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const maxBuffered = opts.maxBufferedFrames ?? 1000;
  const open = new Set<(comment: string) => void>();
  /** Open streams by their key, re-checked at once when the database says their access changed. */
  const holders = new Set<{ orgId: string; principalId: string; keyId: string; recheck: () => void }>();
  const stopWatch = watchAccess(
    deps.notifier,
    () => holders,
    (h) => h.recheck(),
  );

  app.get(STREAM_PATH, async (req: FastifyRequest, reply) => {
    let principal: Principal;
    let after: number | undefined;
    let field = 'after';
    let query: z.output<typeof StreamQuery>;
    try {
      principal = await pipeline.principalFor(bearerFrom(req.headers.authorization));
      if (!principal.scopes.has(READ_SCOPE))
        throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${READ_SCOPE} for ${STREAM_PATH}${tierScopeNote(principal.tier)}`);
      const parsed = StreamQuery.safeParse(req.query ?? {});
      if (!parsed.success)
        throw new ApiError('BAD_REQUEST', `query: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'query'}: ${i.message}`).join('; ')}`);
      query = parsed.data;
      const header = req.headers['last-event-id'];
      if (header !== undefined && header !== '') {
        const id = LastEventId.safeParse(header);
        if (!id.success) throw new ApiError('BAD_REQUEST', 'last-event-id: must be a seq (a non-negative integer)');
        after = id.data;
        field = 'last-event-id';
      } else after = query.after;
      if (after !== undefined && after > 0) await refuseBeyondHead(deps.db, principal.orgId, field, after);
    } catch (err) {
      if (err instanceof ApiError) return fail(reply, err);
      throw err;
    }

    // A kind asked for finds the events appended under its earlier names too (protocol/events.ts).
    const kind = query.kind === undefined ? undefined : matchKind(query.kind);
    const asked = (e: FeedEvent) =>
      (query.family === undefined || e.row.family === query.family) && (kind === undefined || kindMatches(kind, e.row.family, e.row.kind));
    // The principal's view, kept across batches (it caches what it read until an event may change access).
    let view: EventFilter = deps.events.reader(deps.db, principal, { cache: true });

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

    /** The frames of a batch: what was asked for, of what the principal may see (every batch goes to the view). */
    const frames = async (events: readonly FeedEvent[]): Promise<{ text: string; count: number }> => {
      const byRow = new Map(events.map((e) => [e.row, e]));
      const shown = await view.visible(events.map((e) => e.row));
      let text = '';
      let count = 0;
      for (const row of shown) {
        const e = byRow.get(row)!;
        if (!asked(e)) continue;
        text += `id: ${e.row.seq}\ndata: ${e.json}\n\n`;
        count++;
      }
      return { text, count };
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
      for (const stop of stopLive) stop();
      subscription?.close();
      open.delete(end);
      holders.delete(holder);
    };
    open.add(end);
    req.raw.once('close', cleanup);

    // Every batch is checked in order, one after the other (the view may query). The backlog waits for the socket
    // to drain; live batches never wait, events waiting to be checked count as behind, and a client too far behind
    // is let go.
    let queue: Promise<void> = Promise.resolve();
    let waiting = 0;
    const catchUp = (events: readonly FeedEvent[]) =>
      (queue = queue.then(async () => {
        const { text } = await frames(events);
        if (closed || text === '' || res.write(text)) return;
        await new Promise<void>((done) => {
          res.once('drain', done);
          res.once('close', done);
        });
      }));
    const live = (events: readonly FeedEvent[]) => {
      waiting += events.length;
      queue = queue.then(async () => {
        let out: { text: string; count: number } | undefined;
        try {
          out = closed ? undefined : await frames(events);
        } catch (err) {
          req.log.error({ err }, 'stream: checking what the key may see failed');
          end('end: the server could not check what this key may see; reconnect with Last-Event-ID to resume');
        }
        waiting -= events.length;
        if (closed || !out || out.text === '') return;
        if (!res.writableNeedDrain) behind = 0;
        else behind += out.count;
        res.write(out.text);
        if (behind > maxBuffered) end(`end: more than ${maxBuffered} frames behind; reconnect with Last-Event-ID to resume`);
      });
      if (waiting > maxBuffered * 10) end(`end: more than ${maxBuffered * 10} events waiting to be checked; reconnect with Last-Event-ID to resume`);
    };

    // The key is checked again at every heartbeat and at once when the database says its access changed: a key
    // that no longer authenticates ends the stream; changed scopes give a new view (in order with the batches).
    let checking = false;
    let again = false;
    const check = (heartbeatAfter: boolean) => {
      if (closed) return;
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      authenticateKeyId(deps.db, principal.orgId, principal.keyId).then(
        (now) => {
          checking = false;
          if (closed) return;
          if (!sameScopes(now, principal)) {
            principal = now;
            queue = queue.then(() => {
              view = deps.events.reader(deps.db, now, { cache: true });
            });
            if (!now.scopes.has(READ_SCOPE)) return end(`end: the key no longer holds ${READ_SCOPE}`);
          }
          if (heartbeatAfter) res.write(': heartbeat\n\n');
          if (again) {
            again = false;
            check(false);
          }
        },
        (err: Error) => {
          checking = false;
          if (err instanceof ApiError && err.code === 'UNAUTHORIZED') end('end: the key is no longer valid (revoked, or its member suspended or deactivated)');
          else req.log.warn({ err }, 'stream: key check failed');
        },
      );
    };
    // Contributed frames (domain/stream/live.ts), in order with the batches; not filtered by family or kind.
    const stopLive = deps.families.contributions('liveFrames').map(({ value }: { value: LiveFrames }) =>
      deps.notifier.subscribe(value.topic, (m) => {
        if (m.orgId !== principal.orgId || query.family !== undefined || query.kind !== undefined) return;
        queue = queue.then(async () => {
          const data = closed ? null : await value.frame(deps.db, principal, m).catch(() => null);
          if (data && !closed) res.write(`event: ${value.event}\ndata: ${JSON.stringify(data)}\n\n`);
        });
      }),
    );
    const heartbeat = setInterval(() => check(true), heartbeatMs);
    heartbeat.unref();
    const holder = { orgId: principal.orgId, principalId: principal.id, keyId: principal.keyId, recheck: () => check(false) };
    holders.add(holder);

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
    stopWatch();
    for (const end of [...open]) end('end: the server is shutting down; reconnect to resume');
  });
}

const sameScopes = (a: Principal, b: Principal): boolean => a.scopes.size === b.scopes.size && [...a.scopes].every((s) => b.scopes.has(s));
