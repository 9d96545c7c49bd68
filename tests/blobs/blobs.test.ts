import { request } from 'node:http';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceBlob, releaseBlob } from '../../blobs/refs.js';
import { collectBlobs } from '../../blobs/gc.js';
import { S3BlobStore } from '../../blobs/s3.js';
import { one } from '../../db/types.js';
import { onPostgres } from '../helpers/harness.js';
import { MAX_BYTES, blobRows, blobWorld, bytes, eventually, get, put, sha256, type Backend, type BlobWorld } from './kit.js';

/*
 * One suite, run against the disk store and against a real S3 server (s3rver, started by the test), over a real
 * socket: app.inject would buffer the body, and streaming is the point.
 */

/** n bytes of a seeded pattern, produced chunk by chunk (never held whole), and their SHA-256. */
function generated(n: number, chunk = 256 * 1024): { stream: () => Readable; sha256: string } {
  const block = createHash('sha512').update(String(n)).digest();
  const piece = Buffer.alloc(chunk);
  for (let i = 0; i < chunk; i += block.length) block.copy(piece, i);
  const hash = createHash('sha256');
  for (let sent = 0; sent < n; sent += chunk) hash.update(piece.subarray(0, Math.min(chunk, n - sent)));
  return {
    sha256: hash.digest('hex'),
    stream: () =>
      Readable.from(
        (function* () {
          for (let sent = 0; sent < n; sent += chunk) yield piece.subarray(0, Math.min(chunk, n - sent));
        })(),
      ),
  };
}

const webStream = (r: Readable) => Readable.toWeb(r) as unknown as ReadableStream;

describe.each<Backend>(['disk', 's3'])('blobs on %s', (backend) => {
  let w: BlobWorld;
  let agentKey: string;
  let agentId: string;
  beforeAll(async () => {
    w = await blobWorld(backend);
    const minted = await w.client.mint({ tier: 'agent' }, 'second key');
    agentKey = minted.apiKey;
    agentId = minted.principal.id;
  });
  afterAll(() => w?.close());

  it('round trip: PUT answers the sha256 (201, then 200 for the same uploader), GET and HEAD serve the bytes', async () => {
    // A PNG (its signature and header chunk) with random bytes after: typed image/png by its bytes.
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#36c' } })
      .png()
      .toBuffer();
    const data = Buffer.concat([png, bytes(300_000)]);
    const up = await put(w, data, { headers: { 'content-type': 'image/png' } });
    expect(up.status).toBe(201);
    expect(up.body).toEqual({ ok: true, result: { sha256: sha256(data), size: data.length, contentType: 'image/png' } });
    expect(up.headers.get('location')).toBe(`/api/v1/blobs/${sha256(data)}`);
    expect((await put(w, data)).status).toBe(200);

    const got = await get(w, `/api/v1/blobs/${sha256(data)}`);
    expect(got.status).toBe(200);
    expect(got.bytes.equals(data)).toBe(true);
    expect(got.headers.get('etag')).toBe(`"${sha256(data)}"`);
    expect(got.headers.get('content-type')).toBe('image/png');
    expect(got.headers.get('content-length')).toBe(String(data.length));
    expect(got.headers.get('accept-ranges')).toBe('bytes');
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-security-policy')).toContain('sandbox');

    const head = await get(w, `/api/v1/blobs/${sha256(data)}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(data.length));
    expect(head.bytes.length).toBe(0);

    const again = await get(w, `/api/v1/blobs/${sha256(data)}`, { headers: { 'if-none-match': `"${sha256(data)}"` } });
    expect(again.status).toBe(304);
    expect(await w.leftovers()).toEqual([]);
  });

  it('an empty body is a blob too; an HTML upload is served as text, never as a page', async () => {
    const empty = await put(w, new Uint8Array(0));
    expect(empty.body.result).toMatchObject({ sha256: sha256(Buffer.alloc(0)), size: 0, contentType: 'application/octet-stream' });
    const html = Buffer.from('<script>alert(1)</script>');
    await put(w, html, { headers: { 'content-type': 'text/html' } });
    const got = await get(w, `/api/v1/blobs/${sha256(html)}`);
    expect(got.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(got.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    // No Content-Type and no Content-Length (chunked): still streamed, typed application/octet-stream.
    const raw = bytes(70_000);
    const answer = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(
        `${w.base}/api/v1/blobs`,
        { method: 'PUT', headers: { authorization: `Bearer ${w.org.adminKey}`, 'transfer-encoding': 'chunked' } },
        (res) => {
          let text = '';
          res.on('data', (d) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
        },
      );
      req.on('error', reject);
      req.write(raw.subarray(0, 30_000));
      req.end(raw.subarray(30_000));
    });
    expect(answer.status).toBe(201);
    expect(answer.body.result).toEqual({ sha256: sha256(raw), size: raw.length, contentType: 'application/octet-stream' });
  });

  it('the type comes from the bytes, not the header: HTML or SVG as image/png is never served as a page or an image', async () => {
    const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: '#c63' } })
      .png()
      .toBuffer();
    const cases: { body: Buffer; declared: string; stored: string; disposition: string }[] = [
      {
        body: Buffer.from(`<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>${backend}`),
        declared: 'image/png',
        stored: 'text/plain; charset=utf-8',
        disposition: 'inline',
      },
      {
        body: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><script>alert(2)</script></svg>${backend}`),
        declared: 'image/png',
        stored: 'text/plain; charset=utf-8',
        disposition: 'inline',
      },
      {
        body: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(3)</script></svg>${backend}`),
        declared: 'image/svg+xml',
        stored: 'text/plain; charset=utf-8',
        disposition: 'inline',
      },
      {
        body: Buffer.from(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(4)</script></svg>${backend}`),
        declared: 'image/svg+xml',
        stored: 'application/xml',
        disposition: 'attachment',
      },
      { body: Buffer.from(`<p>hi</p>${backend}`), declared: 'text/html; charset=utf-8', stored: 'text/plain; charset=utf-8', disposition: 'inline' },
      { body: Buffer.from(`a,b\n1,2\n${backend}`), declared: 'text/csv', stored: 'text/csv; charset=utf-8', disposition: 'attachment' },
      { body: Buffer.concat([png, Buffer.from(backend)]), declared: 'text/html', stored: 'image/png', disposition: 'inline' },
      // Not UTF-8 (a lone continuation byte after 5,000 ASCII bytes): opaque, whatever the header says.
      {
        body: Buffer.concat([Buffer.alloc(5000, 0x61), Buffer.from([0x80]), Buffer.from(backend)]),
        declared: 'text/plain',
        stored: 'application/octet-stream',
        disposition: 'attachment',
      },
      { body: Buffer.from(`nul\u0000inside${backend}`), declared: 'text/plain', stored: 'application/octet-stream', disposition: 'attachment' },
    ];
    for (const c of cases) {
      const up = await put(w, c.body, { headers: { 'content-type': c.declared } });
      expect(up.body.result.contentType, c.body.toString('latin1').slice(0, 40)).toBe(c.stored);
      const got = await get(w, `/api/v1/blobs/${sha256(c.body)}`);
      expect(got.headers.get('content-type')).toBe(c.stored);
      expect(got.headers.get('content-type')).not.toMatch(/html|svg/);
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-disposition')).toBe(c.disposition);
    }
  });

  it('streams 32 MB, hashing on the way (S3: a multipart upload)', async () => {
    const big = generated(32 * 1024 * 1024);
    const parts = w.runtime.deps.blobs.store instanceof S3BlobStore ? w.runtime.deps.blobs.store.partsUploaded : 0;
    const up = await put(w, webStream(big.stream()), { headers: { 'x-content-sha256': big.sha256 } });
    expect(up.status).toBe(201);
    expect(up.body.result).toMatchObject({ sha256: big.sha256, size: 32 * 1024 * 1024 });
    const store = w.runtime.deps.blobs.store;
    if (store instanceof S3BlobStore) expect(store.partsUploaded - parts).toBeGreaterThanOrEqual(6);
    const got = await get(w, `/api/v1/blobs/${big.sha256}`);
    expect(sha256(got.bytes)).toBe(big.sha256);
    expect(await w.leftovers()).toEqual([]);
  });

  it('Range: one range is 206 with Content-Range; past the end is 416; several ranges get the whole blob', async () => {
    const data = bytes(1000);
    const path = `/api/v1/blobs/${sha256(data)}`;
    await put(w, data);
    const first = await get(w, path, { headers: { range: 'bytes=0-9' } });
    expect(first.status).toBe(206);
    expect(first.headers.get('content-range')).toBe('bytes 0-9/1000');
    expect(first.bytes.equals(data.subarray(0, 10))).toBe(true);
    const tail = await get(w, path, { headers: { range: 'bytes=-100' } });
    expect(tail.status).toBe(206);
    expect(tail.bytes.equals(data.subarray(900))).toBe(true);
    const open = await get(w, path, { headers: { range: 'bytes=990-' } });
    expect(open.headers.get('content-range')).toBe('bytes 990-999/1000');
    expect(open.bytes.equals(data.subarray(990))).toBe(true);
    const clipped = await get(w, path, { headers: { range: 'bytes=500-5000' } });
    expect(clipped.headers.get('content-range')).toBe('bytes 500-999/1000');
    expect(clipped.bytes.length).toBe(500);
    const past = await get(w, path, { headers: { range: 'bytes=1000-' } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */1000');
    const many = await get(w, path, { headers: { range: 'bytes=0-1,5-6' } });
    expect(many.status).toBe(200);
    expect(many.bytes.length).toBe(1000);
    const stale = await get(w, path, { headers: { range: 'bytes=0-9', 'if-range': '"other"' } });
    expect(stale.status).toBe(200);
  });

  it('x-content-sha256: a match is kept, a mismatch is BAD_REQUEST and nothing is kept', async () => {
    const data = bytes(5000);
    expect((await put(w, data, { headers: { 'x-content-sha256': sha256(data).toUpperCase() } })).status).toBe(201);
    const other = bytes(5000);
    const refused = await put(w, other, { headers: { 'x-content-sha256': sha256(data) } });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('BAD_REQUEST');
    expect(refused.body.error.message).toContain('x-content-sha256');
    expect(await blobRows(w, w.org.orgId, sha256(other))).toBe(0);
    expect(await w.runtime.deps.blobs.store.exists(w.org.orgId, sha256(other))).toBe(false);
    expect(await w.leftovers()).toEqual([]);
    expect((await put(w, data, { headers: { 'x-content-sha256': 'abc' } })).status).toBe(400);
  });

  it('size limit: refused with 413 up front (Content-Length) and mid-stream (chunked); nothing kept', async () => {
    const upFront = await put(w, Buffer.alloc(MAX_BYTES + 1));
    expect(upFront.status).toBe(413);
    expect(upFront.body.error).toMatchObject({ code: 'BAD_REQUEST' });
    expect(upFront.body.error.message).toContain(`BLOB_MAX_BYTES (${MAX_BYTES} bytes)`);
    const over = generated(MAX_BYTES + 300_000);
    const streamed = await put(w, webStream(over.stream()));
    expect(streamed.status).toBe(413);
    expect(await blobRows(w, w.org.orgId, over.sha256)).toBe(0);
    expect(await eventually(async () => (await w.leftovers()).length === 0)).toBe(true);
  });

  it('per org: the same bytes in two orgs are two blobs; another org sees 404 exactly like a blob that never was', async () => {
    const data = bytes(2000);
    expect((await put(w, data)).status).toBe(201);
    expect((await put(w, data, { key: w.other.adminKey })).status).toBe(201);
    expect(await blobRows(w, w.org.orgId, sha256(data))).toBe(1);
    expect(await blobRows(w, w.other.orgId, sha256(data))).toBe(1);
    const onlyOther = bytes(2000);
    await put(w, onlyOther, { key: w.other.adminKey });
    const cross = await get(w, `/api/v1/blobs/${sha256(onlyOther)}`);
    const never = await get(w, `/api/v1/blobs/${'0'.repeat(64)}`);
    expect(cross.status).toBe(404);
    expect(never.status).toBe(404);
    expect(JSON.parse(cross.bytes.toString()).error.message).toBe(JSON.parse(never.bytes.toString()).error.message.replace('0'.repeat(64), sha256(onlyOther)));
    // A signed URL of org B's blob does not open org A's copy: the URL is bound to its org.
    const signedB = w.runtime.deps.blobs.signedPath(w.other.orgId, sha256(data)).path;
    expect((await get(w, signedB.replace(w.other.orgId, w.org.orgId), { key: null })).status).toBe(404);
  });

  it('no key, a bad key: UNAUTHORIZED before a byte is read', async () => {
    expect((await put(w, bytes(10), { key: 'wops_nope' })).status).toBe(401);
    const res = await fetch(`${w.base}/api/v1/blobs/${'a'.repeat(64)}`);
    expect(res.status).toBe(401);
  });

  it('access: the uploader reads, another key of the org does not; once referenced only a signed URL does', async () => {
    const data = bytes(4000);
    const hash = sha256(data);
    const path = `/api/v1/blobs/${hash}`;
    await put(w, data);
    expect((await get(w, path)).status).toBe(200);
    expect((await get(w, path, { key: agentKey })).status).toBe(404);

    // A caller that only knows the hash cannot make a record hold it.
    await expect(
      w.runtime.db.tx((q) => referenceBlob(q, { orgId: w.org.orgId, sha256: hash, holder: 'fil_x', by: agentId, uploadedBy: agentId, field: 'sha256' })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    const held = await w.runtime.db.tx((q) =>
      referenceBlob(q, { orgId: w.org.orgId, sha256: hash, holder: 'fil_1', by: 'usr_x', uploadedBy: adminPrincipal() }),
    );
    expect(held).toEqual({ sha256: hash, size: 4000, contentType: 'application/octet-stream' });
    expect((await get(w, path)).status).toBe(404);

    const signed = w.runtime.deps.blobs.signedPath(w.org.orgId, hash, { ttlMs: 60_000 });
    const viaUrl = await get(w, signed.path, { key: null });
    expect(viaUrl.status).toBe(200);
    expect(viaUrl.bytes.equals(data)).toBe(true);
    expect(viaUrl.headers.get('cache-control')).toMatch(/^private, max-age=\d+/);
    const ranged = await get(w, signed.path, { key: null, headers: { range: 'bytes=0-0' } });
    expect(ranged.status).toBe(206);

    const expired = w.runtime.deps.blobs.signedPath(w.org.orgId, hash, { ttlMs: -1000 });
    expect((await get(w, expired.path, { key: null })).status).toBe(404);
    const forged = signed.path.replace(/sig=([^&]+)/, (_m, s: string) => `sig=${s.slice(0, -2)}${s.endsWith('AA') ? 'BB' : 'AA'}`);
    expect((await get(w, forged, { key: null })).status).toBe(404);
    const later = signed.path.replace(/expires=(\d+)/, (_m, e: string) => `expires=${Number(e) + 3600}`);
    expect((await get(w, later, { key: null })).status).toBe(404);
    const otherHash = signed.path.replace(hash, sha256(bytes(1)));
    expect((await get(w, otherHash, { key: null })).status).toBe(404);
  });

  let adminId = '';
  const adminPrincipal = () => adminId;
  beforeAll(async () => {
    adminId = (await w.runtime.pipeline.principalFor(w.org.adminKey)).id;
  });

  it('GC: unreferenced past the grace period goes (row and bytes); referenced stays; dry run only reports', async () => {
    const blobs = w.runtime.deps.blobs;
    const loose = bytes(1500);
    const kept = bytes(1500);
    await put(w, loose);
    await put(w, kept);
    await w.runtime.db.tx((q) => referenceBlob(q, { orgId: w.org.orgId, sha256: sha256(kept), holder: 'fil_keep', by: adminId, uploadedBy: adminId }));

    // Within the grace period: nothing to do.
    const early = await collectBlobs(blobs, { dryRun: true });
    expect(early.wouldDelete?.some((c) => c.sha256 === sha256(loose))).not.toBe(true);

    await age(w, [sha256(loose), sha256(kept)]);
    const dry = await collectBlobs(blobs, { dryRun: true });
    expect(dry.wouldDelete?.map((c) => c.sha256)).toContain(sha256(loose));
    expect(dry.wouldDelete?.map((c) => c.sha256)).not.toContain(sha256(kept));
    expect(await blobs.store.exists(w.org.orgId, sha256(loose))).toBe(true);

    const run = await collectBlobs(blobs);
    expect(run.deleted).toBeGreaterThanOrEqual(1);
    expect(await blobRows(w, w.org.orgId, sha256(loose))).toBe(0);
    expect(await blobs.store.exists(w.org.orgId, sha256(loose))).toBe(false);
    expect(await blobRows(w, w.org.orgId, sha256(kept))).toBe(1);
    expect(await blobs.store.exists(w.org.orgId, sha256(kept))).toBe(true);

    // Released: a fresh grace period, then collected.
    await w.runtime.db.tx((q) => releaseBlob(q, { orgId: w.org.orgId, sha256: sha256(kept), holder: 'fil_keep' }));
    await collectBlobs(blobs);
    expect(await blobRows(w, w.org.orgId, sha256(kept))).toBe(1);
    await age(w, [sha256(kept)]);
    await collectBlobs(blobs);
    expect(await blobRows(w, w.org.orgId, sha256(kept))).toBe(0);
    expect(await w.leftovers()).toEqual([]);
  });

  it('GC: a reference cannot land on a collected blob, and the database refuses to delete a referenced one', async () => {
    const blobs = w.runtime.deps.blobs;
    const data = bytes(700);
    await put(w, data);
    await age(w, [sha256(data)]);
    await collectBlobs(blobs);
    await expect(
      w.runtime.db.tx((q) => referenceBlob(q, { orgId: w.org.orgId, sha256: sha256(data), holder: 'fil_late', by: adminId, uploadedBy: adminId })),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });

    const held = bytes(700);
    await put(w, held);
    await w.runtime.db.tx((q) => referenceBlob(q, { orgId: w.org.orgId, sha256: sha256(held), holder: 'fil_held', by: adminId }));
    await expect(w.runtime.db.query('DELETE FROM blobs WHERE org_id = $1 AND sha256 = $2', [w.org.orgId, sha256(held)])).rejects.toMatchObject({
      code: '23503',
    });
  });

  it.runIf(onPostgres)('GC: a reference being added concurrently keeps the blob (PostgreSQL: two connections)', async () => {
    const blobs = w.runtime.deps.blobs;
    const data = bytes(900);
    const hash = sha256(data);
    await put(w, data);
    await age(w, [hash]);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let referenced!: () => void;
    const holding = new Promise<void>((r) => (referenced = r));
    // A family's transaction: the reference is written, not yet committed, while GC runs.
    const family = w.runtime.db.tx(async (q) => {
      await referenceBlob(q, { orgId: w.org.orgId, sha256: hash, holder: 'fil_race', by: adminId, uploadedBy: adminId });
      referenced();
      await gate;
    });
    await holding;
    const during = await collectBlobs(blobs);
    expect(during.kept).toBeGreaterThanOrEqual(1);
    release();
    await family;
    await collectBlobs(blobs);
    expect(await blobRows(w, w.org.orgId, hash)).toBe(1);
    expect(await blobs.store.exists(w.org.orgId, hash)).toBe(true);
  });

  it('GC: trash an interrupted run left is put back when its row survived', async () => {
    const blobs = w.runtime.deps.blobs;
    const data = bytes(800);
    await put(w, data);
    // As if a collector moved the bytes aside and then its transaction rolled back and the process died.
    const trashId = await blobs.store.trash(w.org.orgId, sha256(data));
    expect(trashId).not.toBeNull();
    expect(await blobs.store.exists(w.org.orgId, sha256(data))).toBe(false);
    const run = await collectBlobs(blobs);
    expect(run.trashRestored).toBe(1);
    expect((await get(w, `/api/v1/blobs/${sha256(data)}`)).bytes.equals(data)).toBe(true);
  });

  it('a client that goes away mid-upload leaves nothing behind', async () => {
    const url = new URL(`${w.base}/api/v1/blobs`);
    const chunk = bytes(1024 * 1024);
    await new Promise<void>((resolve) => {
      const req = request({
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'PUT',
        headers: { authorization: `Bearer ${w.org.adminKey}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      });
      req.on('error', () => resolve());
      req.write(chunk);
      req.write(chunk, () =>
        setTimeout(() => {
          req.destroy();
          resolve();
        }, 200),
      );
    });
    expect(await eventually(async () => (await w.leftovers()).length === 0)).toBe(true);
    const rows = await w.runtime.db.query<{ n: number }>('SELECT count(*)::int AS n FROM blobs WHERE org_id = $1 AND size_bytes = $2', [
      w.org.orgId,
      2 * chunk.length,
    ]);
    expect(one(rows).n).toBe(0);
  });
});

/** Push blobs past the default grace period (24 h). */
async function age(w: BlobWorld, hashes: string[]): Promise<void> {
  await w.runtime.db.query(`UPDATE blobs SET idle_since = now() - interval '2 days' WHERE org_id = $1 AND sha256 = ANY($2::text[])`, [w.org.orgId, hashes]);
}
