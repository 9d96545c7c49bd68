import type { ServerOptions } from 'node:http';

/*
 * How long one client may hold a connection of the HTTP server: to send its request, or idle. They bound
 * receiving a request, never answering it: a long-poll (approval.wait, up to 50 s) and the inbox's event
 * stream are not cut short.
 */

export interface HttpTimeouts {
  /** Whole request (headers and body) received within this; else 408 and the connection closes. 0 = off. */
  requestMs: number;
  /** Headers received within this (also a connection that sends nothing). At most requestMs. */
  headersMs: number;
  /** A connection with no traffic either way for this long is closed (a client that stops reading). 0 = off. */
  idleMs: number;
  /** A kept-alive connection waits this long for its next request. */
  keepAliveMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = { requestMs: 30_000, headersMs: 10_000, idleMs: 90_000, keepAliveMs: 5_000 };

/** fastify's options for the timeouts. */
export function timeoutOptions(t: HttpTimeouts): { requestTimeout: number; connectionTimeout: number; keepAliveTimeout: number; http: ServerOptions } {
  const headersMs = t.requestMs > 0 ? Math.min(t.headersMs, t.requestMs) : t.headersMs;
  return {
    requestTimeout: t.requestMs,
    connectionTimeout: t.idleMs,
    keepAliveTimeout: t.keepAliveMs,
    // Node checks those two deadlines every connectionsCheckingInterval (default 30 s, which would let a slow
    // client overstay by as much): check often enough that they hold to within a quarter.
    http: {
      headersTimeout: headersMs,
      connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(Math.min(headersMs, t.requestMs || headersMs) / 4))),
    },
  };
}
