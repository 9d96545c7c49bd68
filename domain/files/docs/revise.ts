import { badRequest } from '../../../protocol/errors.js';
import type { Queryable } from '../../../db/types.js';
import { reanchorDocThreads } from '../annotation/anchor.js';
import type { HandlerCtx } from '../../core/handler.js';
import { callerOf, type FileAccess, type FileRole } from '../access.js';
import { activeFile, setHead } from '../model.js';
import { fileAccess } from '../access.js';
import { compose, hashesOf, insertRevision, loadBlocks, loadRevision, saveBlocks, type DocState, type RevisionMeta, type StoredBlock, type TabDraft } from './store.js';

/*
 * What every doc write shares: the doc itself (a file of kind doc the caller holds a role on), its head, and the
 * commit of a new revision: blocks stored, the revision appended, the files row showing the new head (revision,
 * sha256, size, search text: the drive's setHead), and the open comment threads of every changed tab re-anchored
 * (domain/files/annotation/anchor.ts), all in the caller's transaction.
 */

/** The doc and the caller's role (`lock`: the row FOR UPDATE; writes also refuse a trashed doc). */
export async function docAccess(ctx: HandlerCtx, fileId: string, need: FileRole, write: boolean): Promise<FileAccess> {
  const caller = callerOf(ctx.principal);
  const now = ctx.deps.clock.now();
  const access = write ? await activeFile(ctx.q, ctx.orgId, fileId, caller, need, now, true) : await fileAccess(ctx.q, ctx.orgId, fileId, caller, need, { now });
  if (access.file.kind !== 'doc') throw badRequest('fileId', `${fileId} is a ${access.file.kind}, not a doc`);
  return access;
}

/** The doc's head revision (every doc has one from files.create on). */
export async function headOf(q: Queryable, orgId: string, fileId: string): Promise<DocState> {
  const head = await loadRevision(q, orgId, fileId);
  if (!head) throw new Error(`doc ${fileId} has no revision`);
  return head;
}

/** The head and every block it holds. */
export async function headWithBlocks(q: Queryable, orgId: string, fileId: string): Promise<{ head: DocState; blocks: Map<string, StoredBlock> }> {
  const head = await headOf(q, orgId, fileId);
  return { head, blocks: await loadBlocks(q, orgId, fileId, hashesOf(head.tabs)) };
}

/** Tabs whose blocks differ between two states (a tab gone counts, with no blocks). */
function changedTabs(before: readonly { id: string; blocks: readonly { id: string; hash: string }[] }[], after: readonly TabDraft[]): { tabId: string; blocks: TabDraft['blocks'] }[] {
  const key = (t: { blocks: readonly { id: string; hash: string }[] }) => t.blocks.map((b) => `${b.id}:${b.hash}`).join(',');
  const now = new Map(after.map((t) => [t.id, t]));
  const out: { tabId: string; blocks: TabDraft['blocks'] }[] = [];
  for (const t of before) {
    const a = now.get(t.id);
    if (!a) out.push({ tabId: t.id, blocks: [] });
    else if (key(a) !== key(t)) out.push({ tabId: t.id, blocks: a.blocks });
  }
  return out;
}

/**
 * Append the next revision with `tabs` (blocks: every block they hold, `added` among them the new ones), move the
 * files row to it and re-anchor the threads of changed tabs. A tab past its size limit is BAD_REQUEST `field`.
 */
export async function commitRevision(
  q: Queryable,
  orgId: string,
  fileId: string,
  prev: DocState | undefined,
  tabs: readonly TabDraft[],
  blocks: ReadonlyMap<string, StoredBlock>,
  added: readonly StoredBlock[],
  meta: RevisionMeta,
  field: string,
): Promise<{ state: DocState; text: string }> {
  const composed = compose(tabs, blocks, field);
  await saveBlocks(q, orgId, fileId, added);
  const state = await insertRevision(q, orgId, fileId, (prev?.revision ?? 0) + 1, composed, meta);
  if (prev) {
    for (const t of changedTabs(prev.tabs, composed.tabs)) {
      await reanchorDocThreads(q, orgId, fileId, t.tabId, t.blocks.map((b) => ({ id: b.id, text: blocks.get(b.hash)!.plain })));
    }
  }
  return { state, text: composed.text };
}

/** commitRevision for a handler: the files row then shows the new head, updated by the caller. */
export async function commitForCall(
  ctx: HandlerCtx,
  fileId: string,
  prev: DocState,
  tabs: readonly TabDraft[],
  blocks: ReadonlyMap<string, StoredBlock>,
  added: readonly StoredBlock[],
  meta: Omit<RevisionMeta, 'at' | 'authorId'> & { authorId?: string },
  field: string,
): Promise<DocState> {
  const at = ctx.deps.clock.now().toISOString();
  const { state, text } = await commitRevision(ctx.q, ctx.orgId, fileId, prev, tabs, blocks, added, { ...meta, authorId: meta.authorId ?? ctx.principal.id, at }, field);
  await setHead(ctx.q, ctx.orgId, fileId, { revision: state.revision, sha256: state.contentSha256, sizeBytes: state.sizeBytes, text }, ctx.principal.id, at);
  return state;
}

/** Tab metadata as the contract shows it. */
export const tabInfo = (state: DocState) => state.tabs.map((t) => ({ id: t.id, title: t.title, parentTabId: t.parentTabId, sha256: t.sha256, blockCount: t.blocks.length }));
