import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS } from '../protocol/errors.js';
import { errorFrame } from '../protocol/frames.js';
import { acceptInvitation, viewInvitation } from '../domain/people/invitation/accept.js';
import type { Runtime } from '../domain/deployed.js';
import { toErrorFrame } from '../domain/core/errors.js';
import { importMap, loadAssets, pageCsp, sameOrigin, type Asset } from './web-assets.js';

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
const CSP = pageCsp(IMPORT_MAP);

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light">
    <meta name="referrer" content="no-referrer">
    <title>Join your team</title>
    <link rel="icon" href="/approvals/assets/icon.svg" type="image/svg+xml">
    <link rel="stylesheet" href="/join/assets/join.css">
    <script type="importmap">${IMPORT_MAP}</script>
    <script type="module" src="/join/assets/app.js"></script>
  </head>
  <body>
    <div id="app">
      <main class="narrow"><h1>Invitation</h1><p>Loading…</p>
        <noscript><p>This page needs JavaScript to accept your invitation.</p></noscript>
      </main>
    </div>
  </body>
</html>
`;

export async function joinRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { deps } = opts.runtime;
  const assets = loadAssets('join');
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const noLimit = { rateLimit: false } as const;

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

  const sendAsset = (reply: FastifyReply, asset: Asset | undefined) => {
    if (!asset) return reply.callNotFound();
    return reply.type(asset.type).header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache').send(asset.body);
  };

  app.get('/join', { config: noLimit }, (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('cache-control', 'no-store')
      .send(PAGE),
  );
  app.get<{ Params: { file: string } }>('/join/assets/:file', { config: noLimit }, (req, reply) => sendAsset(reply, assets.app.get(req.params.file)));
  app.get<{ Params: { file: string } }>('/join/vendor/:file', { config: noLimit }, (req, reply) => sendAsset(reply, assets.vendor.get(req.params.file)));

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
