import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { ListObjectsV2Command, ListMultipartUploadsCommand } from '@aws-sdk/client-s3';
// s3rver ships no types: a real S3 server (koa) on 127.0.0.1, multipart included.
// @ts-expect-error no declaration file
import S3rver from 's3rver';
import { buildApp } from '../../gateway/app.js';
import type { Runtime } from '../../domain/deployed.js';
import type { BlobConfig } from '../../blobs/config.js';
import { S3BlobStore } from '../../blobs/s3.js';
import { freshOrg, testRuntime, TestClient, type TestOrg } from '../helpers/harness.js';
import type { FastifyInstance } from 'fastify';

export type Backend = 'disk' | 's3';

export interface BlobWorld {
  backend: Backend;
  runtime: Runtime;
  app: FastifyInstance;
  base: string;
  org: TestOrg;
  other: TestOrg;
  client: TestClient;
  /** Temporary uploads and trash left in the store (must be none after every upload settles). */
  leftovers(): Promise<string[]>;
  /** Bytes the store holds on disk now (the blobs dir, or the S3 server's), uploads in progress included. */
  storedBytes(): Promise<number>;
  close(): Promise<void>;
}

export const MAX_BYTES = 40 * 1024 * 1024;

/** A runtime whose blob store is `backend` (s3: an s3rver started here, on a free port, in a temp dir), listening. */
export async function blobWorld(backend: Backend, extra: Partial<BlobConfig> = {}): Promise<BlobWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'wops-blobtest-'));
  let s3rver: { run(): Promise<{ port: number }>; close(): Promise<void> } | undefined;
  let blobs: Partial<BlobConfig> = { dir: join(dir, 'blobs'), maxBytes: MAX_BYTES, ...extra };
  if (backend === 's3') {
    s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: 'wops-blobs' }] });
    const { port } = await s3rver!.run();
    blobs = {
      ...blobs,
      s3: {
        bucket: 'wops-blobs',
        prefix: '',
        endpoint: `http://127.0.0.1:${port}`,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
        partSizeBytes: 5 * 1024 * 1024,
      },
    };
  }
  const runtime = await testRuntime({ blobs });
  const app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0 });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  const org = await freshOrg(runtime, 'blob');
  const other = await freshOrg(runtime, 'blob');
  const store = runtime.deps.blobs.store;
  return {
    backend,
    runtime,
    app,
    base: `http://127.0.0.1:${port}`,
    org,
    other,
    client: new TestClient(app, org.adminKey),
    async leftovers() {
      if (store instanceof S3BlobStore) {
        const listed = await store.client.send(new ListObjectsV2Command({ Bucket: 'wops-blobs' }));
        const keys = (listed.Contents ?? []).map((o) => o.Key!).filter((k) => k.startsWith('.tmp/') || k.startsWith('.trash/'));
        const open = await store.client.send(new ListMultipartUploadsCommand({ Bucket: 'wops-blobs' })).catch(() => ({ Uploads: [] }));
        return [...keys, ...(open.Uploads ?? []).map((u) => `multipart ${u.Key}`)];
      }
      const root = join(dir, 'blobs');
      const tmp = (await readdir(join(root, '.tmp')).catch(() => [])).map((n) => `.tmp/${n}`);
      const trash = (await readdir(join(root, '.trash'), { recursive: true }).catch(() => [])).filter((n) => /[0-9a-f]{64}\./.test(String(n)));
      return [...tmp, ...trash.map((n) => `.trash/${n}`)];
    },
    async storedBytes() {
      // Everything the store keeps on disk: the blobs dir, or s3rver's (it writes each part as it arrives).
      let total = 0;
      for (const n of await readdir(dir, { recursive: true }).catch(() => [] as string[])) {
        const st = await stat(join(dir, String(n))).catch(() => null);
        if (st?.isFile()) total += st.size;
      }
      return total;
    },
    async close() {
      await app.close();
      await runtime.close();
      await s3rver?.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
export const bytes = (n: number) => randomBytes(n);

/** PUT /api/v1/blobs over the socket. */
export async function put(w: BlobWorld, body: RequestInit['body'], opts: { key?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(`${w.base}/api/v1/blobs`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${opts.key ?? w.org.adminKey}`, 'content-type': 'application/octet-stream', ...opts.headers },
    body,
    duplex: 'half', // a streaming request body
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** GET (or HEAD) a blob path over the socket; the bytes as a Buffer. */
export async function get(w: BlobWorld, path: string, opts: { key?: string | null; headers?: Record<string, string>; method?: string } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== null) headers.authorization = `Bearer ${opts.key ?? w.org.adminKey}`;
  const res = await fetch(`${w.base}${path}`, { method: opts.method ?? 'GET', headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Rows of a blob in an org (0 or 1). */
export async function blobRows(w: BlobWorld, orgId: string, hash: string): Promise<number> {
  const rows = await w.runtime.db.query('SELECT 1 AS x FROM blobs WHERE org_id = $1 AND sha256 = $2', [orgId, hash]);
  return rows.length;
}

/** Poll until fn holds (an upload the server is still settling after a client went away). */
export async function eventually(fn: () => Promise<boolean>, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await fn()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return fn();
}
