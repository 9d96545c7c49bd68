import type { Db } from '../db/types.js';
import type { BlobConfig } from './config.js';
import { DiskBlobStore } from './disk.js';
import { S3BlobStore } from './s3.js';
import { BlobService } from './service.js';
import type { BlobStore } from './store.js';

export {
  BlobService,
  blobContentType,
  blobNotFound,
  parseSignedRecord,
  type BlobMeta,
  type ReadAccess,
  type RecordCheck,
  type SignedRecord,
  type UploadResult,
} from './service.js';
export { heldBlob, referenceBlob, releaseBlob, releaseHolder, uploadedBlob, type HeldBlob } from './refs.js';
export { collectBlobs, startBlobGc, type GcReport } from './gc.js';
export type { BlobConfig } from './config.js';

/** The configured store: S3 when BLOBS_S3_BUCKET is set, else the disk directory. */
export function createBlobStore(config: BlobConfig): BlobStore {
  return config.s3 ? new S3BlobStore(config.s3) : new DiskBlobStore(config.dir);
}

export function createBlobService(db: Db, config: BlobConfig, signingKey: string, opts: { now?: () => Date } = {}): BlobService {
  return new BlobService(db, createBlobStore(config), config, signingKey, opts.now);
}
