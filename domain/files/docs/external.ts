import { badRequest, conflict } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { newId } from '../../core/ids.js';
import { callerOf } from '../access.js';
import { activeFile, insertFile, setHead, targetFolder } from '../model.js';
import { docContent } from './content.js';
import { markdownToBlocks } from './markdown.js';
import { applyOps } from './ops.js';
import { commitRevision, headWithBlocks } from './revise.js';

/*
 * A doc another family files as the caller (meetings.recapFile): created from Markdown at the top of the drive or in
 * a folder they edit, or, given its id, its next revision with the whole first tab replaced (setContent: unchanged
 * blocks keep their ids, so comments on them stay anchored). Access is the drive's, as for files.create and
 * files.docWriteRevision; nothing is emitted: the calling family's one event names the file and revision.
 */

export interface DocWrite {
  principal: { id: string; kind: 'human' | 'agent'; scopes: ReadonlySet<string> };
  /** The doc to revise; absent: a new doc. */
  fileId?: string;
  name: string;
  /** The folder of a new doc (its field in errors: folderId). */
  folderId?: string;
  markdown: string;
  now: Date;
}

export async function writeDocAs(q: Queryable, orgId: string, w: DocWrite): Promise<{ fileId: string; revision: number; changed: boolean }> {
  const caller = callerOf(w.principal);
  const at = w.now.toISOString();
  if (w.fileId === undefined) {
    const parent = w.folderId === undefined ? null : await targetFolder(q, orgId, w.folderId, caller, w.now, 'folderId');
    const fileId = newId('fil');
    await insertFile(q, orgId, { fileId, kind: 'doc', name: w.name.slice(0, 255), parent, restricted: false, by: caller.id, at });
    const head = await docContent.create(q, orgId, fileId, caller.id, { markdown: w.markdown }, w.now);
    await setHead(q, orgId, fileId, head, caller.id, at);
    return { fileId, revision: head.revision, changed: true };
  }
  const { file } = await activeFile(q, orgId, w.fileId, caller, 'editor', w.now, true);
  if (file.kind !== 'doc') throw badRequest('fileId', `${w.fileId} is a ${file.kind}, not a doc`);
  if (file.review_mode && w.principal.kind === 'agent') {
    throw conflict(`doc ${w.fileId} is in review mode: an agent's edits are suggestions a human accepts; ask a human to file it, or to turn review mode off`);
  }
  const { head, blocks } = await headWithBlocks(q, orgId, w.fileId);
  const nodes = markdownToBlocks(w.markdown, 'markdown');
  const applied = applyOps([{ op: 'setContent', nodes }], { head: head.tabs, base: head.tabs, baseRevision: head.revision, headRevision: head.revision, blocks });
  if (applied.changedBlocks.length === 0) return { fileId: w.fileId, revision: head.revision, changed: false };
  const { state, text } = await commitRevision(
    q,
    orgId,
    w.fileId,
    head,
    applied.tabs,
    blocks,
    applied.added,
    { source: 'edit', authorId: caller.id, at, baseRevision: head.revision, ops: 1 },
    'markdown',
  );
  await setHead(q, orgId, w.fileId, { revision: state.revision, sha256: state.contentSha256, sizeBytes: state.sizeBytes, text }, caller.id, at);
  return { fileId: w.fileId, revision: state.revision, changed: true };
}
