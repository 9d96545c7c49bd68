import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BlobMissingError, checkAddress, meterFrom, type BlobStore, type ByteRange, type StagedBlob, type TrashEntry } from './store.js';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Make a rename durable: the directory entry is written when the directory is synced. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Blobs on disk: <root>/<orgId>/<aa>/<sha256>. An upload streams into <root>/.tmp (the same file system, so the
 * final rename is atomic), is fsynced, then renamed into place; GC moves bytes to <root>/.trash/<orgId>/ first.
 */
export class DiskBlobStore implements BlobStore {
  readonly kind = 'disk' as const;

  constructor(readonly root: string) {}

  describe(): string {
    return `blobs on disk in ${this.root}`;
  }

  private finalPath(orgId: string, sha256: string): string {
    checkAddress(orgId, sha256);
    return join(this.root, orgId, sha256.slice(0, 2), sha256);
  }

  async stage(orgId: string, body: Readable, maxBytes: number): Promise<StagedBlob> {
    const tmpDir = join(this.root, '.tmp');
    await mkdir(tmpDir, { recursive: true });
    const tmp = join(tmpDir, `${orgId}.${randomUUID()}`);
    const meter = meterFrom(body, maxBytes);
    try {
      // flush: fsync before close, so the bytes are on disk before the rename makes them the blob.
      await pipeline(meter, createWriteStream(tmp, { flags: 'wx', mode: 0o600, flush: true }));
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    const sha256 = meter.digest();
    const final = this.finalPath(orgId, sha256);
    return {
      sha256,
      size: meter.seen,
      place: async () => {
        await mkdir(dirname(final), { recursive: true });
        await rename(tmp, final);
        await syncDir(dirname(final));
      },
      discard: () => rm(tmp, { force: true }).catch(() => {}),
    };
  }

  async read(orgId: string, sha256: string, range?: ByteRange): Promise<Readable> {
    const path = this.finalPath(orgId, sha256);
    let handle;
    try {
      handle = await open(path, 'r');
    } catch (err) {
      if (isMissing(err)) throw new BlobMissingError(`${orgId}/${sha256}`);
      throw err;
    }
    return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
  }

  async exists(orgId: string, sha256: string): Promise<boolean> {
    try {
      await stat(this.finalPath(orgId, sha256));
      return true;
    } catch (err) {
      if (isMissing(err)) return false;
      throw err;
    }
  }

  async trash(orgId: string, sha256: string): Promise<string | null> {
    const from = this.finalPath(orgId, sha256);
    const trashId = `${orgId}/${sha256}.${randomUUID()}`;
    const to = join(this.root, '.trash', trashId);
    await mkdir(dirname(to), { recursive: true });
    try {
      await rename(from, to);
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
    return trashId;
  }

  private parseTrashId(trashId: string): TrashEntry {
    const match = /^([^/]+)\/([0-9a-f]{64})\.[0-9a-f-]{36}$/.exec(trashId);
    if (!match) throw new Error('blob store: not a trash id');
    checkAddress(match[1], match[2]);
    return { trashId, orgId: match[1], sha256: match[2] };
  }

  async restore(trashId: string): Promise<void> {
    const { orgId, sha256 } = this.parseTrashId(trashId);
    const final = this.finalPath(orgId, sha256);
    await mkdir(dirname(final), { recursive: true });
    try {
      await rename(join(this.root, '.trash', trashId), final);
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  async purge(trashId: string): Promise<void> {
    this.parseTrashId(trashId);
    await rm(join(this.root, '.trash', trashId), { force: true });
  }

  async listTrash(): Promise<TrashEntry[]> {
    const entries: TrashEntry[] = [];
    for (const org of await readdir(join(this.root, '.trash')).catch(() => [] as string[])) {
      for (const name of await readdir(join(this.root, '.trash', org)).catch(() => [] as string[])) {
        try {
          entries.push(this.parseTrashId(`${org}/${name}`));
        } catch {
          // not ours: left alone
        }
      }
    }
    return entries;
  }

  async sweepTemporary(before: Date): Promise<number> {
    const dir = join(this.root, '.tmp');
    let removed = 0;
    for (const name of await readdir(dir).catch(() => [] as string[])) {
      const path = join(dir, name);
      const info = await stat(path).catch(() => undefined);
      if (info && info.mtime < before) {
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {}
}
