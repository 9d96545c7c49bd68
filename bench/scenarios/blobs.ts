import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/*
 * PUT /api/v1/blobs memory: one fresh process per size runs the server (runtime + gateway, blobs on disk) and
 * streams the upload to itself over a socket in 64 KiB chunks, sampling its own RSS every 5 ms. A streamed upload
 * keeps the peak flat: 200 MB should cost about what 20 MB does.
 */

export interface BlobUploadMeasure {
  bytes: number;
  seconds: number;
  mbPerSecond: number;
  /** RSS just before the upload (server warmed by a 1 MB upload). */
  rssBeforeMb: number;
  peakRssMb: number;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MB = 1024 * 1024;

/** Run the measurement in a child process of its own (clean RSS), against databaseUrl (unset: in-memory PGlite). */
export function measureBlobUpload(bytes: number, databaseUrl?: string): BlobUploadMeasure {
  const out = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [fileURLToPath(import.meta.url), String(bytes)], {
    cwd: ROOT,
    env: { ...process.env, ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}), BLOB_BENCH_CHILD: '1' },
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  if (out.status !== 0) throw new Error(`blob upload measurement failed:\n${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as BlobUploadMeasure;
}

function upload(url: string, key: string, bytes: number): Promise<{ status: number; body: string }> {
  const chunk = Buffer.alloc(64 * 1024, 7);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'PUT', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/octet-stream', 'content-length': String(bytes) } },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

async function child(bytes: number): Promise<void> {
  const { createRuntime } = await import(pathToFileURL(path.join(ROOT, 'domain/deployed.ts')).href);
  const { buildApp } = await import(pathToFileURL(path.join(ROOT, 'gateway/app.ts')).href);
  const { createOrg } = await import(pathToFileURL(path.join(ROOT, 'domain/people/org/service.ts')).href);
  const dir = mkdtempSync(path.join(tmpdir(), 'wops-blob-bench-'));
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const runtime = await createRuntime({ databaseUrl, inMemory: !databaseUrl, poolSize: 4, blobs: { dir, maxBytes: bytes + MB } });
  const app = await buildApp({ runtime, logger: false, rateLimitPerMinute: 0, timeouts: { requestMs: 0 } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/api/v1/blobs`;
  const org = await runtime.db.tx((q: unknown) => createOrg(q, { slug: `blob-bench-${Date.now()}`, name: 'Blob bench', parentOrgId: null, createdBy: '' }));
  const key = org.admin.apiKey as string;
  await upload(url, key, MB); // warm every code path first
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const started = performance.now();
  const res = await upload(url, key, bytes);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${res.body}`);
  // The answer names the hash of exactly the bytes sent.
  const expected = createHash('sha256');
  const chunk = Buffer.alloc(64 * 1024, 7);
  for (let sent = 0; sent < bytes; sent += chunk.length) expected.update(chunk.subarray(0, Math.min(chunk.length, bytes - sent)));
  if (JSON.parse(res.body).result.sha256 !== expected.digest('hex')) throw new Error('upload: wrong sha256');
  await app.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
  const measure: BlobUploadMeasure = {
    bytes,
    seconds,
    mbPerSecond: bytes / MB / seconds,
    rssBeforeMb: rssBefore / MB,
    peakRssMb: peak / MB,
  };
  process.stdout.write(`${JSON.stringify(measure)}\n`);
}

if (process.env.BLOB_BENCH_CHILD === '1' && process.argv[1] === fileURLToPath(import.meta.url)) {
  child(Number(process.argv[2])).then(
    () => process.exit(0),
    (err: Error) => {
      process.stderr.write(`${err.stack ?? err.message}\n`);
      process.exit(1);
    },
  );
}
