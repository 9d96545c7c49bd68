import type { z } from 'zod';
import { badRequest, conflict } from '../../protocol/errors.js';
import type { File as FileShape } from '../../protocol/methods/files/drive.js';
import { one, type Queryable } from '../../db/types.js';
import { FILE_COLUMNS, fileAccess, placeUnder, type Caller, type FileAccess, type FileRow } from './access.js';

/*
 * The drive's rows as the contract shows them, and the lookups every drive method shares. Names live only in rows
 * and results; events carry ids, kinds, sizes and hashes (eventIds below).
 */

export type FileView = z.infer<typeof FileShape>;

const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());

export function toFile(r: FileRow, starred: boolean): FileView {
  return {
    id: r.file_id,
    kind: r.kind,
    name: r.name,
    parentId: r.parent_id,
    restricted: r.restricted,
    reviewMode: r.review_mode,
    revision: Number(r.revision),
    sizeBytes: Number(r.size_bytes),
    sha256: r.sha256,
    contentType: r.content_type,
    status: r.status,
    trashedRoot: r.trashed_root,
    trashedAt: iso(r.trashed_at),
    starred,
    createdBy: r.created_by,
    createdAt: iso(r.created_at)!,
    updatedBy: r.updated_by,
    updatedAt: iso(r.updated_at)!,
  };
}

/** Which of these files the caller starred. */
export async function starredAmong(q: Queryable, orgId: string, principalId: string, fileIds: readonly string[]): Promise<Set<string>> {
  if (fileIds.length === 0) return new Set();
  const rows = await q.query<{ file_id: string }>('SELECT file_id FROM file_stars WHERE org_id = $1 AND principal_id = $2 AND file_id = ANY($3::text[])', [
    orgId,
    principalId,
    [...fileIds],
  ]);
  return new Set(rows.map((r) => r.file_id));
}

/** Rows as contract files, with the caller's stars. */
export async function filesFor(q: Queryable, orgId: string, principalId: string, rows: readonly FileRow[]): Promise<FileView[]> {
  const stars = await starredAmong(
    q,
    orgId,
    principalId,
    rows.map((r) => r.file_id),
  );
  return rows.map((r) => toFile(r, stars.has(r.file_id)));
}

export async function fileView(q: Queryable, orgId: string, principalId: string, fileId: string): Promise<FileView> {
  const row = await fileRow(q, orgId, fileId);
  return (await filesFor(q, orgId, principalId, [row]))[0];
}

/** A file the caller has read or locked in this transaction (file rows are never deleted: a purge keeps them). */
export async function fileRow(q: Queryable, orgId: string, fileId: string): Promise<FileRow> {
  return one(await q.query<FileRow>(`SELECT ${FILE_COLUMNS} FROM files f WHERE f.org_id = $1 AND f.file_id = $2`, [orgId, fileId]), `file ${fileId}`);
}

/** An active file the caller holds `need` on: trashed is CONFLICT naming the way back. */
export async function activeFile(
  q: Queryable,
  orgId: string,
  fileId: string,
  caller: Caller,
  need: Parameters<typeof fileAccess>[4],
  now: Date,
  lock = true,
): Promise<FileAccess> {
  const access = await fileAccess(q, orgId, fileId, caller, need, { lock, now });
  if (access.file.status === 'trashed') {
    throw conflict(`file ${fileId} is in the trash: recover it first (files.recover on ${access.file.trashed_root ?? fileId})`);
  }
  return access;
}

/**
 * The folder a file goes into: an active folder the caller edits. Not a folder is BAD_REQUEST naming the field; a
 * trashed one CONFLICT; unreadable NOT_FOUND.
 */
export async function targetFolder(q: Queryable, orgId: string, folderId: string, caller: Caller, now: Date, field = 'parentId'): Promise<FileRow> {
  await lockAbove(q, orgId, folderId);
  const { file } = await fileAccess(q, orgId, folderId, caller, 'editor', { lock: true, now });
  if (file.kind !== 'folder') throw badRequest(field, `${folderId} is a ${file.kind}, not a folder`);
  if (file.status === 'trashed')
    throw conflict(`folder ${folderId} is in the trash: recover it first (files.recover on ${file.trashed_root ?? folderId}) or choose another folder`);
  return file;
}

/**
 * Share-lock the folder's ancestors, top first, before the folder itself is locked for update. A move or a trash of
 * an ancestor locks that ancestor for update first, so the two queue instead of a new child taking a path (or a
 * status) that the move's or trash's one UPDATE of the subtree, already under way, would miss.
 */
async function lockAbove(q: Queryable, orgId: string, folderId: string): Promise<void> {
  const chain = async () =>
    (
      await q.query<{ file_id: string }>(
        `WITH RECURSIVE up(file_id, parent_id, depth) AS (
           SELECT file_id, parent_id, 0 FROM files WHERE org_id = $1 AND file_id = $2
           UNION ALL SELECT p.file_id, p.parent_id, up.depth + 1 FROM files p JOIN up ON p.org_id = $1 AND p.file_id = up.parent_id WHERE up.depth < 10000)
         SELECT file_id FROM up WHERE depth > 0 ORDER BY depth DESC`,
        [orgId, folderId],
      )
    ).map((r) => r.file_id);
  for (let attempt = 0; attempt < 3; attempt++) {
    const above = await chain();
    if (above.length === 0) return;
    await q.query(`SELECT file_id FROM files WHERE org_id = $1 AND file_id = ANY($2::text[]) ORDER BY array_position($2::text[], file_id) FOR SHARE`, [
      orgId,
      above,
    ]);
    // A move that committed meanwhile may have changed the chain: lock the new one.
    if ((await chain()).join('/') === above.join('/')) return;
  }
}

/** The erasable-safe description of a file for its events: ids, kind, revision, size and hash; never its name. */
export function eventIds(r: Pick<FileRow, 'file_id' | 'kind' | 'parent_id' | 'revision' | 'size_bytes' | 'sha256'>) {
  return { fileId: r.file_id, kind: r.kind, parentId: r.parent_id, revision: Number(r.revision), sizeBytes: Number(r.size_bytes), sha256: r.sha256 };
}

/** Text kept for search: bounded so the search document stays far below PostgreSQL's 1 MB tsvector limit. */
export const MAX_BODY_TEXT_CHARS = 200_000;
export const boundText = (t: string | null | undefined): string | null => {
  if (!t) return null;
  // NUL is refused by PostgreSQL; lone surrogates are not text.
  const clean = t
    .slice(0, MAX_BODY_TEXT_CHARS)
    .replace(/\u0000/g, ' ')
    .toWellFormed()
    .trim();
  return clean || null;
};

export interface NewFile {
  fileId: string;
  kind: FileRow['kind'];
  name: string;
  parent: FileRow | null;
  restricted: boolean;
  /** Docs: an agent's edits become suggestions a human accepts. */
  reviewMode?: boolean;
  by: string;
  at: string;
  revision?: number;
  sizeBytes?: number;
  sha256?: string | null;
  contentType?: string | null;
  bodyText?: string | null;
}

/** Insert a file row under its parent (access path and org reach from placeUnder). */
export async function insertFile(q: Queryable, orgId: string, f: NewFile): Promise<FileRow> {
  const place = placeUnder(f.parent, f.fileId, f.restricted);
  const row = one(
    await q.query<FileRow>(
      `INSERT INTO files AS f (org_id, file_id, kind, name, parent_id, restricted, access_path, open_to_org, revision, size_bytes, sha256, content_type,
                        body_text, created_by, created_at, updated_by, updated_at, review_mode)
     VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8, $9, $10, $11, $12, $13, $14, $15, $14, $15, $16)
     RETURNING ${FILE_COLUMNS}`,
      [
        orgId,
        f.fileId,
        f.kind,
        f.name,
        f.parent?.file_id ?? null,
        f.restricted,
        place.accessPath,
        place.openToOrg,
        f.revision ?? 0,
        f.sizeBytes ?? 0,
        f.sha256 ?? null,
        f.contentType ?? null,
        boundText(f.bodyText),
        f.by,
        f.at,
        f.reviewMode ?? false,
      ],
    ),
  );
  return row;
}

/** Record a native kind's new head (create, duplicate, restore): revision, hash, size and search text. */
export async function setHead(
  q: Queryable,
  orgId: string,
  fileId: string,
  head: { revision: number; sha256: string; sizeBytes: number; text: string | null },
  by: string,
  at: string,
): Promise<FileRow> {
  const row = one(
    await q.query<FileRow>(
      `UPDATE files AS f SET revision = $3, sha256 = $4, size_bytes = $5, body_text = $6, updated_by = $7, updated_at = $8
      WHERE f.org_id = $1 AND f.file_id = $2 RETURNING ${FILE_COLUMNS}`,
      [orgId, fileId, head.revision, head.sha256, head.sizeBytes, boundText(head.text), by, at],
    ),
  );
  return row;
}
