import { family, type Family, type SignedRecordCheck } from '../core/family.js';
import { create, duplicate, get, rename, star } from './drive.js';
import { EXPORT_RECORD, exportRequest, exportServable } from './export.js';
import { list } from './list.js';
import { move } from './move.js';
import { shareGrant, shareRevoke } from './sharing.js';
import { del, recover } from './trash.js';
import { uploadRegister } from './upload.js';
import { docsHandlers } from './docs/index.js';
import { sheetHandlers } from './sheets/index.js';
import { deckHandlers } from './decks/index.js';
import { commentHandlers } from './comments/index.js';
import { askHandlers } from './ask/index.js';
import { FILES_ANSWERER } from './ask/answerer.js';
import { recordVisibility } from '../event-records.js';
import { filesReferences } from './references.js';
import type { Queryable } from '../../db/types.js';
import type { Deps } from '../core/deps.js';
import { newId } from '../core/ids.js';
import { callerOf } from './access.js';
import { insertFile, targetFolder } from './model.js';
import { describeBytes, holdUpload, type PreparedUpload } from './upload.js';

/*
 * The files group: files.* (the drive in this folder, the doc, sheet and deck areas in docs/, sheets/ and decks/,
 * comments in comments/, which add their
 * spread lines here), file.* (file/: pins and unanchored discussion on any object) and annotation.* (annotation/:
 * the one store of anchored threads). They share the annotation store and the drive's access rules (access.ts), so
 * they are one module: other families reach any of them only through this file. Native kinds through kinds.ts.
 */
export const filesHandlers = family('files', {
  get,
  list,
  create,
  uploadRegister,
  rename,
  move,
  duplicate,
  delete: del,
  recover,
  star,
  shareGrant,
  shareRevoke,
  exportRequest,
  ...docsHandlers,
  ...sheetHandlers,
  ...deckHandlers,
  ...commentHandlers,
  ...askHandlers,
});

/** Who sees a files event: those with a role on the file (open to the org, created it, or granted on its path), its actor. */
export const filesEvents = recordVisibility({ records: (e, p) => [p.fileId ?? p.subjectId ?? e.entity_id] });

/** The records files' signed download URLs are bound to (domain/deployed.ts binds them at start). */
export const filesSignedRecords: ReadonlyMap<string, SignedRecordCheck> = new Map([[EXPORT_RECORD, exportServable]]);

/** The files family, as domain/deployed.ts lists it. */
export const filesFamily: Family = {
  name: 'files',
  methods: filesHandlers,
  eventVisibility: { files: filesEvents },
  signedRecords: filesSignedRecords,
  contributes: { references: filesReferences },
  answerers: [FILES_ANSWERER],
};

export type { FileAccess } from './access.js';
export { callerOf, canReadFile } from './access.js';

/*
 * Bytes the org already holds becoming a file (email.fileAttachment): describeHeldBlob sniffs the type and extracts the
 * search text before the call's transaction (as an upload's prepare does); fileFromBlob then makes the upload in the
 * caller's transaction, the new file's version holding the blob, at the top of the drive or in a folder the caller
 * may edit. Files appends no event of its own: the calling family's one event names the file.
 */
export type { PreparedUpload as HeldBlobText } from './upload.js';

export const describeHeldBlob = (deps: Pick<Deps, 'blobs' | 'log'>, orgId: string, blob: { sha256: string; size: number; contentType: string }) =>
  describeBytes(deps.blobs, orgId, blob, deps.log);

export async function fileFromBlob(
  q: Queryable,
  orgId: string,
  f: { principal: { id: string; scopes: ReadonlySet<string> }; name: string; parentId?: string; blob: PreparedUpload; now: Date },
): Promise<{ fileId: string; sha256: string; sizeBytes: number; contentType: string }> {
  const caller = callerOf(f.principal);
  const at = f.now.toISOString();
  const parent = f.parentId === undefined ? null : await targetFolder(q, orgId, f.parentId, caller, f.now, 'folderId');
  const fileId = newId('fil');
  const { blob } = f;
  await insertFile(q, orgId, {
    fileId,
    kind: 'upload',
    name: f.name,
    parent,
    restricted: false,
    by: caller.id,
    at,
    revision: 1,
    sizeBytes: blob.size,
    sha256: blob.sha256,
    contentType: blob.contentType,
    bodyText: blob.text,
  });
  await holdUpload(q, orgId, fileId, 1, blob, caller.id, at);
  return { fileId, sha256: blob.sha256, sizeBytes: blob.size, contentType: blob.contentType };
}

/** A file that exists (trashed counts; purged does not), as a family that remembers its id shows it again; else null. */
export async function liveFile(q: Queryable, orgId: string, fileId: string): Promise<{ sizeBytes: number; contentType: string | null } | null> {
  const [row] = await q.query<{ size_bytes: string | number; content_type: string | null }>(
    `SELECT size_bytes, content_type FROM files WHERE org_id = $1 AND file_id = $2 AND status <> 'purged'`,
    [orgId, fileId],
  );
  return row ? { sizeBytes: Number(row.size_bytes), contentType: row.content_type } : null;
}

/**
 * Active files by id, as another family shows them to an outside guest it vouches for (crm's deal rooms: files a
 * member linked to the deal and shared): name, kind, size and, for uploads, the blob to stream. Trashed or purged
 * files are left out. No access check here: the calling family's own record is the permission.
 */
export async function filesForGuest(
  q: Queryable,
  orgId: string,
  fileIds: readonly string[],
): Promise<{ fileId: string; kind: string; name: string; sizeBytes: number; contentType: string | null; sha256: string | null }[]> {
  if (fileIds.length === 0) return [];
  const rows = await q.query<{ file_id: string; kind: string; name: string; size_bytes: string | number; content_type: string | null; sha256: string | null }>(
    `SELECT file_id, kind, name, size_bytes, content_type, sha256 FROM files WHERE org_id = $1 AND file_id = ANY($2::text[]) AND status = 'active'`,
    [orgId, fileIds],
  );
  const byId = new Map(rows.map((r) => [r.file_id, r]));
  return fileIds.flatMap((id) => {
    const r = byId.get(id);
    return r ? [{ fileId: r.file_id, kind: r.kind, name: r.name, sizeBytes: Number(r.size_bytes), contentType: r.content_type, sha256: r.sha256 }] : [];
  });
}

/** The group's other families, as domain/deployed.ts lists them. */
export { annotationFamily } from './annotation/index.js';
export { fileFamily } from './file/index.js';

/** A doc filed or revised as the caller by another family (meetings.recapFile), without a files event. */
export { writeDocAs, type DocWrite } from './docs/external.js';

/** PDF bytes from a pdfmake document definition with files' fonts and no URL or file access (branding's renders and guidelines). */
export { renderPdf } from './pdf.js';
