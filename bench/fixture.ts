import { one, type Db } from '../db/types.js';

export interface BenchOrg {
  orgId: string;
  slug: string;
  /** Admin API key of the org. */
  key: string;
  /** The principal behind the key: the ledger actor and idempotency scope. */
  actor: string;
}

export interface BenchContext {
  baseUrl: string;
  /** The bench's own pool on the same database (db/postgres.ts, the server's driver layer). */
  db: Db;
  orgs: BenchOrg[];
  seconds: number;
  connections: number;
  /** Unique per run: prefixes idempotency keys. */
  runId: string;
}

export async function rpc(
  baseUrl: string,
  key: string,
  method: string,
  params: unknown,
  idempotencyKey?: string,
): Promise<{ status: number; body: any; replayed: boolean }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  if (idempotencyKey) headers['x-idempotency-key'] = idempotencyKey;
  const res = await fetch(`${baseUrl}/api/v1/${method}`, { method: 'POST', headers, body: JSON.stringify({ params }) });
  const body = (await res.json()) as any;
  if (res.status !== 200 || !body.ok) throw new Error(`${method}: ${res.status} ${JSON.stringify(body)}`);
  return { status: res.status, body, replayed: res.headers.get('idempotent-replay') === 'true' };
}

/** GET /api/v1/<path> as the org's admin; anything but 200 stops the run. */
export async function getOk(ctx: BenchContext, org: BenchOrg, path: string): Promise<any> {
  const res = await fetch(`${ctx.baseUrl}/api/v1/${path}`, { headers: { authorization: `Bearer ${org.key}` } });
  const body = (await res.json()) as any;
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** Create `n` orgs through the API (org.create answers the new org's admin key). */
export async function createOrgs(baseUrl: string, db: Db, adminKey: string, n: number, prefix: string): Promise<BenchOrg[]> {
  const orgs: BenchOrg[] = [];
  for (let i = 0; i < n; i++) {
    const slug = `${prefix}-${i}`;
    const { body } = await rpc(baseUrl, adminKey, 'org.create', { slug, name: `Bench ${prefix} ${i}` });
    const { orgId, adminKey: key, adminKeyId } = body.result as { orgId: string; adminKey: string; adminKeyId: string };
    const row = one(await db.query<{ principal_id: string }>('SELECT principal_id FROM api_keys WHERE org_id = $1 AND key_id = $2', [orgId, adminKeyId]));
    orgs.push({ orgId, slug, key, actor: row.principal_id });
  }
  return orgs;
}
