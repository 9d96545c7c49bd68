import { badRequest } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import type { HandlerCtx } from '../../core/handler.js';
import { callerOf, fileAccess, type FileAccess, type FileRole } from '../access.js';
import { activeFile, setHead } from '../model.js';
import type { Book, TabCells } from './engine.js';
import { commit, loadRevision, type RevisionMeta, type SheetState } from './store.js';

/*
 * What every sheet call shares: the sheet itself (a file of kind sheet the caller holds a role on), its head, and
 * the commit of a new revision with the files row moved to it (revision, sha256, size, search text), all in the
 * caller's transaction.
 */

/** The sheet and the caller's role (`write`: the row locked FOR UPDATE and a trashed sheet refused). */
export async function sheetAccess(ctx: HandlerCtx, fileId: string, need: FileRole, write: boolean): Promise<FileAccess> {
  const caller = callerOf(ctx.principal);
  const now = ctx.deps.clock.now();
  const access = write
    ? await activeFile(ctx.q, ctx.orgId, fileId, caller, need, now, true)
    : await fileAccess(ctx.q, ctx.orgId, fileId, caller, need, { now });
  if (access.file.kind !== 'sheet') throw badRequest('fileId', `${fileId} is a ${access.file.kind}, not a sheet`);
  return access;
}

/** The sheet's head revision (every sheet has one from files.create on). */
export async function headOf(q: Queryable, orgId: string, fileId: string): Promise<SheetState> {
  const head = await loadRevision(q, orgId, fileId);
  if (!head) throw new Error(`sheet ${fileId} has no revision`);
  return head;
}

/** The tab's index, default the first; an unknown tab is BAD_REQUEST naming params.tabId. */
export function tabIndex(state: SheetState, tabId: string | undefined): number {
  if (tabId === undefined) return 0;
  const i = state.tabs.findIndex((t) => t.id === tabId);
  if (i < 0)
    throw badRequest(
      'tabId',
      `no tab ${tabId} in revision ${state.revision} (its tabs: ${state.tabs
        .slice(0, 10)
        .map((t) => t.id)
        .join(', ')})`,
    );
  return i;
}

/** commit for a handler: the files row then shows the new head. */
export async function commitForCall(
  ctx: HandlerCtx,
  fileId: string,
  prev: { state: SheetState; tabs: readonly TabCells[] },
  next: readonly TabCells[],
  meta: Omit<RevisionMeta, 'at' | 'authorId'>,
  field: string,
  book: Book,
): Promise<SheetState> {
  const at = ctx.deps.clock.now().toISOString();
  const { state, text } = await commit(ctx.q, ctx.orgId, fileId, prev, next, { ...meta, authorId: ctx.principal.id, at }, field, book);
  await setHead(ctx.q, ctx.orgId, fileId, { revision: state.revision, sha256: state.contentSha256, sizeBytes: state.sizeBytes, text }, ctx.principal.id, at);
  return state;
}
