import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ApiError, type ErrorCode, ERROR_STATUS } from '../../protocol/errors.js';
import { errorFrame } from '../../protocol/frames.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import type { ApprovalView } from '../../protocol/methods/approval.js';
import { authenticateKeyId, type Principal } from '../../domain/core/auth.js';
import { watchAccess } from '../../domain/stream/access-watch.js';
import type { Subscription } from '../../domain/stream/hub.js';
import type { Runtime } from '../../domain/deployed.js';
import { SessionStore, type Session, type SessionOptions } from '../../domain/people/index.js';
import { IMPORT_MAP, PAGE } from './assets.js';
import { describeApproval } from './describe.js';
import { ledgerChanges } from './live.js';
import { waitingRoute } from './waiting.js';
import { csrfMatches } from './sessions.js';
import { startEventStream } from '../sse.js';
import { pageRoutes, sameOrigin as sameOriginAs } from '../web-assets.js';

/**
 * The approval inbox for humans, at /approvals (the URL hold messages and approval views name):
 * - GET /approvals and /approvals/<approvalId>: the page (one shell; the app routes in the browser);
 * - /approvals/assets/* (the app) and /approvals/vendor/* (Preact, htm, canonicalize from node_modules);
 * - /approvals/api/*: sign-in (a human key for an HttpOnly session cookie), the lists, one approval, the
 *   decision, what waits on the human (waiting.ts), sign-out, and a Server-Sent Events stream of approvals filed and
 *   decided and of changes to what waits (live.ts).
 * Every read and decision is a pipeline call as the principal of the session's key, authenticated again on each
 * request: scopes, the requester rule and the ledger (one event per decision) behave exactly as over /api/v1.
 * Sessions live in the database and live updates come from the org's live ledger, so any number of gateway processes
 * serve the inbox behind a load balancer without sticky sessions.
 */

export interface InboxOptions {
  runtime: Runtime;
  sessions?: SessionOptions;
  /** Comment line sent on idle streams, which also ends a stream whose session ended (default 15 s). */
  heartbeatMs?: number;
}

export const COOKIE = 'wops_inbox';
/** Notifier topic: a session ended (signed out, key revoked) and its streams in every process close. */
const SESSION_ENDED = 'inbox.session.ended';
const COOKIE_PATH = '/approvals';
const APPROVAL_ID = /^apr_[0-9a-z]{1,64}$/;

/** The contract's frame with its status, so the page shows the same messages the API gives. */
function fail(reply: FastifyReply, code: ErrorCode, message: string) {
  return reply.code(ERROR_STATUS[code]).header('cache-control', 'no-store').send(errorFrame(code, message));
}

function cookieValue(req: FastifyRequest): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** What the page may know about the signed-in principal (never the key). */
function principalView(p: Principal) {
  return { id: p.id, name: p.name, kind: p.kind, tier: p.tier, orgSlug: p.orgSlug, canDecide: p.scopes.has('approval.decide') };
}

type Item = Omit<ApprovalView, 'signatureToken'> & {
  plain: ReturnType<typeof describeApproval>;
  requestedByName: string | null;
  decidedByName: string | null;
  mine: boolean;
  /** The approval names its deciders: theirs, for the page (`Name (id)` or the id). */
  deciderNames: string[] | null;
  /** The signed-in human is not among the approval's deciders. */
  notDecider: boolean;
};

export async function inboxRoutes(app: FastifyInstance, opts: InboxOptions) {
  const { pipeline, deps } = opts.runtime;
  const sessions = new SessionStore(deps.db, opts.sessions);
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const publicOrigin = new URL(deps.config.publicUrl).origin;
  const streams = new Set<{ session: Session; send: (event: string, data: unknown) => void; close: (reason: string) => void; recheck: () => void }>();
  const noLimit = { rateLimit: false } as const;

  const secureCookie = (req: FastifyRequest) => publicOrigin.startsWith('https:') || req.protocol === 'https';
  const setCookie = (req: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds: number) =>
    reply.header(
      'set-cookie',
      `${COOKIE}=${value}; Path=${COOKIE_PATH}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secureCookie(req) ? '; Secure' : ''}`,
    );
  const clearCookie = (req: FastifyRequest, reply: FastifyReply) => setCookie(req, reply, '', 0);

  /** CSRF: same origin (web-assets.ts); the session cookie is also SameSite=Strict and session-bound calls carry x-csrf-token. */
  const sameOrigin = (req: FastifyRequest) => sameOriginAs(req, publicOrigin);

  /**
   * The request's live session and the principal of its key, authenticated again now (any process may have
   * opened the session; the key may have been revoked since); otherwise an answer (401/403) already sent.
   */
  async function signedIn(req: FastifyRequest, reply: FastifyReply, mutating: boolean): Promise<{ session: Session; principal: Principal } | undefined> {
    if (mutating && !sameOrigin(req)) {
      fail(reply, 'FORBIDDEN_SCOPE', 'cross-site request refused: inbox actions are accepted only from the inbox page itself (Origin check)');
      return undefined;
    }
    const session = await sessions.get(cookieValue(req));
    if (!session) {
      if (cookieValue(req) !== undefined) clearCookie(req, reply);
      fail(reply, 'UNAUTHORIZED', 'not signed in (or the session ended): sign in with a human API key');
      return undefined;
    }
    if (mutating && !csrfMatches(session, req.headers['x-csrf-token'])) {
      fail(reply, 'FORBIDDEN_SCOPE', 'missing or wrong x-csrf-token: reload the inbox page and try again');
      return undefined;
    }
    try {
      return { session, principal: await authenticateKeyId(deps.db, session.orgId, session.keyId) };
    } catch (err) {
      if (!(err instanceof ApiError) || err.code !== 'UNAUTHORIZED') throw err;
      await endSession(session, 'the key was revoked');
      clearCookie(req, reply);
      fail(reply, 'UNAUTHORIZED', 'the key this session was opened with is no longer valid (revoked?): sign in again');
      return undefined;
    }
  }

  /** A pipeline call as the session's principal, authenticated by this request (signedIn). */
  const call = (principal: Principal, req: FastifyRequest, method: string, params: unknown) => pipeline.call({ method, params, principal, requestId: req.id });

  /** Delete the session, and close its live streams here and, through the notifier, in every other process. */
  // Why a session of this process is ending, known before its row goes: a stream's session check that sees the row
  // gone first then names the real reason rather than every way a session ends.
  const ending = new Map<string, string>();
  async function endSession(session: Session, reason: string) {
    ending.set(session.sessionId, reason);
    try {
      // The notice before the delete, in its transaction: every process hears why before the delete's access change.
      await deps.db.tx(async (q) => {
        await deps.notifier.publish(q, SESSION_ENDED, { sessionId: session.sessionId, reason });
        await sessions.delete(session, q);
      });
      closeStreams(session.sessionId, reason);
    } finally {
      ending.delete(session.sessionId);
    }
  }

  function closeStreams(sessionId: string, reason: string) {
    for (const s of [...streams]) if (s.session.sessionId === sessionId) s.close(reason);
  }

  /** Names of the principals that asked and decided (display only, this org's rows). */
  async function names(orgId: string, ids: string[]): Promise<Map<string, string>> {
    const wanted = [...new Set(ids.filter(Boolean))];
    if (wanted.length === 0) return new Map();
    const rows = await deps.db.query<{ principal_id: string; name: string }>(
      'SELECT principal_id, name FROM principals WHERE org_id = $1 AND principal_id = ANY($2::text[])',
      [orgId, wanted],
    );
    return new Map(rows.map((r) => [r.principal_id, r.name]));
  }

  async function items(session: Session, views: ApprovalView[]): Promise<Item[]> {
    const byId = await names(
      session.orgId,
      views.flatMap((v) => [v.requestedBy, v.decidedBy ?? '', ...(v.deciders ?? [])]),
    );
    return views.map(({ signatureToken: _token, ...v }) => ({
      ...v,
      plain: describeApproval(v, deps.families.holdActs),
      requestedByName: byId.get(v.requestedBy) ?? null,
      decidedByName: v.decidedBy ? (byId.get(v.decidedBy) ?? null) : null,
      mine: v.requestedBy === session.principalId,
      deciderNames: v.deciders ? v.deciders.map((id) => (byId.has(id) ? `${byId.get(id)} (${id})` : id)) : null,
      notDecider: v.deciders !== null && !v.deciders.includes(session.principalId),
    }));
  }

  /**
   * The exact payload behind the hash: what was hashed, its canonical text, and whether it hashes to payloadHash;
   * for a released act also what ran (the held params with the human's amendments) and whether that hashes to the
   * released hash.
   */
  function signedPayload(v: ApprovalView) {
    if (!v.heldAct) return { signed: null, canonical: null, hashMatches: null, releasedSigned: null, releasedHashMatches: null };
    const signed = { actionClass: v.actionClass, subjectId: v.subject.subjectId, params: v.heldAct.params };
    const canonical = canonicalJson(signed);
    const releasedSigned = v.released ? { actionClass: v.actionClass, subjectId: v.subject.subjectId, params: v.released.params } : null;
    return {
      signed,
      canonical,
      hashMatches: sha256Hex(canonical) === v.payloadHash,
      releasedSigned,
      releasedHashMatches: releasedSigned && v.released ? sha256Hex(canonicalJson(releasedSigned)) === v.released.payloadHash : null,
    };
  }

  // ---- the page and its files -------------------------------------------------------------------

  const sendPage = pageRoutes(app, { base: '/approvals', page: 'inbox', html: PAGE, map: IMPORT_MAP, cache: 'no-cache' });
  app.get<{ Params: { approvalId: string } }>('/approvals/:approvalId', { config: noLimit }, (req, reply) =>
    APPROVAL_ID.test(req.params.approvalId) ? sendPage(reply) : reply.callNotFound(),
  );

  // ---- session ----------------------------------------------------------------------------------

  app.post('/approvals/api/session', async (req, reply) => {
    if (!sameOrigin(req)) return fail(reply, 'FORBIDDEN_SCOPE', 'cross-site sign-in refused: sign in from the inbox page itself (Origin check)');
    const apiKey = (req.body as { apiKey?: unknown } | undefined)?.apiKey;
    if (typeof apiKey !== 'string' || apiKey.trim() === '') return fail(reply, 'BAD_REQUEST', 'apiKey: required (paste a human API key)');
    if (apiKey.length > 200) return fail(reply, 'BAD_REQUEST', 'apiKey: too long to be an API key');
    let principal: Principal;
    try {
      principal = await pipeline.principalFor(apiKey.trim());
    } catch (err) {
      if (err instanceof ApiError) return fail(reply, err.code, err.code === 'UNAUTHORIZED' ? 'this key is not valid (unknown or revoked)' : err.message);
      throw err;
    }
    if (principal.kind !== 'human') {
      return fail(
        reply,
        'FORBIDDEN_SCOPE',
        `This is an agent key (${principal.name}, ${principal.id}${principal.tier ? `, tier ${principal.tier}` : ''}). ` +
          'The approval inbox is for humans: an agent files approvals and waits, a human decides them. Sign in with a human key (tier approver or admin).',
      );
    }
    if (!principal.scopes.has('approval.request')) {
      return fail(
        reply,
        'FORBIDDEN_SCOPE',
        `this key (${principal.name}) lacks scope approval.request, which reading approvals needs; use an approver or admin key`,
      );
    }
    const { session, cookieValue: value } = await sessions.create({ orgId: principal.orgId, principalId: principal.id, keyId: principal.keyId });
    setCookie(req, reply, value, Math.floor(sessions.maxAgeMs / 1000));
    return reply.header('cache-control', 'no-store').send({ ok: true, result: { principal: principalView(principal), csrfToken: session.csrfToken } });
  });

  app.get('/approvals/api/session', async (req, reply) => {
    const signed = await signedIn(req, reply, false);
    if (!signed) return reply;
    const { session, principal } = signed;
    return reply.header('cache-control', 'no-store').send({ ok: true, result: { principal: principalView(principal), csrfToken: session.csrfToken } });
  });

  app.delete('/approvals/api/session', async (req, reply) => {
    const signed = await signedIn(req, reply, true);
    if (!signed) return reply;
    await endSession(signed.session, 'signed out');
    clearCookie(req, reply);
    return reply.header('cache-control', 'no-store').send({ ok: true, result: { signedOut: true } });
  });

  // ---- approvals --------------------------------------------------------------------------------

  app.get<{ Querystring: { view?: string } }>('/approvals/api/approvals', async (req, reply) => {
    const signed = await signedIn(req, reply, false);
    if (!signed) return reply;
    const { session, principal } = signed;
    const view = req.query.view ?? 'pending';
    if (view !== 'pending' && view !== 'decided') return fail(reply, 'BAD_REQUEST', 'view: must be pending or decided');
    const statuses = view === 'pending' ? ['pending'] : ['approved', 'rejected', 'expired'];
    const found: ApprovalView[] = [];
    let more = false;
    for (const status of statuses) {
      const out = await call(principal, req, 'approval.list', { status, limit: view === 'pending' ? 200 : 50 });
      if (!out.frame.ok) return reply.code(out.status).header('cache-control', 'no-store').send(out.frame);
      const page = out.frame.result as { approvals: ApprovalView[]; nextCursor: string | null };
      found.push(...page.approvals);
      more ||= page.nextCursor !== null;
    }
    // Decided: the most recent decisions first (an expired one by its expiry).
    const when = (v: ApprovalView) => Date.parse(v.decidedAt ?? v.expiresAt);
    const list = view === 'pending' ? found : found.sort((a, b) => when(b) - when(a)).slice(0, 50);
    return reply.header('cache-control', 'no-store').send({ ok: true, result: { approvals: await items(session, list), more } });
  });

  app.get<{ Params: { approvalId: string } }>('/approvals/api/approvals/:approvalId', async (req, reply) => {
    const signed = await signedIn(req, reply, false);
    if (!signed) return reply;
    const { session, principal } = signed;
    const out = await call(principal, req, 'approval.get', { approvalId: req.params.approvalId });
    if (!out.frame.ok) return reply.code(out.status).header('cache-control', 'no-store').send(out.frame);
    const v = out.frame.result as ApprovalView;
    const [item] = await items(session, [v]);
    return reply.header('cache-control', 'no-store').send({ ok: true, result: { ...item, ...signedPayload(v) } });
  });

  app.post<{ Params: { approvalId: string }; Body: { decision?: unknown; note?: unknown; amendments?: unknown } | undefined }>(
    '/approvals/api/approvals/:approvalId/decision',
    async (req, reply) => {
      const signed = await signedIn(req, reply, true);
      if (!signed) return reply;
      const { session, principal } = signed;
      const body = req.body ?? {};
      const note = typeof body.note === 'string' && body.note.trim() !== '' ? body.note.trim() : undefined;
      // Amendments (release approvals) go to approval.resolve as given: it checks them against the act's schema.
      const amendments = body.amendments !== undefined && body.amendments !== null ? { amendments: body.amendments } : {};
      const out = await call(principal, req, 'approval.resolve', {
        approvalId: req.params.approvalId,
        decision: body.decision,
        ...(note ? { note } : {}),
        ...amendments,
      });
      if (!out.frame.ok) return reply.code(out.status).header('cache-control', 'no-store').send(out.frame);
      const v = out.frame.result as ApprovalView;
      const [item] = await items(session, [v]);
      return reply.header('cache-control', 'no-store').send({ ok: true, result: { ...item, ...signedPayload(v) } });
    },
  );

  // What waits on the signed-in human across the families (GET /org/inbox as its principal).
  waitingRoute(app, { pipeline, signedIn, names });

  // ---- live updates -----------------------------------------------------------------------------

  /**
   * Server-Sent Events of the org's live ledger (domain/stream, appended through any process), as live.ts maps them:
   * `approval` (one filed or decided) and `waiting` (what GET /org/inbox gathers changed), ids only. `resync` means
   * the notifier's connection came back (the ledger misses nothing, but a session ended meanwhile may not have been
   * heard): the page reads its lists again. The stream ends when the session does, whichever process ends it.
   */
  const subscriptions = [
    deps.notifier.subscribe(
      SESSION_ENDED,
      (m) => closeStreams(String(m.sessionId), String(m.reason)),
      () => {
        for (const s of streams) s.send('resync', {});
      },
    ),
    // The database says a key's access changed (revoked, member suspended or deactivated, session deleted): the
    // streams it may concern check their session now, in every process, rather than at the next heartbeat.
    watchAccess(
      deps.notifier,
      () =>
        [...streams].map((s) => ({ orgId: s.session.orgId, principalId: s.session.principalId, keyId: s.session.keyId, sessionId: s.session.sessionId, s })),
      (h) => h.s.recheck(),
    ),
  ];

  app.get('/approvals/api/stream', { config: noLimit }, async (req, reply) => {
    const signed = await signedIn(req, reply, false);
    if (!signed) return reply;
    const { session } = signed;
    reply.hijack();
    const res: ServerResponse = reply.raw;
    startEventStream(res);
    const send = (event: string, data: unknown) => {
      if (!closed) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    };
    // The session is checked at every heartbeat (an expiry sends no notification) and at once on an access change.
    let checking = false;
    let again = false;
    const check = (keepAlive: boolean) => {
      if (closed) return;
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      sessions.isLive(session).then(
        (live) => {
          checking = false;
          if (!live)
            return close(ending.get(session.sessionId) ?? 'the session ended (signed out, expired, key revoked, or the member suspended or deactivated)');
          if (keepAlive && !closed) res.write(': keep-alive\n\n');
          if (again) {
            again = false;
            check(false);
          }
        },
        (err: Error) => {
          checking = false;
          req.log.warn({ err }, 'inbox stream: session check failed');
        },
      );
    };
    const heartbeat = setInterval(() => check(true), heartbeatMs);
    heartbeat.unref();
    const entry = { session, send, close: (reason: string) => close(reason), recheck: () => check(false) };
    let closed = false;
    let live: Subscription | undefined;
    function cleanup() {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      streams.delete(entry);
      live?.close();
    }
    function close(reason: string) {
      if (closed) return;
      send('end', { reason });
      cleanup();
      res.end();
    }
    streams.add(entry);
    req.raw.once('close', cleanup);
    res.write('retry: 3000\n\n');
    try {
      live = await deps.stream.subscribe(session.orgId, undefined, ledgerChanges(send));
    } catch (err) {
      req.log.error({ err }, 'inbox stream: subscribing to the live ledger failed');
      close('the server could not read the ledger');
      return reply;
    }
    if (closed) live.close();
    send('ready', { principalId: session.principalId });
    return reply;
  });

  // Open streams would keep the server from closing.
  app.addHook('preClose', async () => {
    for (const s of [...streams]) s.close('the server is shutting down');
    for (const unsubscribe of subscriptions) unsubscribe();
  });
}
