import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { ApiError } from '../protocol/errors.js';
import { one, type Db, type Queryable, type TxQueryable } from '../db/types.js';
import type { BlobConfig } from './config.js';
import { sniffFrom } from './sniff.js';
import { SHA256_HEX, type BlobStore, type ByteRange, type StagedBlob } from './store.js';

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

/**
 * What a signed URL is bound to besides org and sha256: a record (`kind:id`, e.g. export:exp_…, avatar:usr_…) and,
 * when the URL was issued to someone, that principal. Each serve asks the record's check (bindRecord) again.
 */
export interface SignedRecord {
  kind: string;
  id: string;
  principalId?: string;
}

/** Whether a bound URL may still be served: the record still holds the bytes and its reader may still read it. */
export type RecordCheck = (q: Queryable, orgId: string, record: SignedRecord, sha256: string) => Promise<boolean>;

/** Who asks to read a blob: a bearer key's principal, or a signed URL's parameters. */
export type ReadAccess =
  { kind: 'principal'; orgId: string; principalId: string } | { kind: 'signed'; orgId: string; expires: number; signature: string; record?: SignedRecord };

/** Every refusal reads the same: nobody learns whether a blob exists in an org they may not read it in. */
export const blobNotFound = (sha256: string) =>
  new ApiError('NOT_FOUND', `blob ${sha256} not found (a blob a record holds is read through that record, which hands out a signed URL)`);

const RECORD_KIND = /^[a-z][a-z0-9-]{0,30}$/;

/** `rec=kind:id` and `as=principal` of a signed URL, or undefined when they are not of that form. */
export function parseSignedRecord(rec: string | undefined, as: string | undefined): SignedRecord | undefined {
  const m = rec === undefined ? null : /^([a-z][a-z0-9-]{0,30}):([A-Za-z0-9_#.-]{1,100})$/.exec(rec);
  if (!m || (as !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(as))) return undefined;
  return { kind: m[1], id: m[2], ...(as !== undefined ? { principalId: as } : {}) };
}

const CONTENT_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"\\\r\n]*"|[a-z0-9!#$&^_.+-]+))*$/i;

/** The blob's row (kept, or made) and its uploader, with the staged bytes put in place under the row's lock. */
async function record(q: TxQueryable, staged: StagedBlob, contentType: string, args: { orgId: string; principalId: string }): Promise<UploadResult> {
  const row = one(
    await q.query<{ content_type: string }>(
      `INSERT INTO blobs (org_id, sha256, size_bytes, content_type, uploaded_by) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (org_id, sha256) DO UPDATE SET idle_since = now()
           RETURNING content_type`,
      [args.orgId, staged.sha256, staged.size, contentType, args.principalId],
    ),
  );
  await staged.place();
  const fresh = await q.query(`INSERT INTO blob_uploaders (org_id, sha256, principal_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1 AS fresh`, [
    args.orgId,
    staged.sha256,
    args.principalId,
  ]);
  return { sha256: staged.sha256, size: staged.size, contentType: row.content_type, created: fresh.length === 1 };
}

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
  private readonly records = new Map<string, RecordCheck>();

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
   * Stream a body into the store and record it, typed by its bytes (`contentType` only as the declared hint; with
   * `madeHere`, bytes the server rendered itself, as given). The row is written, and the bytes put in place, in one
   * transaction holding the blob's row lock, which GC takes too (blobs/gc.ts): a committed row always has bytes.
   */
  async upload(args: {
    orgId: string;
    principalId: string;
    body: Readable;
    contentType: string;
    madeHere?: boolean;
    declaredSha256?: string;
  }): Promise<UploadResult> {
    // The uploader's type is a claim: the bytes decide (blobs/sniff.ts). Only bytes this server made keep theirs.
    const sniffer = args.madeHere ? undefined : sniffFrom(args.body);
    const staged = await this.store.stage(args.orgId, sniffer ?? args.body, this.config.maxBytes);
    try {
      const contentType = sniffer ? await sniffer.type(args.contentType) : args.contentType;
      if (args.declaredSha256 !== undefined && args.declaredSha256 !== staged.sha256) {
        throw new ApiError(
          'BAD_REQUEST',
          `x-content-sha256: the body's SHA-256 is ${staged.sha256}, not the declared ${args.declaredSha256}; nothing was kept`,
        );
      }
      return await this.db.tx((q) => record(q, staged, contentType, args));
    } finally {
      await staged.discard();
    }
  }

  /**
   * upload's twin in the caller's transaction, for bytes a server-side effect made inside one (the email delivery
   * job keeping what it sent): on PGlite's one connection, upload's own transaction would wait for the caller's
   * forever. Only bytes this server made (`madeHere`), so nothing is sniffed. The bytes are put in place before the
   * caller commits; should it roll back, no row names them and a later upload of the same bytes keeps them.
   */
  async uploadIn(q: TxQueryable, args: { orgId: string; principalId: string; body: Readable; contentType: string }): Promise<UploadResult> {
    const staged = await this.store.stage(args.orgId, args.body, this.config.maxBytes);
    try {
      return await record(q, staged, args.contentType, args);
    } finally {
      await staged.discard();
    }
  }

  /** The blob's metadata if `access` may read it, else NOT_FOUND (the same answer for every reason). */
  async authorize(sha256: string, access: ReadAccess): Promise<BlobMeta> {
    if (!SHA256_HEX.test(sha256)) throw blobNotFound(sha256);
    if (access.kind === 'signed' && !this.verifySignature(access.orgId, sha256, access.expires, access.signature, access.record)) throw blobNotFound(sha256);
    if (access.kind === 'signed' && access.record) {
      const check = this.records.get(access.record.kind);
      if (!check || !(await check(this.db, access.orgId, access.record, sha256))) throw blobNotFound(sha256);
    }
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

  private mac(orgId: string, sha256: string, expires: number, record?: SignedRecord): Buffer {
    const bound = record ? `\n${record.kind}:${record.id}\n${record.principalId ?? ''}` : '';
    return createHmac('sha256', this.urlKey).update(`${orgId}\n${sha256}\n${expires}${bound}`).digest();
  }

  /** A family's check of the records its signed URLs are bound to (domain/deployed.ts registers them at start). */
  bindRecord(kind: string, check: RecordCheck): void {
    if (!RECORD_KIND.test(kind)) throw new Error(`bindRecord: ${kind} is not a record kind`);
    this.records.set(kind, check);
  }

  /**
   * A signed download path for a blob, bound to the org and sha256, valid for ttlMs (default BLOB_URL_TTL_MS).
   * Only a record's read calls this, after its own access check. With `record` (whose kind must be bound), every
   * download asks the record's check again, so a URL stops serving once the record is gone or its reader lost
   * access; without one, whoever holds the URL may download until it expires.
   */
  signedPath(orgId: string, sha256: string, opts: { ttlMs?: number; record?: SignedRecord } = {}): { path: string; expiresAt: string } {
    if (!SHA256_HEX.test(sha256)) throw new Error('signedPath: not a sha256');
    if (opts.record && !this.records.has(opts.record.kind)) throw new Error(`signedPath: no check is bound for ${opts.record.kind} records`);
    const expires = Math.ceil((this.now().getTime() + (opts.ttlMs ?? this.config.urlTtlMs)) / 1000);
    const sig = this.mac(orgId, sha256, expires, opts.record).toString('base64url');
    const query = new URLSearchParams({ org: orgId, expires: String(expires) });
    if (opts.record) {
      query.set('rec', `${opts.record.kind}:${opts.record.id}`);
      if (opts.record.principalId) query.set('as', opts.record.principalId);
    }
    query.set('sig', sig);
    return { path: `/api/v1/blobs/${sha256}?${query}`, expiresAt: new Date(expires * 1000).toISOString() };
  }

  /** Seconds a signed URL stays valid (0 when expired or forged). */
  signatureValidFor(orgId: string, sha256: string, expires: number, signature: string, record?: SignedRecord): number {
    return this.verifySignature(orgId, sha256, expires, signature, record) ? Math.max(0, expires - Math.floor(this.now().getTime() / 1000)) : 0;
  }

  private verifySignature(orgId: string, sha256: string, expires: number, signature: string, record?: SignedRecord): boolean {
    if (!Number.isSafeInteger(expires) || expires * 1000 <= this.now().getTime()) return false;
    const given = Buffer.from(signature, 'base64url');
    const expected = this.mac(orgId, sha256, expires, record);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
