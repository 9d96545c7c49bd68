import { family } from '../family.js';
import { create, duplicate, get, rename, star } from './drive.js';
import { exportRequest } from './export.js';
import { list } from './list.js';
import { move } from './move.js';
import { shareGrant, shareRevoke } from './sharing.js';
import { del, recover } from './trash.js';
import { uploadRegister } from './upload.js';
import { docsHandlers } from './docs/index.js';
import { commentHandlers } from './comments/index.js';

/*
 * files.*: the drive (this folder), the doc area (docs/) and comments (comments/) add their spread lines here.
 * Design: /work/shared/design/families/files.md; access rules in access.ts; native kinds through kinds.ts.
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
  ...commentHandlers,
});
