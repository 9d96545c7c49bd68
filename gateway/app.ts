import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { errorFrame } from '../protocol/frames.js';
import { reservedKeyIssue } from '../protocol/json-bounds.js';
import type { Runtime } from '../domain/deployed.js';
import { registerRateLimit } from './rate-limit.js';
import { DEFAULT_TIMEOUTS, timeoutOptions, type HttpTimeouts } from './timeouts.js';
import type { RequestLog } from './request-log.js';
import { rpcRoutes } from './rpc.js';
import { docsRoutes } from './docs.js';
import { booksImportRoutes } from './books-import.js';
import { blobRoutes } from './blobs.js';
import { inboxRoutes, type InboxOptions } from './inbox/index.js';
import { joinRoutes } from './join.js';
import { shareRoutes } from './share.js';
import { dealRoomRoutes } from './deal-room.js';
import { calendarFeedRoutes } from './calendar-feed.js';
import { streamRoutes, type StreamRouteOptions } from './stream.js';
import { SCIM_PREFIX, scimRoutes } from './scim/index.js';
import { livekitWebhookRoutes } from './livekit-webhook.js';

export interface GatewayOptions {
  runtime: Runtime;
  /** pino options, `false` for silence (tests). Authorization headers are always redacted. */
  logger?: FastifyServerOptions['logger'];
  /** Default `line`. */
  requestLog?: RequestLog;
  /** Requests per minute per credential (or per address without one); 0 turns throttling off. */
  rateLimitPerMinute?: number;
  /** Redis shared by every process for the rate limits (REDIS_URL); unset = each process counts alone. */
  redisUrl?: string;
  /** How long a client may take to send its request or keep a connection idle (gateway/timeouts.ts). */
  timeouts?: Partial<HttpTimeouts>;
  /** Proxies (addresses or CIDRs) whose X-Forwarded-For names the caller; unset = the socket's address. */
  trustProxy?: string[];
  bodyLimitBytes?: number;
  /** Approval inbox settings (session lifetimes, stream heartbeat); tests shorten them. */
  inbox?: Omit<InboxOptions, 'runtime'>;
  /** The live event stream's heartbeat and slow-client limit (gateway/stream.ts). */
  stream?: StreamRouteOptions;
}

const REDACT = ['req.headers.authorization', 'req.headers["x-api-key"]', 'req.headers.cookie'];

/**
 * Query values that are never logged: a signed URL's signature (blob downloads) and an invitation link's token (/join)
 * are bearer credentials; search words (`q`), SCIM filters and the like carry names and addresses, which must stay
 * erasable (docs/security.md, Free text stays out of the ledger), so they stay out of logs too.
 */
const REDACTED_QUERY = /([?&](?:sig|token|t|q|filter|email|name|question)=)[^&#]*/gi;
/**
 * A guest link's token travels in its path (/share/<token>, gateway/share.ts), a calendar feed's too (/cal/<token>.ics): redacted.
 * A deal room's token rides in the #t= fragment and the Guest header (never sent in a URL); a path or query that carries
 * one anyway (/room/<token>, /room?t=) is redacted all the same.
 */
const REDACTED_PATH = /^(\/share\/|\/cal\/|\/room\/(?!api\/|assets\/|vendor\/))[^/?#]+/;
export const redactUrl = (url: string): string => url.replace(REDACTED_QUERY, '$1[Redacted]').replace(REDACTED_PATH, '$1[Redacted]');

type ReqLike = { method?: string; url?: string; version?: string; host?: string; ip?: string; socket?: { remotePort?: number } };
type ReqSerializer = (req: ReqLike) => Record<string, unknown>;

/** fastify's own request serializer, or the caller's, with the URL's signature redacted. */
function redactingReqSerializer(given: ReqSerializer | undefined): ReqSerializer {
  return (req) => {
    const out = given
      ? given(req)
      : { method: req.method, url: req.url, version: req.version, host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
    return typeof out.url === 'string' ? { ...out, url: redactUrl(out.url) } : out;
  };
}

/** Authorization headers and URL signatures are redacted whatever logger options the caller passes, not only by default. */
function withRedaction(logger: GatewayOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === undefined || logger === true) {
    return { level: process.env.LOG_LEVEL ?? 'info', redact: REDACT, serializers: { req: redactingReqSerializer(undefined) } };
  }
  if (!logger || typeof logger !== 'object') return logger;
  const options = logger as { redact?: string[] | { paths: string[] }; serializers?: { req?: ReqSerializer } };
  const given = options.redact;
  const paths = [...new Set([...((Array.isArray(given) ? given : given?.paths) ?? []), ...REDACT])];
  return {
    ...logger,
    redact: Array.isArray(given) || !given ? paths : { ...given, paths },
    serializers: { ...options.serializers, req: redactingReqSerializer(options.serializers?.req) },
  };
}

/**
 * LOG_REQUESTS=line: nothing on arrival, one line when answered (no request or reply serializers: the URL is
 * redacted here). An error still gets fastify's own line.
 */
class OneLineLog extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    request.log.info(
      { method: request.method, url: redactUrl(request.url), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 },
      'request',
    );
  }
}

/** LOG_REQUESTS=off: no line per request; errors are still logged. */
class NoRequestLog extends LogController {
  override incomingRequest(): void {}
  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) super.requestCompleted(error, request, reply);
  }
}

/** Build the HTTP face without listening: tests call app.inject(), the CLI calls listen(). */
export async function buildApp(opts: GatewayOptions): Promise<FastifyInstance> {
  const bodyLimit = opts.bodyLimitBytes ?? 1024 * 1024;
  const requestLog = opts.requestLog ?? 'line';
  const app = Fastify({
    logger: withRedaction(opts.logger),
    ...(requestLog === 'full' ? {} : { logController: requestLog === 'line' ? new OneLineLog() : new NoRequestLog() }),
    bodyLimit,
    ...timeoutOptions({ ...DEFAULT_TIMEOUTS, ...opts.timeouts }),
    // req.ip (per-address limits) is the client behind a trusted load balancer, never a header anyone may send.
    trustProxy: opts.trustProxy ?? false,
    genReqId: () => crypto.randomUUID(),
    // URL errors the router raises before any route (a path segment over 100 characters, a bad %-escape)
    // are answered as contract frames too, not fastify's own JSON.
    frameworkErrors: (err, _req, reply) => {
      const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'path: a path segment is longer than 100 characters' : 'path: not a valid URL';
      // frameworkErrors is typed to return void: send, do not return the reply (a thenable).
      void (reply as FastifyReply).code(400).send(errorFrame('BAD_REQUEST', message));
    },
  });

  // JSON bodies: empty means no params; anything unparsable is BAD_REQUEST naming the body. A reserved key
  // (__proto__, constructor, prototype) anywhere is refused by name here, for every route (fastify's own parser
  // would refuse __proto__ alone, without naming it); the pipeline refuses them in params from any face too.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, (_req, body, done) => {
    const text = String(body);
    if (text.trim() === '') return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return done(Object.assign(new Error(`body: invalid JSON (${(err as Error).message})`), { statusCode: 400, code: 'BAD_JSON' }), undefined);
    }
    const reserved = reservedKeyIssue(parsed, { prefix: 'body' });
    if (reserved) return done(Object.assign(new Error(reserved), { statusCode: 400, code: 'BAD_JSON' }), undefined);
    done(null, parsed);
  });

  app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, req, reply) => {
    const status = err.statusCode ?? 500;
    if (status === 429) {
      // @fastify/rate-limit throws what errorResponseBuilder built: send it as a plain frame (no statusCode field).
      const built = (err as { error?: { code?: string; message?: string } }).error;
      return reply.code(429).send(errorFrame('RATE_LIMITED', built?.code === 'RATE_LIMITED' && built.message ? built.message : err.message));
    }
    if (status >= 500) {
      req.log.error({ err }, 'unhandled gateway error');
      return reply.code(500).send(errorFrame('INTERNAL', `internal error (request ${req.id})`));
    }
    const message =
      err.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? `body: larger than ${bodyLimit} bytes`
        : err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? `content-type: send application/json`
          : err.message;
    return reply.code(400).send(errorFrame('BAD_REQUEST', message));
  });

  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorFrame('NOT_FOUND', `no route ${req.method} ${req.url.split('?')[0]}`)));

  await registerRateLimit(app, { perMinute: opts.rateLimitPerMinute ?? 6000, redisUrl: opts.redisUrl });

  app.get('/healthz', { config: { rateLimit: false } }, async () => {
    await opts.runtime.db.query('SELECT 1');
    return { ok: true, database: opts.runtime.db.kind };
  });

  await app.register(docsRoutes, { pipeline: opts.runtime.pipeline });
  await app.register(rpcRoutes, { pipeline: opts.runtime.pipeline });
  await app.register(booksImportRoutes, { runtime: opts.runtime });
  await app.register(blobRoutes, { runtime: opts.runtime });
  await app.register(inboxRoutes, { runtime: opts.runtime, ...opts.inbox });
  await app.register(joinRoutes, { runtime: opts.runtime });
  await app.register(shareRoutes, { runtime: opts.runtime });
  await app.register(dealRoomRoutes, { runtime: opts.runtime });
  await app.register(calendarFeedRoutes, { runtime: opts.runtime });
  await app.register(streamRoutes, { runtime: opts.runtime, ...opts.stream });
  await app.register(scimRoutes, { runtime: opts.runtime, prefix: SCIM_PREFIX });
  await app.register(livekitWebhookRoutes, { runtime: opts.runtime });
  return app;
}
