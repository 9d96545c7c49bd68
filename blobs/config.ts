/**
 * Blob store settings, read once from the environment by the CLI and passed down (runtime options -> Deps.blobs).
 * Nothing in blobs/ reads process.env itself (the AWS SDK reads its own credentials: AWS_ACCESS_KEY_ID, profiles...).
 */
import { join } from 'node:path';
import { dataPath, envBool, envInt } from '../config/env.js';

export interface S3Settings {
  bucket: string;
  /** Key prefix inside the bucket ('' or ending in '/'). */
  prefix: string;
  /** An S3-compatible server (MinIO, Ceph, R2...); unset = AWS itself. */
  endpoint?: string;
  region: string;
  /** bucket in the path (http://host/bucket/key) rather than the host name: what most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Explicit credentials (tests); unset = the AWS SDK's usual chain (AWS_ACCESS_KEY_ID/..., profiles, roles). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Multipart part size of uploads (bytes, at least 5 MiB). */
  partSizeBytes: number;
}

export interface BlobConfig {
  /** Disk store directory (when s3 is unset). */
  dir: string;
  s3?: S3Settings;
  /** Largest blob accepted by PUT /api/v1/blobs. */
  maxBytes: number;
  /** An unreferenced blob is collected this long after its upload (or its last reference's release). */
  gcGraceMs: number;
  /** How often the server process collects (0 = never; `npm run cli -- blobs-gc` still does). */
  gcIntervalMs: number;
  /** Lifetime of a signed download URL a record's read issues. */
  urlTtlMs: number;
}

export const MIN_PART_BYTES = 5 * 1024 * 1024;
/** S3's CopyObject (temporary key -> final key) takes at most 5 GiB in one request. */
export const S3_MAX_BLOB_BYTES = 5 * 1024 ** 3;

export const DEFAULT_BLOB_LIMITS = {
  maxBytes: 1024 ** 3,
  gcGraceMs: 24 * 60 * 60 * 1000,
  gcIntervalMs: 60 * 60 * 1000,
  urlTtlMs: 5 * 60 * 1000,
};

export function defaultBlobConfig(dataDir: string): BlobConfig {
  return { dir: join(dataDir, 'blobs'), ...DEFAULT_BLOB_LIMITS };
}

export const BLOBS_ENV_HELP = `Blobs (PUT/GET /api/v1/blobs: files, attachments, images):
  BLOBS_DIR             where blobs are kept on disk (default DATA_DIR/blobs, ./.data/blobs)
  BLOB_MAX_BYTES        largest upload accepted (default ${DEFAULT_BLOB_LIMITS.maxBytes}); a larger one is refused with 413.
                        An upload must also arrive within REQUEST_TIMEOUT_MS: raise it for large blobs on slow links
  BLOB_GC_GRACE_MS      an upload no record refers to is deleted this long after it arrived, or after its last
                        reference went (default ${DEFAULT_BLOB_LIMITS.gcGraceMs}, 24 h)
  BLOB_GC_INTERVAL_MS   how often the server collects them (default ${DEFAULT_BLOB_LIMITS.gcIntervalMs}; 0 = only by npm run cli -- blobs-gc)
  BLOB_URL_TTL_MS       lifetime of a signed download URL a record's read hands out (default ${DEFAULT_BLOB_LIMITS.urlTtlMs})
  BLOBS_S3_BUCKET       keep blobs in this S3 bucket instead of on disk (it must exist); credentials from the AWS
                        SDK's usual sources (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, an instance role)
  BLOBS_S3_ENDPOINT     an S3-compatible server, e.g. http://127.0.0.1:9000 (default: AWS)
  BLOBS_S3_REGION       the bucket's region (default AWS_REGION, else us-east-1)
  BLOBS_S3_FORCE_PATH_STYLE  true: http://host/bucket/key addressing (default true with BLOBS_S3_ENDPOINT, else false)
  BLOBS_S3_PREFIX       key prefix inside the bucket (default none)
  BLOBS_S3_PART_BYTES   multipart upload part size (default ${MIN_PART_BYTES}, at least ${MIN_PART_BYTES})`;

function loadS3(env: NodeJS.ProcessEnv): S3Settings | undefined {
  const bucket = env.BLOBS_S3_BUCKET?.trim();
  const others = ['BLOBS_S3_ENDPOINT', 'BLOBS_S3_REGION', 'BLOBS_S3_FORCE_PATH_STYLE', 'BLOBS_S3_PREFIX', 'BLOBS_S3_PART_BYTES'].filter((n) => env[n]);
  if (!bucket) {
    if (others.length) throw new Error(`${others.join(', ')}: set BLOBS_S3_BUCKET too (or unset these to keep blobs on disk)`);
    return undefined;
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`BLOBS_S3_BUCKET: not a bucket name, got ${JSON.stringify(bucket)}`);
  const endpoint = env.BLOBS_S3_ENDPOINT?.trim() || undefined;
  if (endpoint !== undefined) {
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw new Error(`BLOBS_S3_ENDPOINT: not a URL, got ${JSON.stringify(endpoint)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('BLOBS_S3_ENDPOINT: the scheme must be http or https');
  }
  const prefix = (env.BLOBS_S3_PREFIX ?? '').trim().replace(/^\/+/, '');
  return {
    bucket,
    prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
    endpoint,
    region: env.BLOBS_S3_REGION?.trim() || env.AWS_REGION?.trim() || 'us-east-1',
    forcePathStyle: envBool(env, 'BLOBS_S3_FORCE_PATH_STYLE', endpoint !== undefined),
    partSizeBytes: envInt(env, 'BLOBS_S3_PART_BYTES', MIN_PART_BYTES, MIN_PART_BYTES),
  };
}

export function loadBlobConfig(env: NodeJS.ProcessEnv, dataDir: string): BlobConfig {
  const s3 = loadS3(env);
  const maxBytes = envInt(env, 'BLOB_MAX_BYTES', DEFAULT_BLOB_LIMITS.maxBytes, 1);
  if (s3 && maxBytes > S3_MAX_BLOB_BYTES) throw new Error(`BLOB_MAX_BYTES: at most ${S3_MAX_BLOB_BYTES} (5 GiB) with BLOBS_S3_BUCKET`);
  return {
    dir: env.BLOBS_DIR?.trim() || dataPath(dataDir, 'blobs'),
    s3,
    maxBytes,
    gcGraceMs: envInt(env, 'BLOB_GC_GRACE_MS', DEFAULT_BLOB_LIMITS.gcGraceMs, 0),
    gcIntervalMs: envInt(env, 'BLOB_GC_INTERVAL_MS', DEFAULT_BLOB_LIMITS.gcIntervalMs, 0),
    urlTtlMs: envInt(env, 'BLOB_URL_TTL_MS', DEFAULT_BLOB_LIMITS.urlTtlMs, 1000),
  };
}
