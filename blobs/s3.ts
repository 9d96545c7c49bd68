import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { S3Settings } from './config.js';
import { BlobMissingError, checkAddress, meterFrom, type BlobStore, type ByteRange, type StagedBlob, type TrashEntry } from './store.js';

// The SDK (a quarter of a second to load) is required when an S3 store is made, so only when S3 is configured, and
// lib-storage at its first upload. Both packages are CommonJS only: require gives the very modules an import gives.
const require = createRequire(import.meta.url);
const sdk = () => require('@aws-sdk/client-s3') as typeof import('@aws-sdk/client-s3');
const storage = () => require('@aws-sdk/lib-storage') as typeof import('@aws-sdk/lib-storage');

const notFound = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Blobs in an S3-compatible bucket: <prefix><orgId>/<sha256>. The hash is known only at the end of the stream, so an
 * upload goes (multipart, lib-storage's Upload: at most queueSize parts in memory) to <prefix>.tmp/<uuid> and is
 * then copied server-side to its final key (CopyObject: no bytes through this process). An existing final key is
 * kept as is: identical bytes by construction.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  /** Parts uploaded by multipart uploads since start (tests check that large blobs really went multipart). */
  partsUploaded = 0;
  private readonly s3 = sdk();

  constructor(readonly settings: S3Settings) {
    this.client = new this.s3.S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: settings.forcePathStyle,
      credentials: settings.credentials,
    });
  }

  describe(): string {
    return `blobs in S3 bucket ${this.settings.bucket}${this.settings.endpoint ? ` at ${this.settings.endpoint}` : ''}`;
  }

  private finalKey(orgId: string, sha256: string): string {
    checkAddress(orgId, sha256);
    return `${this.settings.prefix}${orgId}/${sha256}`;
  }

  private source(key: string): string {
    return `${this.settings.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  async stage(orgId: string, body: Readable, maxBytes: number): Promise<StagedBlob> {
    const tmpKey = `${this.settings.prefix}.tmp/${orgId}.${randomUUID()}`;
    const meter = meterFrom(body, maxBytes);
    let streamError: Error | undefined;
    meter.once('error', (err) => (streamError = err));
    const upload = new (storage().Upload)({
      client: this.client,
      params: { Bucket: this.settings.bucket, Key: tmpKey, Body: meter },
      partSize: this.settings.partSizeBytes,
      queueSize: 2,
      leavePartsOnError: false,
    });
    upload.on('httpUploadProgress', (p) => {
      if (p.part !== undefined) this.partsUploaded++;
    });
    try {
      await upload.done();
    } catch (err) {
      await this.deleteKey(tmpKey).catch(() => {});
      throw streamError ?? err;
    }
    if (streamError) {
      await this.deleteKey(tmpKey).catch(() => {});
      throw streamError;
    }
    const sha256 = meter.digest();
    const finalKey = this.finalKey(orgId, sha256);
    return {
      sha256,
      size: meter.seen,
      place: async () => {
        if (!(await this.keyExists(finalKey))) {
          await this.client.send(new this.s3.CopyObjectCommand({ Bucket: this.settings.bucket, Key: finalKey, CopySource: this.source(tmpKey) }));
        }
        await this.deleteKey(tmpKey);
      },
      discard: () => this.deleteKey(tmpKey).catch(() => {}),
    };
  }

  private async deleteKey(key: string): Promise<void> {
    await this.client.send(new this.s3.DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }));
  }

  private async keyExists(key: string): Promise<boolean> {
    try {
      await this.client.send(new this.s3.HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return true;
    } catch (err) {
      if (notFound(err)) return false;
      throw err;
    }
  }

  async read(orgId: string, sha256: string, range?: ByteRange): Promise<Readable> {
    try {
      const got = await this.client.send(
        new this.s3.GetObjectCommand({
          Bucket: this.settings.bucket,
          Key: this.finalKey(orgId, sha256),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      return got.Body as Readable;
    } catch (err) {
      if (notFound(err)) throw new BlobMissingError(`${orgId}/${sha256}`);
      throw err;
    }
  }

  exists(orgId: string, sha256: string): Promise<boolean> {
    return this.keyExists(this.finalKey(orgId, sha256));
  }

  private trashKey(trashId: string): string {
    return `${this.settings.prefix}.trash/${trashId}`;
  }

  private parseTrashId(trashId: string): TrashEntry {
    const match = /^([^/]+)\/([0-9a-f]{64})\.[0-9a-f-]{36}$/.exec(trashId);
    if (!match) throw new Error('blob store: not a trash id');
    checkAddress(match[1], match[2]);
    return { trashId, orgId: match[1], sha256: match[2] };
  }

  async trash(orgId: string, sha256: string): Promise<string | null> {
    const from = this.finalKey(orgId, sha256);
    const trashId = `${orgId}/${sha256}.${randomUUID()}`;
    try {
      await this.client.send(new this.s3.CopyObjectCommand({ Bucket: this.settings.bucket, Key: this.trashKey(trashId), CopySource: this.source(from) }));
    } catch (err) {
      if (notFound(err)) return null;
      throw err;
    }
    await this.deleteKey(from);
    return trashId;
  }

  async restore(trashId: string): Promise<void> {
    const { orgId, sha256 } = this.parseTrashId(trashId);
    try {
      await this.client.send(
        new this.s3.CopyObjectCommand({ Bucket: this.settings.bucket, Key: this.finalKey(orgId, sha256), CopySource: this.source(this.trashKey(trashId)) }),
      );
    } catch (err) {
      if (notFound(err)) return;
      throw err;
    }
    await this.deleteKey(this.trashKey(trashId));
  }

  async purge(trashId: string): Promise<void> {
    this.parseTrashId(trashId);
    await this.deleteKey(this.trashKey(trashId));
  }

  private async *list(prefix: string): AsyncGenerator<{ key: string; modified?: Date }> {
    let token: string | undefined;
    do {
      const page = await this.client.send(new this.s3.ListObjectsV2Command({ Bucket: this.settings.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const o of page.Contents ?? []) if (o.Key) yield { key: o.Key, modified: o.LastModified };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async listTrash(): Promise<TrashEntry[]> {
    const prefix = `${this.settings.prefix}.trash/`;
    const entries: TrashEntry[] = [];
    for await (const { key } of this.list(prefix)) {
      try {
        entries.push(this.parseTrashId(key.slice(prefix.length)));
      } catch {
        // not ours: left alone
      }
    }
    return entries;
  }

  async sweepTemporary(before: Date): Promise<number> {
    let removed = 0;
    for await (const { key, modified } of this.list(`${this.settings.prefix}.tmp/`)) {
      if (modified && modified < before) {
        await this.deleteKey(key);
        removed++;
      }
    }
    // Multipart uploads a crashed process never completed or aborted (a bucket lifecycle rule does the same).
    try {
      const open = await this.client.send(new this.s3.ListMultipartUploadsCommand({ Bucket: this.settings.bucket, Prefix: `${this.settings.prefix}.tmp/` }));
      for (const u of open.Uploads ?? []) {
        if (u.Key && u.UploadId && u.Initiated && u.Initiated < before) {
          await this.client.send(new this.s3.AbortMultipartUploadCommand({ Bucket: this.settings.bucket, Key: u.Key, UploadId: u.UploadId }));
          removed++;
        }
      }
    } catch {
      // Not every S3-compatible server lists multipart uploads; a lifecycle rule covers them there.
    }
    return removed;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
