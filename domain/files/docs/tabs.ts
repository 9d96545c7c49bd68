import { badRequest, conflict } from '../../../protocol/errors.js';
import { docSchema } from '../../../protocol/doc-schema.js';
import { docs as c } from '../../../protocol/methods/files/docs.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { commitForCall, docAccess, headWithBlocks, tabInfo } from './revise.js';
import { blockRecord, MAX_TABS, type StoredBlock, type TabDraft } from './store.js';

/*
 * files.docTabOp: a doc's tabs (Google Docs' tabs and child tabs). Tabs are kept in reading order, each after its
 * parent, children in their own order; nesting stops at 3 levels. Each op is a new revision (a tab's title and
 * place are part of what contentSha256 covers). Deleting a tab deletes its child tabs and orphans their comment
 * threads; the last tab cannot go, and an agent cannot delete text from a review-mode doc this way.
 */

const MAX_DEPTH = 3;

type Tree = Map<string | null, TabDraft[]>;

const treeOf = (tabs: readonly TabDraft[]): Tree => {
  const tree: Tree = new Map();
  for (const t of tabs) tree.set(t.parentTabId, [...(tree.get(t.parentTabId) ?? []), t]);
  return tree;
};

/** Tabs in reading order: each parent, then its children, depth first. */
function flatten(tree: Tree, parent: string | null = null, out: TabDraft[] = []): TabDraft[] {
  for (const t of tree.get(parent) ?? []) {
    out.push({ ...t, parentTabId: parent });
    flatten(tree, t.id, out);
  }
  return out;
}

const depthOf = (tabs: readonly TabDraft[], id: string | null): number => {
  let d = 0;
  for (let at = id; at !== null; at = tabs.find((t) => t.id === at)?.parentTabId ?? null) d++;
  return d;
};
const subtree = (tree: Tree, id: string): string[] => [id, ...(tree.get(id) ?? []).flatMap((t) => subtree(tree, t.id))];
const height = (tree: Tree, id: string): number => 1 + Math.max(0, ...(tree.get(id) ?? []).map((t) => height(tree, t.id)));

const place = (tree: Tree, parent: string | null, tab: TabDraft, position: number | undefined) => {
  const siblings = tree.get(parent) ?? [];
  siblings.splice(Math.min(position ?? siblings.length, siblings.length), 0, tab);
  tree.set(parent, siblings);
};

export const docTabOp = handler(c.docTabOp, async (ctx, p) => {
  const { file } = await docAccess(ctx, p.fileId, 'editor', true);
  const { head, blocks } = await headWithBlocks(ctx.q, ctx.orgId, p.fileId);
  const tabs: TabDraft[] = head.tabs.map((t) => ({ id: t.id, title: t.title, parentTabId: t.parentTabId, blocks: t.blocks }));
  const tree = treeOf(tabs);
  const existing = (field: string, id: string | null | undefined): TabDraft | undefined => {
    if (id === null || id === undefined) return undefined;
    const tab = tabs.find((t) => t.id === id);
    if (!tab) throw badRequest(field, `no tab ${id} in this doc (its tabs: ${tabs.slice(0, 10).map((t) => t.id).join(', ')})`);
    return tab;
  };
  const need = (field: string, v: unknown) => {
    if (v === undefined) throw badRequest(field, `required for op ${p.op}`);
  };
  const added: StoredBlock[] = [];
  let tabId = p.tabId ?? '';
  let changed = true;

  switch (p.op) {
    case 'add': {
      need('title', p.title);
      const parent = p.parentTabId ?? null;
      existing('parentTabId', parent);
      if (depthOf(tabs, parent) + 1 > MAX_DEPTH) throw badRequest('parentTabId', `tabs nest at most ${MAX_DEPTH} levels deep`);
      if (tabs.length >= MAX_TABS) throw conflict(`the doc has ${MAX_TABS} tabs, the most it may hold: delete one first`);
      const empty = docSchema.node('paragraph', { id: newId('blk') });
      const block = blockRecord(empty);
      added.push(block);
      blocks.set(block.hash, block);
      tabId = newId('tab');
      place(tree, parent, { id: tabId, title: p.title!, parentTabId: parent, blocks: [{ id: empty.attrs.id as string, hash: block.hash }] }, p.position);
      break;
    }
    case 'rename': {
      need('tabId', p.tabId);
      need('title', p.title);
      const tab = existing('tabId', p.tabId)!;
      changed = tab.title !== p.title;
      tab.title = p.title!;
      break;
    }
    case 'move': {
      need('tabId', p.tabId);
      const tab = existing('tabId', p.tabId)!;
      const parent = p.parentTabId === undefined ? tab.parentTabId : p.parentTabId;
      existing('parentTabId', parent);
      if (parent !== null && subtree(tree, tab.id).includes(parent)) throw badRequest('parentTabId', `${parent} is ${tab.id} or a tab inside it`);
      if (depthOf(tabs, parent) + height(tree, tab.id) > MAX_DEPTH) throw badRequest('parentTabId', `tabs nest at most ${MAX_DEPTH} levels deep`);
      const from = tree.get(tab.parentTabId)!;
      const oldIndex = from.indexOf(tab);
      from.splice(oldIndex, 1);
      place(tree, parent, tab, p.position);
      changed = parent !== tab.parentTabId || (tree.get(parent) ?? []).indexOf(tab) !== oldIndex;
      break;
    }
    case 'delete': {
      need('tabId', p.tabId);
      const tab = existing('tabId', p.tabId)!;
      const gone = new Set(subtree(tree, tab.id));
      if (gone.size === tabs.length) throw conflict(`${tab.id} is the doc's last tab${gone.size > 1 ? ' (with its child tabs)' : ''}: a doc keeps at least one; add another tab first, or trash the doc (files.delete)`);
      const hasText = tabs.some((t) => gone.has(t.id) && t.blocks.some((b) => blocks.get(b.hash)!.plain !== ''));
      if (ctx.principal.kind === 'agent' && file.review_mode && hasText) {
        throw conflict(`${p.fileId} is in review mode and ${tab.id} holds text: an agent proposes removing it as a suggestion (files.docWriteRevision mode suggest, op setContent), for a human to accept`);
      }
      tree.set(tab.parentTabId, tree.get(tab.parentTabId)!.filter((t) => t !== tab));
      for (const id of gone) tree.delete(id);
      break;
    }
  }

  if (!changed) {
    await ctx.emit('files.doc_tab.change', p.fileId, { fileId: p.fileId, tabId, op: p.op, revision: head.revision, contentSha256: head.contentSha256, tabs: head.tabs.length, noop: true });
    return { tabId, tabs: tabInfo(head), revision: head.revision, contentSha256: head.contentSha256, changed: false };
  }
  const state = await commitForCall(ctx, p.fileId, head, flatten(tree), blocks, added, { source: 'tab' }, 'tabId');
  await ctx.emit('files.doc_tab.change', p.fileId, { fileId: p.fileId, tabId, op: p.op, revision: state.revision, contentSha256: state.contentSha256, tabs: state.tabs.length });
  return { tabId, tabs: tabInfo(state), revision: state.revision, contentSha256: state.contentSha256, changed: true };
});
