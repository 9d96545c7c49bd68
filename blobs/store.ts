import { createHash, type Hash } from 'node:crypto';
import { Transform, finished, type Readable, type TransformCallback } from 'node:stream';

/** An upload's bytes, kept under a temporary name until its row is written. */
export interface StagedBlob {
  sha256: string;
  size: number;
  /** Put the bytes at their final place (<org>/<sha256>); identical bytes already there are simply kept. */
  place(): Promise<void>;
  /** Remove the temporary copy if it is still there. Never throws. */
  discard(): Promise<void>;
}

/** A byte range, both ends inclusive (HTTP's). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface TrashEntry {
  trashId: string;
  orgId: string;
  sha256: string;
}

/**
 * Where the bytes live: disk (blobs/disk.ts) or an S3-compatible bucket (blobs/s3.ts). The store knows nothing of
 * the database; blobs/service.ts and blobs/gc.ts order its steps against the rows (see blobs/gc.ts).
 */
export interface BlobStore {
  readonly kind: 'disk' | 's3';
  describe(): string;
  /** Stream `body` to a temporary object, hashing as it goes; over maxBytes rejects with BlobTooLargeError. */
  stage(orgId: string, body: Readable, maxBytes: number): Promise<StagedBlob>;
  /** The bytes (or a range of them); resolves once they are found, rejects with BlobMissingError when absent. */
  read(orgId: string, sha256: string, range?: ByteRange): Promise<Readable>;
  exists(orgId: string, sha256: string): Promise<boolean>;
  /** Move the bytes aside (GC, under the row lock): null when there were none. Undone by restore. */
  trash(orgId: string, sha256: string): Promise<string | null>;
  restore(trashId: string): Promise<void>;
  purge(trashId: string): Promise<void>;
  /** Trash left by a collector that stopped between moving bytes aside and purging them. */
  listTrash(): Promise<TrashEntry[]>;
  /** Remove temporary uploads older than `before` (a crashed process's); returns how many. */
  sweepTemporary(before: Date): Promise<number>;
  close(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`body: larger than BLOB_MAX_BYTES (${limit} bytes)`);
    this.name = 'BlobTooLargeError';
  }
}

export class BlobMissingError extends Error {
  constructor(what: string) {
    super(`blob bytes missing: ${what}`);
    this.name = 'BlobMissingError';
  }
}

/** Hashes and counts what passes through; fails the stream once more than maxBytes went by. */
export class HashMeter extends Transform {
  readonly hash: Hash = createHash('sha256');
  /** Bytes seen so far (not `size`: lib-storage would read that as the body's length up front). */
  seen = 0;

  constructor(readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.maxBytes) return done(new BlobTooLargeError(this.maxBytes));
    this.hash.update(chunk);
    done(null, chunk);
  }

  digest(): string {
    return this.hash.digest('hex');
  }
}

/**
 * The body piped through a HashMeter. Unlike stream.pipeline, a failing meter (too large) never destroys the body:
 * the request's socket stays up so the 413 can still be sent. A body that fails or ends early (the client went
 * away) fails the meter, so nothing downstream mistakes a cut-off upload for a whole one.
 */
export function meterFrom(body: Readable, maxBytes: number): HashMeter {
  const meter = new HashMeter(maxBytes);
  body.pipe(meter);
  finished(body, (err) => {
    if (err) meter.destroy(err);
  });
  meter.once('error', () => body.unpipe(meter));
  return meter;
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
export const ORG_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Keys and paths are built from these two only: refuse anything else before it reaches a path. */
export function checkAddress(orgId: string, sha256: string): void {
  if (!ORG_ID.test(orgId) || !SHA256_HEX.test(sha256)) throw new Error('blob store: not an org id and sha256');
}
