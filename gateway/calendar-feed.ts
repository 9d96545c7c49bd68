import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../domain/deployed.js';
import { toErrorFrame } from '../domain/core/errors.js';
import { readFeed } from '../domain/calendar/itip/feed.js';

/*
 * A member's calendar as a read-only ICS feed (docs/families/calendar.md, "Invitations and the feed"):
 *   GET /cal/<token>.ics    METHOD:PUBLISH, private events as busy blocks; ETag, 304 on If-None-Match
 * Outside /api/v1: calendar apps subscribe with the URL alone. The token is a bearer credential in the path:
 * request logs redact it (gateway/app.ts redactUrl), and nothing is cached by shared caches. An unknown, rotated or
 * turned-off token answers one 404.
 */

export async function calendarFeedRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { deps } = opts.runtime;
  app.get<{ Params: { file: string } }>('/cal/:file', async (req, reply) => {
    reply.header('cache-control', 'private, no-cache').header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');
    const notFound = () => reply.code(404).type('text/plain; charset=utf-8').send('No such calendar feed: it may have been rotated or turned off.\n');
    try {
      const m = /^(.+)\.ics$/.exec(req.params.file);
      const feed = m ? await readFeed(deps, m[1]) : null;
      if (!feed) return notFound();
      reply.header('etag', feed.etag);
      if (req.headers['if-none-match'] === feed.etag) return reply.code(304).send();
      return reply.type('text/calendar; charset=utf-8').send(feed.body);
    } catch (err) {
      const { status } = toErrorFrame(err, deps.log, { requestId: req.id, method: 'GET /cal' });
      return reply.code(status).type('text/plain; charset=utf-8').send('Something went wrong: try again later.\n');
    }
  });
}
