import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { errorFrame } from '../protocol/frames.js';
import { hashApiKey, bearerFrom } from '../domain/core/auth.js';

/*
 * Requests per minute per credential (or per address without one). Each process counts alone unless a Redis
 * is given, which every process then shares.
 */

export interface RateLimitOptions {
  perMinute: number;
  /** Count in this Redis, shared by every process that uses it; unset = each process counts alone. */
  redisUrl?: string;
}

/**
 * A Redis that is down fails open: requests are served unthrottled and a warning is logged (once, and again
 * each minute it stays down), because a limiter outage should not take the API down with it; what must hold
 * whatever happens (pairing's limits, the AI budget) is counted in PostgreSQL instead.
 */
async function redisClient(url: string, log: FastifyBaseLogger): Promise<Redis> {
  // Loaded only when configured: most installations run one process and need no Redis.
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 1000,
    commandTimeout: 500,
    maxRetriesPerRequest: 1,
    // Fail at once while disconnected instead of queueing: the request goes on unthrottled.
    enableOfflineQueue: false,
  });
  let warnedAt = 0;
  const unreachable = (reason: string) => {
    if (Date.now() - warnedAt < 60_000) return;
    warnedAt = Date.now();
    log.warn({ reason }, 'rate limits: Redis unreachable; requests are not throttled until it is back');
  };
  redis.on('error', (err: Error) => unreachable(err.message));
  redis.on('close', () => unreachable('connection closed'));
  redis.on('ready', () => {
    if (warnedAt) log.info({}, 'rate limits: Redis reachable again');
    warnedAt = 0;
  });
  return redis;
}

export async function registerRateLimit(app: FastifyInstance, opts: RateLimitOptions): Promise<void> {
  if (opts.perMinute <= 0) return;
  let redis: Redis | undefined;
  if (opts.redisUrl) {
    redis = await redisClient(opts.redisUrl, app.log);
    // Wait for the first connection, so the limit is shared from the first request; a refusal is logged and
    // ioredis keeps reconnecting.
    await redis.connect().catch(() => undefined);
    const client = redis;
    app.addHook('onClose', async () => {
      // Closing it ourselves is no outage: no warning.
      client
        .removeAllListeners('close')
        .removeAllListeners('error')
        .on('error', () => undefined);
      client.disconnect();
    });
  }
  await app.register(rateLimit, {
    max: opts.perMinute,
    timeWindow: 60_000,
    ...(redis ? { redis, nameSpace: 'wops-rate-limit:', skipOnError: true } : {}),
    // One bucket per credential (hashed, so the limiter never holds a secret), else per address.
    keyGenerator: (req) => {
      const key = bearerFrom(req.headers.authorization);
      return key ? `k:${hashApiKey(key)}` : `ip:${req.ip}`;
    },
    errorResponseBuilder: (_req, ctx) => {
      const seconds = Math.max(1, Math.ceil(ctx.ttl / 1000));
      return Object.assign(errorFrame('RATE_LIMITED', `rate limited: ${ctx.max} requests per minute; retry in ${seconds} seconds`), {
        statusCode: 429,
      });
    },
  });
}
