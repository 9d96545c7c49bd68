import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectBlobs } from '../../../blobs/gc.js';
import { blobWorld, put, type Backend, type BlobWorld } from '../../blobs/kit.js';
import { approved, eventsAfter, head, held, ok, refused } from '../../helpers/calls.js';
import { download, driveOrg, folder, type DriveOrg, upload } from './drive-kit.js';
import { person } from '../../helpers/people.js';
import { strFromU8, unzipSync } from 'fflate';

/* The drive's acceptance scenarios end to end: 2 (sheet), 3 (upload), 4 (sharing), 6 (trash). */

const PDF_HEAD = Buffer.from(
  '%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n3 0 obj\n<< /Length 0 >>\nstream\n',
  'latin1',
);

/**
 * A ~n-byte PDF produced chunk by chunk (never held whole), and its SHA-256. `stream(gate)` awaits `gate(sent)`
 * before each chunk after the first: a test can hold the body back until the server shows it has stored part of it.
 */
function bigPdf(n: number): { stream: (gate?: (sent: number) => Promise<void>) => Readable; sha256: string; size: number } {
  const chunk = Buffer.alloc(256 * 1024, 0x20);
  const tail = Buffer.from('\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n', 'latin1');
  const middle = Math.floor((n - PDF_HEAD.length - tail.length) / chunk.length);
  const parts = function* () {
    yield PDF_HEAD;
    for (let i = 0; i < middle; i++) yield chunk;
    yield tail;
  };
  const hash = createHash('sha256');
  let size = 0;
  for (const p of parts()) {
    hash.update(p);
    size += p.length;
  }
  const gated = async function* (gate: (sent: number) => Promise<void>) {
    let sent = 0;
    for (const p of parts()) {
      if (sent > 0) await gate(sent);
      yield p;
      sent += p.length;
    }
  };
  return { stream: (gate) => Readable.from(gate ? gated(gate) : parts()), sha256: hash.digest('hex'), size };
}

describe.each<Backend>(['disk', 's3'])('scenario 3, upload, on %s', (backend) => {
  let w: BlobWorld;
  beforeAll(async () => {
    w = await blobWorld(backend, { maxBytes: 60 * 1024 * 1024 });
  });
  afterAll(() => w?.close());

  it('a 50 MB PDF streams with flat memory, a wrong sha256 is BAD_REQUEST, search finds it, the download is byte-identical', async () => {
    const pdf = bigPdf(50 * 1024 * 1024);
    // Streaming, not buffering: with 30 MB sent, the body waits until the store holds at least 10 MB of it (a
    // buffering server would store nothing before the body ends, and the upload would fail here).
    let proved = false;
    const stored = await w.storedBytes();
    const gate = async (sent: number) => {
      if (proved || sent < 30 * 1024 * 1024) return;
      for (const until = Date.now() + 20_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
        if ((await w.storedBytes()) - stored >= 10 * 1024 * 1024) return void (proved = true);
      }
      throw new Error(`30 MB sent, but the ${backend} store holds less than 10 MB of it after 20 s: the upload is buffered, not streamed`);
    };
    // And on disk, live memory (after a forced collection; vitest runs with --expose-gc) grows far less than the
    // file. On s3 the S3 server (s3rver) runs in this process and holds the parts it receives, so memory there says
    // nothing about the server; the gate above is the proof. Live memory is the JS heap and ArrayBuffers (where a
    // buffered body would sit), not all of `external`: that also counts the WebAssembly memory of the embedded
    // PGlite this process runs, which grows in steps of megabytes with the database, not with the upload.
    const live = () => {
      global.gc?.();
      const m = process.memoryUsage();
      return m.heapUsed + m.arrayBuffers;
    };
    const before = live();
    let peak = before;
    // Every 500 ms: a forced collection costs time, and a buffering upload only grows, so any sample would see it.
    const sampler = setInterval(() => (peak = Math.max(peak, live())), 500);
    const up = await put(w, Readable.toWeb(pdf.stream(gate)), { headers: { 'content-type': 'application/octet-stream' } });
    clearInterval(sampler);
    expect(up.status).toBe(201);
    expect(proved).toBe(true);
    const grew = `live memory grew ${Math.round((peak - before) / 1e6)} MB at most during a ${Math.round(pdf.size / 1e6)} MB upload`;
    console.info(`[files scenario 3, ${backend}] ${grew}`);
    expect(global.gc, 'vitest.config.ts passes --expose-gc to the test processes').toBeTypeOf('function');
    if (backend === 'disk') expect(peak - before, grew).toBeLessThan(pdf.size / 2);
    expect(up.body.result).toMatchObject({ sha256: pdf.sha256, size: pdf.size });

    const wrong = `${pdf.sha256.slice(0, 63)}${pdf.sha256.endsWith('0') ? '1' : '0'}`;
    const bad = await w.client.rpc('files.uploadRegister', { sha256: wrong, sizeBytes: pdf.size, name: 'Annual report 2025.pdf' });
    expect(bad.body.error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringContaining('sha256') });

    const reg = await w.client.ok('files.uploadRegister', { sha256: pdf.sha256, sizeBytes: pdf.size, name: 'Annual report 2025.pdf' });
    expect(reg.file).toMatchObject({ contentType: 'application/pdf', sizeBytes: pdf.size, sha256: pdf.sha256 });
    const found = await w.client.ok('files.list', { query: 'annual report' });
    expect(found.files.map((f: any) => f.id)).toContain(reg.file.id);

    const exp = await w.client.ok('files.exportRequest', { fileId: reg.file.id, format: 'original' });
    const res = await fetch(`${w.base}${new URL(exp.url).pathname}${new URL(exp.url).search}`);
    expect(res.status).toBe(200);
    const hash = createHash('sha256');
    let got = 0;
    for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
      hash.update(c);
      got += c.length;
    }
    expect(got).toBe(pdf.size);
    expect(hash.digest('hex')).toBe(pdf.sha256);
  }, 120_000);
});

describe('scenarios 2, 4 and 6', () => {
  let o: DriveOrg;
  beforeAll(async () => {
    o = await driveOrg();
  });
  afterAll(() => o.s.close());

  it('2. sheet: =SUM(A1:A3) reads 6; a books.reports feed fills rows and recalculates; a write into the feed is CONFLICT; a refresh without books.read is FORBIDDEN_SCOPE; the xlsx keeps its formulas', async () => {
    const cells = { A1: 1, A2: 2, A3: 3, A4: '=SUM(A1:A3)', E1: 'Spent', F1: '=SUM(C10:C20)' };
    const sheet = (await ok(o.s, 'files.create', { kind: 'sheet', name: 'Plan', content: { tabs: [{ title: 'Plan', cells }] } }, o.mia.key)).file;
    const read = async (key = o.mia.key) => Object.fromEntries((await ok(o.s, 'files.sheetRead', { fileId: sheet.id }, key)).cells.map((c: any) => [c.a1, c]));
    expect((await read()).A4.value).toBe(6);
    await ok(o.s, 'books.journalPost', {
      date: '2025-03-03',
      narration: 'Paper',
      lines: [
        { account: '429', amountCents: 31_415 },
        { account: '850', amountCents: -31_415 },
      ],
    });
    const source = { method: 'books.reports', params: { report: 'profitAndLoss', from: '2025-03-01', to: '2025-03-31' }, rows: 'expenses.lines' };
    const set = await ok(o.s, 'files.sheetFedRange', { fileId: sheet.id, op: 'set', anchor: 'A10', source }, o.mia.key);
    expect(set).toMatchObject({ changed: true, recalculated: 1, feeds: [{ range: 'A10:C11', status: 'ok' }] });
    expect((await read()).F1.value).toBe(31_415);
    await refused(o.s, 'files.sheetWriteCells', { fileId: sheet.id, cells: [{ a1: 'C11', input: 1 }], overwriteFormulas: true }, 'CONFLICT', {
      key: o.mia.key,
    });
    const ned = await person(o.s, 'Ned No-Books', { scopes: ['org.read', 'files.read', 'files.write'], principalKind: 'human' });
    await ok(o.s, 'files.shareGrant', { fileId: sheet.id, grantee: { principalId: ned.id }, role: 'editor' }, o.mia.key);
    await refused(o.s, 'files.sheetFedRange', { fileId: sheet.id, op: 'refresh' }, 'FORBIDDEN_SCOPE', { key: ned.key, message: /books\.read/ });
    expect((await read(ned.key)).F1).toMatchObject({ value: null, error: '#N/A' });
    const exp = await ok(o.s, 'files.exportRequest', { fileId: sheet.id, format: 'xlsx' }, o.mia.key);
    const book = unzipSync((await download(o.s, exp.url)).bytes);
    const ws = strFromU8(book['xl/worksheets/sheet1.xml']);
    expect(ws).toContain('<f>SUM(A1:A3)</f><v>6</v>');
    expect(ws).toContain('<f>SUM(C10:C20)</f><v>31415</v>');
  });

  it('4. sharing: without a grant get, list and search show nothing; a viewer’s write is FORBIDDEN_SCOPE; an old guest URL is 404 after revoke; an agent’s email share holds', async () => {
    const vault = await folder(o.s, o.mia.key, 'Acquisition', { restricted: true });
    const memo = await upload(o.s, o.mia.key, 'term sheet.txt', 'the pangolin valuation', { parentId: vault.id });
    await refused(o.s, 'files.get', { fileId: memo.id }, 'NOT_FOUND', { key: o.max.key });
    await refused(o.s, 'files.list', { parentId: vault.id }, 'NOT_FOUND', { key: o.max.key });
    expect((await ok(o.s, 'files.list', {}, o.max.key)).files.map((f: any) => f.id)).not.toContain(vault.id);
    expect((await ok(o.s, 'files.list', { query: 'pangolin' }, o.max.key)).files).toEqual([]);
    await refused(o.s, 'files.exportRequest', { fileId: memo.id, format: 'original' }, 'NOT_FOUND', { key: o.max.key });

    await ok(o.s, 'files.shareGrant', { fileId: vault.id, grantee: { principalId: o.max.id }, role: 'viewer' }, o.mia.key);
    expect((await ok(o.s, 'files.list', { query: 'pangolin' }, o.max.key)).files.map((f: any) => f.id)).toEqual([memo.id]);
    for (const [method, params] of [
      ['files.rename', { fileId: memo.id, name: 'x' }],
      ['files.delete', { fileId: memo.id }],
      ['files.move', { fileId: memo.id, parentId: null }],
      ['files.shareGrant', { fileId: memo.id, grantee: { org: true }, role: 'viewer' }],
    ] as const) {
      expect(await refused(o.s, method, params, 'FORBIDDEN_SCOPE', { key: o.max.key })).toMatch(/missing role (editor|manager)/);
    }

    const email = await ok(o.s, 'files.shareGrant', { fileId: memo.id, grantee: { email: 'banker@advisors.example' }, role: 'viewer' }, o.mia.key);
    const path = new URL(email.guestUrl).pathname;
    expect((await o.s.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
    await ok(o.s, 'files.shareRevoke', { fileId: memo.id, grantId: email.grant.id }, o.mia.key);
    expect((await o.s.app.inject({ method: 'GET', url: path })).statusCode).toBe(404);

    const agentFile = await upload(o.s, o.agent.key, 'pitch.txt', 'pitch');
    const before = await head(o.s.client);
    const hold = await held(
      o.s,
      'files.shareGrant',
      { fileId: agentFile.id, grantee: { email: 'lead@prospect.example' }, role: 'viewer' },
      { key: o.agent.key },
    );
    expect(hold.actionClass).toBe('files.share_grant');
    expect((await eventsAfter(o.s.client, before)).map((e) => e.kind)).toEqual(['files.signature.hold']);
    expect((await ok(o.s, 'files.get', { fileId: agentFile.id }, o.agent.key)).grants).toEqual([]);
  });

  it('6. trash: a folder recovers its subtree; an agent’s purge holds, after approval its blobs go; a replay returns the same frame; a new key gets changed:false', async () => {
    const dir = await folder(o.s, o.agent.key, 'Agent workspace');
    const inner = await folder(o.s, o.agent.key, 'Drafts', { parentId: dir.id });
    const a = await upload(o.s, o.agent.key, 'a.txt', 'alpha bytes', { parentId: inner.id });
    const b = await upload(o.s, o.agent.key, 'b.txt', 'beta bytes', { parentId: dir.id });

    await ok(o.s, 'files.delete', { fileId: dir.id }, o.agent.key);
    const back = await ok(o.s, 'files.recover', { fileId: dir.id }, o.agent.key);
    expect(back).toMatchObject({ files: 4, changed: true });
    for (const f of [inner, a, b]) expect((await ok(o.s, 'files.get', { fileId: f.id }, o.agent.key)).file.status).toBe('active');

    await ok(o.s, 'files.delete', { fileId: dir.id }, o.agent.key);
    const approval = await held(o.s, 'files.delete', { fileId: dir.id, permanent: true }, { key: o.agent.key, holdKind: 'files.signature.hold' });
    const approvalId = await approved(o.s, approval, o.agent.key, o.owner.key);
    const params = { fileId: dir.id, permanent: true, approvalId };
    const first = await o.s.client.rpc('files.delete', params, { key: o.agent.key, idem: 'purge-1' });
    expect(first.body.result).toMatchObject({ status: 'purged', files: 4, changed: true });
    const replay = await o.s.client.rpc('files.delete', params, { key: o.agent.key, idem: 'purge-1' });
    expect(replay.raw).toBe(first.raw);
    // A new key finds it purged already: changed:false (the proof was single-use, so none is sent again).
    const again = await o.s.client.rpc('files.delete', { fileId: dir.id, permanent: true }, { key: o.agent.key, idem: 'purge-2' });
    expect(again.body.result).toMatchObject({ status: 'purged', changed: false });

    // Nothing holds the bytes any more: GC collects them.
    const shas = [a.sha256, b.sha256];
    const refs = await o.s.runtime.db.query('SELECT 1 FROM blob_refs WHERE org_id = $1 AND sha256 = ANY($2::text[])', [o.s.org.orgId, shas]);
    expect(refs.length).toBe(0);
    await collectBlobs(o.s.runtime.deps.blobs, { graceMs: 0 });
    const rows = await o.s.runtime.db.query('SELECT 1 FROM blobs WHERE org_id = $1 AND sha256 = ANY($2::text[])', [o.s.org.orgId, shas]);
    expect(rows.length).toBe(0);
    await refused(o.s, 'files.get', { fileId: a.id }, 'NOT_FOUND', { key: o.agent.key });
  });
});
