import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ApiError } from '../protocol/errors.js';
import type { Db } from '../db/types.js';
import type { BlobConfig } from './config.js';
import { SHA256_HEX, type BlobStore, type ByteRange } from './store.js';

export interface UploadResult {
  sha256: string;
  size: number;
  contentType: string;
  /** false when this principal had uploaded the same bytes before (the answer is 200, not 201). */
  created: boolean;
}

export interface BlobMeta {
  orgId: string;
  sha256: string;
  size: number;
  contentType: string;
}

/** Who asks to read a blob: a bearer key's principal, or a signed URL's parameters. */
export type ReadAccess =
  | { kind: 'principal'; orgId: string; principalId: string }
  | { kind: 'signed'; orgId: string; expires: number; signature: string };

/** Every refusal reads the same: nobody learns whether a blob exists in an org they may not read it in. */
export const blobNotFound = (sha256: string) =>
  new ApiError('NOT_FOUND', `blob ${sha256} not found (a blob a record holds is read through that record, which hands out a signed URL)`);

const CONTENT_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"\\\r\n]*"|[a-z0-9!#$&^_.+-]+))*$/i;

/** The upload's Content-Type when well formed (at most 200 characters), else application/octet-stream. */
export function blobContentType(header: string | undefined): string {
  const value = (header ?? '').trim();
  return value.length > 0 && value.length <= 200 && CONTENT_TYPE.test(value) ? value : 'application/octet-stream';
}

/**
 * The blob service (Deps.blobs): uploads, access-checked reads, signed URLs. Families hold blobs with
 * blobs/refs.ts referenceBlob in their own transaction; blobs/gc.ts collects the rest.
 */
export class BlobService {
  private readonly urlKey: Buffer;

  constructor(
    readonly db: Db,
    readonly store: BlobStore,
    readonly config: BlobConfig,
    signingKey: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    // A key of its own, derived from the instance secret: a blob URL's MAC is never valid as any other token.
    this.urlKey = createHmac('sha256', signingKey).update('wops blob url v1').digest();
  }

  describe(): string {
    return `${this.store.describe()}, at most ${this.config.maxBytes} bytes each`;
  }

  /**
   * Stream a body into the store and record it. The row is written, and the bytes put in place, in one
   * transaction holding the blob's row lock, which GC takes too (blobs/gc.ts): a committed row always has bytes.
   */
  async upload(args: { orgId: string; principalId: string; body: Readable; contentType: string; declaredSha256?: string }): Promise<UploadResult> {
    const staged = await this.store.stage(args.orgId, args.body, this.config.maxBytes);
    try {
      if (args.declaredSha256 !== undefined && args.declaredSha256 !== staged.sha256) {
        throw new ApiError('BAD_REQUEST', `x-content-sha256: the body's SHA-256 is ${staged.sha256}, not the declared ${args.declaredSha256}; nothing was kept`);
      }
      return await this.db.tx(async (q) => {
        const [row] = await q.query<{ content_type: string }>(
          `INSERT INTO blobs (org_id, sha256, size_bytes, content_type, uploaded_by) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (org_id, sha256) DO UPDATE SET idle_since = now()
           RETURNING content_type`,
          [args.orgId, staged.sha256, staged.size, args.contentType, args.principalId],
        );
        await staged.place();
        const fresh = await q.query(
          `INSERT INTO blob_uploaders (org_id, sha256, principal_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1 AS fresh`,
          [args.orgId, staged.sha256, args.principalId],
        );
        return { sha256: staged.sha256, size: staged.size, contentType: row.content_type, created: fresh.length === 1 };
      });
    } finally {
      await staged.discard();
    }
  }

  /** The blob's metadata if `access` may read it, else NOT_FOUND (the same answer for every reason). */
  async authorize(sha256: string, access: ReadAccess): Promise<BlobMeta> {
    if (!SHA256_HEX.test(sha256)) throw blobNotFound(sha256);
    if (access.kind === 'signed' && !this.verifySignature(access.orgId, sha256, access.expires, access.signature)) throw blobNotFound(sha256);
    const [row] = await this.db.query<{ size_bytes: number | string; content_type: string; uploader: boolean; referenced: boolean }>(
      `SELECT b.size_bytes, b.content_type,
              EXISTS (SELECT 1 FROM blob_uploaders u WHERE u.org_id = b.org_id AND u.sha256 = b.sha256 AND u.principal_id = $3) AS uploader,
              EXISTS (SELECT 1 FROM blob_refs r WHERE r.org_id = b.org_id AND r.sha256 = b.sha256) AS referenced
         FROM blobs b WHERE b.org_id = $1 AND b.sha256 = $2`,
      [access.orgId, sha256, access.kind === 'principal' ? access.principalId : ''],
    );
    if (!row) throw blobNotFound(sha256);
    // A hash is not a permission: a bearer reads only what it uploaded, and only until a record holds it.
    if (access.kind === 'principal' && (!row.uploader || row.referenced)) throw blobNotFound(sha256);
    return { orgId: access.orgId, sha256, size: Number(row.size_bytes), contentType: row.content_type };
  }

  open(meta: BlobMeta, range?: ByteRange): Promise<Readable> {
    return this.store.read(meta.orgId, meta.sha256, range);
  }

  private mac(orgId: string, sha256: string, expires: number): Buffer {
    return createHmac('sha256', this.urlKey).update(`${orgId}\n${sha256}\n${expires}`).digest();
  }

  /**
   * A signed download path for a blob, bound to the org and sha256, valid for ttlMs (default BLOB_URL_TTL_MS).
   * Only a record's read calls this, after its own access check: whoever holds the URL may download until it expires.
   */
  signedPath(orgId: string, sha256: string, opts: { ttlMs?: number } = {}): { path: string; expiresAt: string } {
    if (!SHA256_HEX.test(sha256)) throw new Error('signedPath: not a sha256');
    const expires = Math.ceil((this.now().getTime() + (opts.ttlMs ?? this.config.urlTtlMs)) / 1000);
    const sig = this.mac(orgId, sha256, expires).toString('base64url');
    const query = new URLSearchParams({ org: orgId, expires: String(expires), sig });
    return { path: `/api/v1/blobs/${sha256}?${query}`, expiresAt: new Date(expires * 1000).toISOString() };
  }

  /** Seconds a signed URL stays valid (0 when expired or forged). */
  signatureValidFor(orgId: string, sha256: string, expires: number, signature: string): number {
    return this.verifySignature(orgId, sha256, expires, signature) ? Math.max(0, expires - Math.floor(this.now().getTime() / 1000)) : 0;
  }

  private verifySignature(orgId: string, sha256: string, expires: number, signature: string): boolean {
    if (!Number.isSafeInteger(expires) || expires * 1000 <= this.now().getTime()) return false;
    const given = Buffer.from(signature, 'base64url');
    const expected = this.mac(orgId, sha256, expires);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
