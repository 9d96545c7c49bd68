import { badRequest } from '../../../protocol/errors.js';
import { docs as c } from '../../../protocol/methods/files/docs.js';
import { decodeCursor, encodeCursor } from '../../core/cursor.js';
import { handler } from '../../core/handler.js';
import { blocksToMarkdown } from './markdown.js';
import { docAccess, headOf, tabInfo } from './revise.js';
import { blockNode, loadBlocks, loadRevision, type BlockRef, type TabState } from './store.js';

/*
 * files.docRead: a revision (default the head) of a doc, every tab's metadata, and a page of its blocks in reading
 * order (tab by tab), as ProseMirror JSON, Markdown or plain text. A cursor holds the revision it started on, so a
 * doc read page by page is one revision even while others write. Viewers read; a trashed doc reads too.
 */

type Cursor = [number, number];
const validCursor = (v: unknown[]) => v.length === 2 && v.every((x) => Number.isSafeInteger(x) && (x as number) >= 0);

export const docRead = handler(c.docRead, async (ctx, p) => {
  await docAccess(ctx, p.fileId, 'viewer', false);
  const head = await headOf(ctx.q, ctx.orgId, p.fileId);
  const [fromRevision, offset] = p.cursor === undefined ? [p.revision ?? head.revision, 0] : decodeCursor<Cursor>(p.cursor, 'cursor', validCursor, 'read returned');
  if (p.revision !== undefined && p.revision !== fromRevision) throw badRequest('cursor', `it continues revision ${fromRevision}, not ${p.revision}`);
  if (fromRevision > head.revision) throw badRequest(p.cursor === undefined ? 'revision' : 'cursor', `the head is revision ${head.revision}`);
  const state = fromRevision === head.revision ? head : await loadRevision(ctx.q, ctx.orgId, p.fileId, fromRevision);
  if (!state) throw badRequest('revision', `no revision ${fromRevision} (revisions run 1 to ${head.revision})`);

  let tabs: TabState[] = state.tabs;
  if (p.tabId !== undefined) {
    tabs = state.tabs.filter((t) => t.id === p.tabId);
    if (tabs.length === 0) throw badRequest('tabId', `no tab ${p.tabId} in revision ${state.revision}`);
  }
  const order: { tab: TabState; block: BlockRef }[] = tabs.flatMap((tab) => tab.blocks.map((block) => ({ tab, block })));
  const page = order.slice(offset, offset + p.limit);
  const blocks = await loadBlocks(ctx.q, ctx.orgId, p.fileId, page.map((e) => e.block.hash));
  const nextCursor = offset + p.limit < order.length ? encodeCursor([state.revision, offset + p.limit]) : null;
  const common = { fileId: p.fileId, revision: state.revision, head: head.revision, contentSha256: state.contentSha256, format: p.format, tabs: tabInfo(state), nextCursor };

  if (p.format === 'json') {
    // Tabs holding this page's blocks, in order; a whole read is exactly the doc contentSha256 covers.
    const out: { id: string; title: string; parentTabId: string | null; content: { type: 'doc'; content: Record<string, unknown>[] } }[] = [];
    for (const e of page) {
      let last = out[out.length - 1];
      if (last?.id !== e.tab.id) out.push((last = { id: e.tab.id, title: e.tab.title, parentTabId: e.tab.parentTabId, content: { type: 'doc', content: [] } }));
      last.content.content.push(JSON.parse(blocks.get(e.block.hash)!.body) as Record<string, unknown>);
    }
    return { ...common, doc: { tabs: out } };
  }
  return {
    ...common,
    blocks: page.map((e) => {
      const stored = blocks.get(e.block.hash)!;
      const node = blockNode(stored);
      const body = p.format === 'markdown' ? { markdown: blocksToMarkdown([node]) } : { text: stored.plain };
      return { id: e.block.id, tabId: e.tab.id, type: node.type.name, ...body };
    }),
  };
});
