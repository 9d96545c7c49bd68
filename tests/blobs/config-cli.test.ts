import { Readable } from 'node:stream';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_BLOB_LIMITS, loadBlobConfig, type BlobConfig } from '../../blobs/config.js';
import { startBlobGc } from '../../blobs/gc.js';
import { blobsGcCommand } from '../../cli/blobs-gc.js';
import { loadConfig, ENV_HELP } from '../../cli/config.js';
import type { Runtime } from '../../domain/deployed.js';
import { freshOrg, testRuntime, type TestOrg } from '../helpers/harness.js';
import { eventually } from './kit.js';

describe('blob settings', () => {
  it('defaults: disk under DATA_DIR/blobs, 1 GiB, 24 h grace', () => {
    const c = loadBlobConfig({}, '/srv/data');
    expect(c).toEqual({ dir: '/srv/data/blobs', s3: undefined, ...DEFAULT_BLOB_LIMITS });
    expect(loadConfig({ DATA_DIR: '/x' }).blobs.dir).toBe('/x/blobs');
    expect(ENV_HELP).toContain('BLOB_MAX_BYTES');
    expect(ENV_HELP).toContain('BLOBS_S3_BUCKET');
  });

  it('S3: a bucket turns it on; path style follows an endpoint; the prefix ends in a slash', () => {
    const c = loadBlobConfig(
      { BLOBS_S3_BUCKET: 'my-blobs', BLOBS_S3_ENDPOINT: 'http://127.0.0.1:9000', BLOBS_S3_PREFIX: 'wops', AWS_REGION: 'ap-southeast-2' },
      '.',
    );
    expect(c.s3).toEqual({
      bucket: 'my-blobs',
      prefix: 'wops/',
      endpoint: 'http://127.0.0.1:9000',
      region: 'ap-southeast-2',
      forcePathStyle: true,
      partSizeBytes: 5 * 1024 * 1024,
    });
    expect(loadBlobConfig({ BLOBS_S3_BUCKET: 'my-blobs' }, '.').s3?.forcePathStyle).toBe(false);
  });

  it('a bad value is refused naming its variable', () => {
    const bad: [Record<string, string>, RegExp][] = [
      [{ BLOB_MAX_BYTES: '-1' }, /^BLOB_MAX_BYTES: /],
      [{ BLOB_GC_GRACE_MS: 'soon' }, /^BLOB_GC_GRACE_MS: /],
      [{ BLOBS_S3_ENDPOINT: 'http://x' }, /BLOBS_S3_ENDPOINT: set BLOBS_S3_BUCKET too/],
      [{ BLOBS_S3_BUCKET: 'Bad_Bucket' }, /^BLOBS_S3_BUCKET: /],
      [{ BLOBS_S3_BUCKET: 'ok-bucket', BLOBS_S3_ENDPOINT: 'ftp://x' }, /^BLOBS_S3_ENDPOINT: /],
      [{ BLOBS_S3_BUCKET: 'ok-bucket', BLOBS_S3_FORCE_PATH_STYLE: 'maybe' }, /^BLOBS_S3_FORCE_PATH_STYLE: /],
      [{ BLOBS_S3_BUCKET: 'ok-bucket', BLOBS_S3_PART_BYTES: '1000' }, /^BLOBS_S3_PART_BYTES: /],
      [{ BLOBS_S3_BUCKET: 'ok-bucket', BLOB_MAX_BYTES: String(6 * 1024 ** 3) }, /^BLOB_MAX_BYTES: at most/],
    ];
    for (const [env, message] of bad) expect(() => loadBlobConfig(env, '.'), JSON.stringify(env)).toThrow(message);
  });
});

describe('blobs-gc command and the server timer', () => {
  let runtime: Runtime;
  let org: TestOrg;
  let dir: string;
  let config: BlobConfig;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wops-blobgc-'));
    config = { ...loadBlobConfig({}, dir) };
    runtime = await testRuntime({ blobs: config });
    org = await freshOrg(runtime, 'gc');
  });
  afterAll(async () => {
    await runtime?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const uploadAged = async (text: string) => {
    const principal = await runtime.pipeline.principalFor(org.adminKey);
    const up = await runtime.deps.blobs.upload({
      orgId: org.orgId,
      principalId: principal.id,
      body: Readable.from([Buffer.from(text)]),
      contentType: 'text/plain',
    });
    await runtime.db.query(`UPDATE blobs SET idle_since = now() - interval '3 days' WHERE org_id = $1 AND sha256 = $2`, [org.orgId, up.sha256]);
    return up.sha256;
  };
  const exists = async (sha: string) => (await runtime.db.query('SELECT 1 AS x FROM blobs WHERE org_id = $1 AND sha256 = $2', [org.orgId, sha])).length === 1;

  it('--dry-run lists what would go and changes nothing; a run deletes it and says so', async () => {
    const sha = await uploadAged(`gc command ${Date.now()}`);
    const dry = await blobsGcCommand(runtime.db, config, { dryRun: true });
    expect(dry).toContain(`would delete ${org.orgId} ${sha}`);
    expect(dry).toMatch(/Dry run \(blobs on disk in .*, grace 86400000 ms\): \d+ unreferenced blob\(s\)/);
    expect(await exists(sha)).toBe(true);
    const real = await blobsGcCommand(runtime.db, config, { dryRun: false });
    expect(real).toMatch(/^Blob GC \(blobs on disk in .*\): [1-9]\d* deleted \(\d+ bytes freed\), 0 kept/);
    expect(await exists(sha)).toBe(false);
    expect(await runtime.deps.blobs.store.exists(org.orgId, sha)).toBe(false);
  });

  it('the server process collects on a timer', async () => {
    const sha = await uploadAged(`gc timer ${Date.now()}`);
    const stop = startBlobGc(runtime.deps.blobs, { intervalMs: 25, log: { info() {}, warn() {} } });
    try {
      expect(await eventually(async () => !(await exists(sha)))).toBe(true);
    } finally {
      stop();
    }
  });
});
