import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../protocol/errors.js';
import { reservedKeyIssue } from '../../protocol/json-bounds.js';
import { bearerFrom } from '../../domain/core/auth.js';
import { isScimProvisioner } from '../../domain/people/member/lane.js';
import type { Runtime } from '../../domain/deployed.js';
import { listResponse, sendScim, type ScimRequest } from './common.js';
import { fromFrame, ScimError, sendScimError } from './errors.js';
import { groupRoutes } from './groups.js';
import { resourceTypes, schemas, serviceProviderConfig } from './schemas.js';
import { userRoutes } from './users.js';

/**
 * /scim/v2: SCIM 2.0 provisioning (RFC 7643, 7644) for an identity provider (Okta, Entra ID): Users are the
 * org's human members, Groups its teams. Bearer auth with a key of tier scim; every write is registry calls
 * through the pipeline as that provisioner, so scopes, validation, the member family's rules and the ledger
 * apply exactly as on /api/v1. Answers are application/scim+json; errors RFC 7644's (section 3.12).
 */
export const SCIM_PREFIX = '/scim/v2';

const identity = (m: string) => m;

async function authenticate(runtime: Runtime, req: FastifyRequest): Promise<ScimRequest> {
  let principal;
  try {
    principal = await runtime.pipeline.principalFor(bearerFrom(req.headers.authorization));
  } catch (err) {
    if (err instanceof ApiError) throw new ScimError(401, err.message);
    throw err;
  }
  if (!isScimProvisioner(principal)) {
    throw new ScimError(403, 'this endpoint takes a key of tier scim: an admin mints one with settings.mintApiKey {"name": "SCIM", "tier": "scim"}');
  }
  return { runtime, principal, orgId: principal.orgId, base: `${runtime.deps.config.publicUrl}${SCIM_PREFIX}`, requestId: req.id };
}

export async function scimRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { runtime } = opts;
  const base = `${runtime.deps.config.publicUrl}${SCIM_PREFIX}`;
  const requests = new WeakMap<object, ScimRequest>();
  const ctx = (req: unknown): ScimRequest => requests.get(req as object)!;

  app.addContentTypeParser('application/scim+json', { parseAs: 'string' }, (_req, body, done) => {
    let parsed: unknown;
    try {
      parsed = String(body).trim() === '' ? undefined : JSON.parse(String(body));
    } catch (err) {
      return done(new ScimError(400, `body: invalid JSON (${(err as Error).message})`, 'invalidSyntax'), undefined);
    }
    // A reserved key (__proto__, constructor, prototype) is refused by name before any route sees the body.
    const reserved = reservedKeyIssue(parsed, { prefix: 'body' });
    if (reserved) return done(new ScimError(400, reserved, 'invalidValue'), undefined);
    done(null, parsed);
  });

  app.setErrorHandler((err: Error & { statusCode?: number; code?: string; error?: { message?: string } }, req, reply: FastifyReply) => {
    if (err instanceof ScimError) {
      if (err.status === 401) reply.header('www-authenticate', 'Bearer realm="scim"');
      return sendScimError(reply, err);
    }
    if (err instanceof ApiError) return sendScimError(reply, fromFrame({ code: err.code, message: err.message }, identity, err.retryAfterSeconds));
    const status = err.statusCode ?? 500;
    if (status === 429) return sendScimError(reply, new ScimError(429, err.error?.message ?? err.message));
    if (status >= 500) {
      req.log.error({ err }, 'unhandled SCIM error');
      return sendScimError(reply, new ScimError(500, `internal error (request ${req.id})`));
    }
    return sendScimError(reply, new ScimError(status === 413 ? 413 : 400, err.message, 'invalidSyntax'));
  });

  app.setNotFoundHandler((req, reply) => sendScimError(reply, new ScimError(404, `no SCIM endpoint ${req.method} ${req.url.split('?')[0]}`)));

  // Discovery needs no credential (RFC 7644 section 4): it describes the server, not the org.
  app.get('/ServiceProviderConfig', async (_req, reply) => sendScim(reply, 200, serviceProviderConfig(base, `${runtime.deps.config.publicUrl}/docs`)));
  app.get('/ResourceTypes', async (_req, reply) => sendScim(reply, 200, listOf(resourceTypes(base))));
  app.get<{ Params: { id: string } }>('/ResourceTypes/:id', async (req, reply) =>
    sendScim(reply, 200, byId(resourceTypes(base), req.params.id, 'ResourceType')),
  );
  app.get('/Schemas', async (_req, reply) => sendScim(reply, 200, listOf(schemas(base))));
  app.get<{ Params: { id: string } }>('/Schemas/:id', async (req, reply) => sendScim(reply, 200, byId(schemas(base), req.params.id, 'Schema')));

  await app.register(async (resources) => {
    resources.addHook('onRequest', async (req) => {
      requests.set(req, await authenticate(runtime, req));
    });
    await userRoutes(resources, ctx);
    await groupRoutes(resources, ctx);
  });
}

const listOf = (items: Record<string, unknown>[]) => listResponse(items.length, 1, items);

function byId(items: { id: string }[], id: string, what: string) {
  const hit = items.find((i) => i.id === id);
  if (!hit) throw new ScimError(404, `${what} ${id} not found`);
  return hit;
}
