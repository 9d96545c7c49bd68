import { family, type Family } from '../core/family.js';
import { create, duplicate, get, rename, star } from './drive.js';
import { EXPORT_RECORD, exportRequest, exportServable } from './export.js';
import type { RecordCheck } from '../../blobs/index.js';
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
export const filesSignedRecords: ReadonlyMap<string, RecordCheck> = new Map([[EXPORT_RECORD, exportServable]]);

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

/** The group's other families, as domain/deployed.ts lists them. */
export { annotationFamily } from './annotation/index.js';
export { fileFamily } from './file/index.js';
