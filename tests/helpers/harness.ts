import type { FastifyInstance } from 'fastify';
import { describe } from 'vitest';
import { buildApp } from '../../gateway/app.js';
import { DEPLOYED, DEPLOYED_FAMILIES, type Runtime, type RuntimeOptions } from '../../domain/deployed.js';
import { FamilySet } from '../../domain/core/family.js';
import { openRuntime } from '../../domain/core/runtime.js';
import { createOrg } from '../../domain/people/org/service.js';
import { newId } from '../../domain/core/ids.js';
import { borrowSharedDb } from './shared-db.js';

/** PostgreSQL when DATABASE_URL is set (CI's second run), otherwise in-memory PGlite. */
export const DATABASE_URL = process.env.DATABASE_URL || undefined;
export const onPostgres = DATABASE_URL !== undefined;

/**
 * `describe` for tests that open PGlite data dirs of their own whatever DATABASE_URL says (the CLI as a user runs
 * it, the stdio MCP server, the PGlite template and lock): the PGlite run covers them, so the PostgreSQL run skips
 * them, saying so, rather than run the same thing twice.
 */
export function pgliteOnly(what: string): typeof describe | typeof describe.skip {
  if (!onPostgres) return describe;
  console.info(`${what}: skipped on the PostgreSQL run (it runs on PGlite data dirs of its own, whatever DATABASE_URL says; the PGlite run covers it)`);
  return describe.skip;
}

/** Options that choose a database of its own: a runtime given any of them does not share the worker's. */
const OWN_DATABASE: readonly (keyof RuntimeOptions)[] = ['db', 'databaseUrl', 'dataDir', 'inMemory', 'pgliteTemplateDir', 'lockTimeoutMs', 'notice'];

/** Runtime options of a test: with `without`, the named families of domain/deployed.ts are left out (undeployed). */
export type TestRuntimeOptions = Partial<RuntimeOptions> & { without?: readonly string[] };

/** A runtime over the deployed families, or over all but `without` (how a server that lacks a family answers). */
function openTestRuntime({ without = [], ...opts }: TestRuntimeOptions): Promise<Runtime> {
  const unknown = without.filter((name) => !DEPLOYED_FAMILIES.some((f) => f.name === name));
  if (unknown.length) throw new Error(`without: ${unknown.join(', ')} is no deployed family`);
  const families = without.length ? new FamilySet(DEPLOYED_FAMILIES.filter((f) => !without.includes(f.name))) : DEPLOYED;
  return openRuntime(families, opts);
}

/**
 * A runtime on the test database: PostgreSQL's (one database for the whole run) or, on PGlite, the worker's shared
 * in-memory database (tests/helpers/shared-db.ts), unless the options ask for a database of its own.
 */
export async function testRuntime(opts: TestRuntimeOptions = {}): Promise<Runtime> {
  if (DATABASE_URL || OWN_DATABASE.some((k) => opts[k] !== undefined)) {
    return openTestRuntime({ databaseUrl: DATABASE_URL, inMemory: !DATABASE_URL, poolSize: 40, ...opts });
  }
  const lease = await borrowSharedDb();
  try {
    // inMemory: its blobs and outbox in temp dirs of its own, as an in-memory runtime keeps them.
    const runtime = await openTestRuntime({ inMemory: true, ...opts, db: lease.db });
    return {
      ...runtime,
      async close() {
        await runtime.close();
        await lease.release();
      },
    };
  } catch (err) {
    await lease.release();
    throw err;
  }
}

export interface TestOrg {
  orgId: string;
  slug: string;
  adminKey: string;
  /** key_… of adminKey (e.g. for settings.renameApiKey). */
  adminKeyId: string;
}

/** A fresh org with an admin key: tests never share rows, so they can share a database. */
export async function freshOrg(runtime: Runtime, prefix = 't'): Promise<TestOrg> {
  const slug = `${prefix}-${newId('x').slice(2)}`.toLowerCase();
  const created = await runtime.db.tx((q) => createOrg(q, { slug, name: `Test ${slug}`, parentOrgId: null, createdBy: '' }));
  return { orgId: created.orgId, slug, adminKey: created.admin.apiKey, adminKeyId: created.admin.keyId };
}

export interface CallOptions {
  key?: string;
  idem?: string;
}

/** An HTTP client over app.inject(): the whole gateway, no socket. */
export class TestClient {
  constructor(
    readonly app: FastifyInstance,
    readonly defaultKey: string,
  ) {}

  async rpc(method: string, params: unknown = {}, opts: CallOptions = {}) {
    const res = await this.app.inject({
      method: 'POST',
      url: `/api/v1/${method}`,
      headers: {
        authorization: `Bearer ${opts.key ?? this.defaultKey}`,
        'content-type': 'application/json',
        ...(opts.idem ? { 'x-idempotency-key': opts.idem } : {}),
      },
      payload: JSON.stringify({ params }),
    });
    return { status: res.statusCode, body: res.json(), raw: res.body, headers: res.headers };
  }

  /** POST a raw body (any text, any headers): for malformed bodies and bare params objects. */
  async raw(method: string, body: string, headers: Record<string, string> = {}) {
    const res = await this.app.inject({
      method: 'POST',
      url: `/api/v1/${method}`,
      headers: { authorization: `Bearer ${this.defaultKey}`, 'content-type': 'application/json', ...headers },
      payload: body,
    });
    return { status: res.statusCode, body: res.json(), raw: res.body, headers: res.headers };
  }

  /** rpc that must succeed: returns result. */
  async ok<T = any>(method: string, params: unknown = {}, opts: CallOptions = {}): Promise<T> {
    const res = await this.rpc(method, params, opts);
    if (res.status !== 200 || res.body.ok !== true) throw new Error(`${method} failed: ${res.status} ${res.raw}`);
    return res.body.result as T;
  }

  async get(path: string, query: Record<string, string | number> = {}, opts: { key?: string } = {}) {
    const qs = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
    const res = await this.app.inject({
      method: 'GET',
      url: `/api/v1/${path}${qs ? `?${qs}` : ''}`,
      headers: { authorization: `Bearer ${opts.key ?? this.defaultKey}` },
    });
    return { status: res.statusCode, body: res.json(), raw: res.body, headers: res.headers };
  }

  /** Mint a key of a tier (or exact scopes) with the admin key. */
  async mint(spec: { tier: string } | { scopes: string[]; principalKind?: 'human' | 'agent' }, name = 'test key') {
    return this.ok<{ keyId: string; apiKey: string; scopes: string[]; principal: { kind: string; id: string } }>('settings.mintApiKey', { name, ...spec });
  }
}

export interface TestServer {
  runtime: Runtime;
  app: FastifyInstance;
  org: TestOrg;
  client: TestClient;
  close(): Promise<void>;
}

/** Runtime + gateway + a fresh org, for one test file (create it in beforeAll). */
export async function testServer(opts: TestRuntimeOptions & { rateLimitPerMinute?: number } = {}): Promise<TestServer> {
  const runtime = await testRuntime(opts);
  const app = await buildApp({ runtime, logger: false, rateLimitPerMinute: opts.rateLimitPerMinute ?? 0 });
  const org = await freshOrg(runtime);
  return {
    runtime,
    app,
    org,
    client: new TestClient(app, org.adminKey),
    async close() {
      await app.close();
      await runtime.close();
    },
  };
}

/** Read an org's whole ledger through GET /events. */
export async function allEvents(client: TestClient, key?: string) {
  const events: any[] = [];
  let cursor = 0;
  for (;;) {
    const page = await client.get('events', { cursor, limit: 500 }, { key });
    if (page.status !== 200) throw new Error(`events: ${page.raw}`);
    events.push(...page.body.events);
    if (page.body.events.length < 500) return events;
    cursor = page.body.nextCursor;
  }
}
