import type { Db } from '../db/types.js';
import type { BlobConfig } from '../blobs/config.js';
import { createBlobStore } from '../blobs/index.js';
import { collectBlobs } from '../blobs/gc.js';

/** `blobs-gc [--dry-run]`: collect unreferenced blobs past BLOB_GC_GRACE_MS now; the report as lines. */
export async function blobsGcCommand(db: Db, config: BlobConfig, opts: { dryRun: boolean }): Promise<string> {
  const store = createBlobStore(config);
  try {
    const r = await collectBlobs({ db, store, config }, { dryRun: opts.dryRun });
    const where = `${store.describe()}, grace ${config.gcGraceMs} ms`;
    if (r.dryRun) {
      const lines = (r.wouldDelete ?? []).map((c) => `would delete ${c.orgId} ${c.sha256} (${c.size} bytes, unreferenced since ${c.idleSince})`);
      const more = r.candidates >= 500 ? ' (the first 500 shown)' : '';
      return [...lines, `Dry run (${where}): ${r.candidates} unreferenced blob(s) past the grace period would be deleted${more}; nothing changed.`].join('\n');
    }
    return [
      `Blob GC (${where}): ${r.deleted} deleted (${r.bytesFreed} bytes freed), ${r.kept} kept (referenced, re-uploaded or busy meanwhile).`,
      `Interrupted earlier runs: ${r.trashRestored} restored, ${r.trashPurged} purged; ${r.temporaryRemoved} stale temporary upload(s) removed.`,
    ].join('\n');
  } finally {
    await store.close();
  }
}
