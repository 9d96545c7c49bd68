import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../domain/core/auth.js';
import type { Pipeline } from '../../domain/core/pipeline.js';
import type { Session } from '../../domain/people/index.js';

/*
 * GET /approvals/api/waiting: "Waiting on you" for the inbox page: GET /api/v1/org/inbox read through the pipeline as
 * the session's principal (scopes and every family's rules exactly as over /api/v1), each item with the name of
 * who it comes from. The page reads it again when the stream says a family of it changed (live.ts) and at the
 * read's nextChangeAt.
 */

export interface WaitingRouteOptions {
  pipeline: Pipeline;
  signedIn: (req: FastifyRequest, reply: FastifyReply, mutating: boolean) => Promise<{ session: Session; principal: Principal } | undefined>;
  names: (orgId: string, ids: string[]) => Promise<Map<string, string>>;
}

/** The page shows the newest this many; counts cover them all. */
const SHOWN = 200;

interface InboxPayload {
  items: { from: string | null }[];
}

export function waitingRoute(app: FastifyInstance, opts: WaitingRouteOptions): void {
  app.get('/approvals/api/waiting', async (req, reply) => {
    const signed = await opts.signedIn(req, reply, false);
    if (!signed) return reply;
    const { session, principal } = signed;
    const out = await opts.pipeline.read({ path: 'org/inbox', query: { limit: String(SHOWN) }, principal, requestId: req.id });
    if (out.status !== 200) return reply.code(out.status).header('cache-control', 'no-store').type('application/json').send(out.body);
    const payload = (out.payload ?? JSON.parse(out.body)) as InboxPayload;
    const byId = await opts.names(
      session.orgId,
      payload.items.flatMap((i) => (i.from ? [i.from] : [])),
    );
    const items = payload.items.map((i) => ({ ...i, fromName: i.from ? (byId.get(i.from) ?? null) : null }));
    return reply.header('cache-control', 'no-store').send({ ok: true, result: { ...payload, items } });
  });
}
