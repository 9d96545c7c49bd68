import { ApiError } from '../../protocol/errors.js';
import type { Queryable } from '../../db/types.js';
import { appendEvent } from '../../ledger/append.js';
import type { BlobMeta } from '../../blobs/index.js';
import type { Deps } from '../core/deps.js';
import { addressBucket, count, hmac } from '../people/index.js';
import { FILE_COLUMNS, type FileRow } from './access.js';
import { GRANT_COLUMNS, grantStatus, type GrantRow } from './grants.js';
import { kindContent } from './kinds.js';
import { parseGuestToken } from './sharing.js';

/*
 * What an outside person holding an email grant's link may see (GET /share/<token>, gateway/share.ts): the granted
 * file, or anything below a granted folder that the grant reaches (its access path passes through the granted file,
 * so a restricted folder inside stops it), read-only. Every page view is counted on the grant; every download is a
 * ledger event naming the bytes. Revoked, expired, unknown, of another org or trashed: one and the same 404.
 */

export const GUEST_PER_ADDRESS_PER_MINUTE = 60;

const invalidLink = () => new ApiError('NOT_FOUND', 'this link is not valid: it may have expired or been revoked; ask whoever shared the file for a new one');

async function limitGuest(deps: Deps, source: string | undefined): Promise<void> {
  if (!source) return;
  await count(deps.db, [
    {
      bucket: `share:${hmac(deps.signingKey, 'share-address', addressBucket(source))}`,
      windowMs: 60_000,
      max: GUEST_PER_ADDRESS_PER_MINUTE,
      refusal: `at most ${GUEST_PER_ADDRESS_PER_MINUTE} shared-file pages a minute from one address`,
    },
  ]);
}

export interface GuestFile {
  id: string;
  kind: FileRow['kind'];
  name: string;
  sizeBytes: number;
  contentType: string | null;
  updatedAt: string;
}

export interface GuestPage {
  grantFileId: string;
  expiresAt: string | null;
  file: GuestFile;
  /** Folders: what is inside that the grant reaches (at most 500). */
  children: GuestFile[];
  /** Native files: the content as an HTML fragment of the kind's own making (escaped, no script), when the kind makes one. */
  html: string | null;
  /** Native files of a kind without that: their search text, read-only. */
  text: string | null;
}

const toGuestFile = (r: FileRow): GuestFile => ({
  id: r.file_id,
  kind: r.kind,
  name: r.name,
  sizeBytes: Number(r.size_bytes),
  contentType: r.content_type,
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** The live grant behind a token and the file it reaches (the granted one, or `fileId` below it). */
async function reach(q: Queryable, token: string, fileId: string | undefined, now: Date): Promise<{ orgId: string; grant: GrantRow; file: FileRow }> {
  const parsed = parseGuestToken(token);
  if (!parsed) throw invalidLink();
  const [grant] = await q.query<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM file_grants WHERE org_id = $1 AND token_hash = $2`, [parsed.orgId, parsed.hash]);
  if (!grant || grant.revoked_at !== null || grantStatus(grant, now) !== 'active') throw invalidLink();
  const target = fileId ?? grant.file_id;
  const [file] = await q.query<FileRow>(
    `SELECT ${FILE_COLUMNS} FROM files f WHERE f.org_id = $1 AND f.file_id = $2 AND f.status = 'active' AND f.access_path @> ARRAY[$3::text]`,
    [parsed.orgId, target, grant.file_id],
  );
  if (!file) throw invalidLink();
  return { orgId: parsed.orgId, grant, file };
}

/** A page view: the file (a folder's reachable children, a native file's text), counted on the grant. */
export async function guestPage(deps: Deps, token: string, fileId: string | undefined, source: string | undefined): Promise<GuestPage> {
  await limitGuest(deps, source);
  return deps.db.tx(async (q) => {
    const { orgId, grant, file } = await reach(q, token, fileId, deps.clock.now());
    const children =
      file.kind === 'folder'
        ? await q.query<FileRow>(
            `SELECT ${FILE_COLUMNS} FROM files f WHERE f.org_id = $1 AND f.parent_id = $2 AND f.status = 'active' AND f.access_path @> ARRAY[$3::text]
              ORDER BY (f.kind <> 'folder')::int, f.name, f.file_id LIMIT 500`,
            [orgId, file.file_id, grant.file_id],
          )
        : [];
    const content = file.kind === 'folder' || file.kind === 'upload' ? undefined : kindContent(file.kind);
    const html = content?.guestHtml ? await content.guestHtml(q, orgId, file.file_id) : null;
    const [body] =
      file.kind === 'folder' || file.kind === 'upload' || html !== null
        ? [undefined]
        : await q.query<{ body_text: string | null }>('SELECT body_text FROM files WHERE org_id = $1 AND file_id = $2', [orgId, file.file_id]);
    await q.query('UPDATE file_grants SET views = views + 1 WHERE org_id = $1 AND grant_id = $2', [orgId, grant.grant_id]);
    return {
      grantFileId: grant.file_id,
      expiresAt: grant.expires_at === null ? null : new Date(grant.expires_at).toISOString(),
      file: toGuestFile(file),
      children: children.map(toGuestFile),
      html,
      text: body?.body_text ?? null,
    };
  });
}

/** An upload's bytes for a guest: the grant checked now, the download a ledger event (sha256 and size, no names). */
export async function guestDownload(deps: Deps, token: string, fileId: string, source: string | undefined): Promise<{ meta: BlobMeta; name: string }> {
  await limitGuest(deps, source);
  const { orgId, meta, name, seq } = await deps.db.tx(async (q) => {
    const { orgId, grant, file } = await reach(q, token, fileId, deps.clock.now());
    if (file.kind !== 'upload' || file.sha256 === null) throw invalidLink();
    const event = await appendEvent(q, orgId, {
      family: 'files',
      kind: 'files.share.download',
      entityId: file.file_id,
      actor: '',
      payload: { grantId: grant.grant_id, fileId: file.file_id, revision: Number(file.revision), sha256: file.sha256, sizeBytes: Number(file.size_bytes) },
    });
    const meta: BlobMeta = { orgId, sha256: file.sha256, size: Number(file.size_bytes), contentType: file.content_type ?? 'application/octet-stream' };
    return { orgId, meta, name: file.name, seq: event.seq };
  });
  deps.stream.appended(orgId, seq);
  return { meta, name };
}
