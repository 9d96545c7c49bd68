import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Runtime } from '../domain/deployed.js';
import { toErrorFrame } from '../domain/core/errors.js';
import { roomCallIcs, roomFile, roomView } from '../domain/crm/index.js';
import { importMap, pageRoutes, pageShell, sendAttachment } from './web-assets.js';

/**
 * The deal room, a buyer's page outside /api/v1 (docs/families/crm.md, Rooms; like /approvals and /join):
 * - GET /room: the page (web/room/); its link carries the token in the #t= fragment, which browsers never send, and
 *   the app drops it from the address bar at once;
 * - /room/assets/* and /room/vendor/*: its files;
 * - GET /room/api/view, /room/api/files/<fileId>, /room/api/calls/<callId>.ics with `Authorization: Guest <token>`
 *   (the header is redacted from request logs with every Authorization header).
 * Every request re-checks token, room, deal and capability (domain/crm/rooms/guest.ts); a dead link is one 404.
 */

const IMPORT_MAP = importMap('/room');

const PAGE = pageShell({
  base: '/room',
  title: 'Deal room',
  css: 'room.css',
  map: IMPORT_MAP,
  meta: ['<meta name="referrer" content="no-referrer">', '<meta name="robots" content="noindex">'],
  main: `<main><h1>Deal room</h1><p>Loading…</p>
        <noscript><p>This page needs JavaScript to open the room.</p></noscript>
      </main>`,
});

/** The token of `Authorization: Guest <token>`, or undefined (answered as a dead link). */
export function guestToken(req: FastifyRequest): string | undefined {
  const m = /^Guest ([^\s]{1,200})$/.exec(req.headers.authorization ?? '');
  return m?.[1];
}

export async function dealRoomRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { deps } = opts.runtime;
  const guard = (reply: FastifyReply) =>
    reply
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .header('x-robots-tag', 'noindex');
  const fail = (reply: FastifyReply, req: FastifyRequest, err: unknown) => {
    const { status, frame, retryAfterSeconds } = toErrorFrame(err, deps.log, { requestId: req.id, method: `GET ${req.routeOptions.url ?? '/room/api'}` });
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    return reply.code(status).send(frame);
  };

  pageRoutes(app, { base: '/room', page: 'room', html: PAGE, map: IMPORT_MAP, cache: 'no-store', headers: { 'x-robots-tag': 'noindex' } });

  app.get('/room/api/view', async (req, reply) => {
    guard(reply);
    try {
      return reply.send({ ok: true, result: await roomView(deps, guestToken(req), req.ip) });
    } catch (err) {
      return fail(reply, req, err);
    }
  });

  app.get<{ Params: { fileId: string } }>('/room/api/files/:fileId', async (req, reply) => {
    guard(reply);
    try {
      const fileId = /^fil_[A-Za-z0-9]{1,60}$/.test(req.params.fileId) ? req.params.fileId : 'fil_0';
      const { meta, name } = await roomFile(deps, guestToken(req), fileId, req.ip);
      return sendAttachment(reply, deps.blobs, meta, name);
    } catch (err) {
      return fail(reply, req, err);
    }
  });

  app.get<{ Params: { file: string } }>('/room/api/calls/:file', async (req, reply) => {
    guard(reply);
    try {
      const m = /^(call_[A-Za-z0-9]{1,60})\.ics$/.exec(req.params.file);
      const ics = await roomCallIcs(deps, guestToken(req), m?.[1] ?? 'call_0', req.ip);
      return reply.type('text/calendar; charset=utf-8').header('content-disposition', `attachment; filename="${m![1]}.ics"`).send(ics);
    } catch (err) {
      return fail(reply, req, err);
    }
  });
}
