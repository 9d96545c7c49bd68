import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS } from '../protocol/errors.js';
import { errorFrame } from '../protocol/frames.js';
import { acceptInvitation, viewInvitation } from '../domain/people/invitation/accept.js';
import type { Runtime } from '../domain/deployed.js';
import { toErrorFrame } from '../domain/core/errors.js';
import { importMap, pageRoutes, pageShell, sameOrigin } from './web-assets.js';

/**
 * The invitation page, /join (docs/families/people.md, Invitations; a gateway page, like /approvals):
 * - GET /join?token=…: the page (web/join/); the app reads the token and drops it from the address bar;
 * - /join/assets/* and /join/vendor/*: its files;
 * - POST /join/api/invitation {token}: whose invitation, to which org, and its state;
 * - POST /join/api/accept {token}: the member becomes active and gets one key of its role, shown once.
 * The token travels in POST bodies (the first GET's query is redacted from logs); both calls are counted per
 * address in PostgreSQL before the token is looked at (domain/people/invitation/accept.ts).
 */

const IMPORT_MAP = importMap('/join');

const PAGE = pageShell({
  base: '/join',
  title: 'Join your team',
  css: 'join.css',
  map: IMPORT_MAP,
  meta: ['<meta name="referrer" content="no-referrer">'],
  icon: '/approvals/assets/icon.svg',
  main: `<main class="narrow"><h1>Invitation</h1><p>Loading…</p>
        <noscript><p>This page needs JavaScript to accept your invitation.</p></noscript>
      </main>`,
});

export async function joinRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { deps } = opts.runtime;
  const publicOrigin = new URL(deps.config.publicUrl).origin;

  /** Accepting mints a key: only from this page itself (a cross-site form or script is refused). */
  const fromThisPage = (req: FastifyRequest) => sameOrigin(req, publicOrigin);

  const answer = async (reply: FastifyReply, req: FastifyRequest, act: () => Promise<unknown>) => {
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    try {
      return reply.send({ ok: true, result: await act() });
    } catch (err) {
      const { status, frame, retryAfterSeconds } = toErrorFrame(err, deps.log, { requestId: req.id, method: `POST ${req.url}` });
      if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
      return reply.code(status).send(frame);
    }
  };
  const tokenOf = (req: FastifyRequest) => (req.body as { token?: unknown } | undefined)?.token;

  pageRoutes(app, { base: '/join', page: 'join', html: PAGE, map: IMPORT_MAP, cache: 'no-store' });

  app.post('/join/api/invitation', (req, reply) => answer(reply, req, () => viewInvitation(deps, tokenOf(req), req.ip)));
  app.post('/join/api/accept', (req, reply) => {
    if (!fromThisPage(req)) {
      const code = 'FORBIDDEN_SCOPE';
      return reply
        .code(ERROR_STATUS[code])
        .header('cache-control', 'no-store')
        .send(errorFrame(code, 'cross-site request refused: accept the invitation on its own page (Origin check)'));
    }
    return answer(reply, req, () => acceptInvitation(deps, tokenOf(req), req.ip));
  });
}
