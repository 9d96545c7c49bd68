import type { Node } from 'prosemirror-model';
import { badRequest } from '../../../protocol/errors.js';
import { BLOCK_ID, docFromJson, docSchema, TAB_ID } from '../../../protocol/doc-schema.js';
import type { Queryable } from '../../../db/types.js';
import { newId } from '../../core/ids.js';
import type { ContentResult, KindContent } from '../kinds.js';
import { docBodyHtml, exportDoc, DOC_EXPORT_FORMATS, type ExportTab } from './export.js';
import { markdownToBlocks } from './markdown.js';
import { commitRevision } from './revise.js';
import { blockNode, blockRecord, eraseDoc, hashesOf, loadBlocks, loadRevision, MAX_TABS, type DocState, type StoredBlock, type TabDraft } from './store.js';

/*
 * The doc kind's content module (domain/files/kinds.ts): what the drive calls to create, duplicate, restore and
 * export a doc without reading doc tables. files.create's content is {markdown}, {json} (a ProseMirror doc, or
 * docRead's {tabs:[…]}) or a bare ProseMirror doc; absent, the doc starts with one empty tab.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

interface TabInput {
  id?: string;
  title: string;
  parentTabId: string | null;
  nodes: Node[];
}

/** files.create's content as tabs of checked blocks; BAD_REQUEST names params.content…. */
function tabsFromContent(content: unknown): TabInput[] {
  const field = 'content';
  if (content === undefined || content === null) return [{ title: 'Tab 1', parentTabId: null, nodes: [] }];
  if (!isObject(content)) throw badRequest(field, 'must be {markdown}, {json} or a ProseMirror doc');
  if (content.type === 'doc') return [{ title: 'Tab 1', parentTabId: null, nodes: docFromJson(content, field) }];
  const keys = Object.keys(content);
  if (keys.length !== 1 || !['markdown', 'json'].includes(keys[0])) throw badRequest(field, 'must be {markdown} or {json} (exactly one)');
  if (keys[0] === 'markdown') {
    if (typeof content.markdown !== 'string') throw badRequest(`${field}.markdown`, 'must be a string');
    return [{ title: 'Tab 1', parentTabId: null, nodes: markdownToBlocks(content.markdown, `${field}.markdown`) }];
  }
  const json = content.json;
  if (isObject(json) && Array.isArray(json.tabs)) {
    if (json.tabs.length === 0 || json.tabs.length > MAX_TABS) throw badRequest(`${field}.json.tabs`, `must hold 1 to ${MAX_TABS} tabs`);
    return json.tabs.map((t, i): TabInput => {
      const at = `${field}.json.tabs.${i}`;
      if (!isObject(t)) throw badRequest(at, 'must be a tab {title, content, id?, parentTabId?}');
      const title = t.title ?? `Tab ${i + 1}`;
      if (typeof title !== 'string' || title.length < 1 || title.length > 200) throw badRequest(`${at}.title`, 'must be 1 to 200 characters');
      for (const k of ['id', 'parentTabId'] as const) if (t[k] !== undefined && t[k] !== null && (typeof t[k] !== 'string' || !TAB_ID.test(t[k]))) throw badRequest(`${at}.${k}`, 'must be a tab id tab_…');
      return { id: t.id as string | undefined, title, parentTabId: (t.parentTabId as string | null | undefined) ?? null, nodes: docFromJson(t.content, `${at}.content`) };
    });
  }
  return [{ title: 'Tab 1', parentTabId: null, nodes: docFromJson(json, `${field}.json`) }];
}

/** Tabs with every id settled: tab ids kept when free (parents resolved, else top level), block ids kept when unique. */
function settle(input: TabInput[]): { tabs: TabDraft[]; blocks: Map<string, StoredBlock> } {
  const blocks = new Map<string, StoredBlock>();
  const blockIds = new Set<string>();
  const tabIds = new Map<string, string>();
  const ids = input.map((t) => {
    const id = t.id && !tabIds.has(t.id) ? t.id : newId('tab');
    if (t.id) tabIds.set(t.id, id);
    return id;
  });
  const tabs = input.map((t, i): TabDraft => {
    const nodes = t.nodes.length > 0 ? t.nodes : [docSchema.node('paragraph')];
    return {
      id: ids[i],
      title: t.title,
      // A parent must come earlier (reading order); any other is dropped to the top level.
      parentTabId: t.parentTabId && ids.slice(0, i).includes(tabIds.get(t.parentTabId) ?? '') ? tabIds.get(t.parentTabId)! : null,
      blocks: nodes.map((n) => {
        const own = n.attrs.id as string | null;
        const id = own && BLOCK_ID.test(own) && !blockIds.has(own) ? own : newId('blk');
        blockIds.add(id);
        const b = blockRecord(id === own ? n : n.type.create({ ...n.attrs, id }, n.content, n.marks));
        blocks.set(b.hash, b);
        return { id, hash: b.hash };
      }),
    };
  });
  return { tabs, blocks };
}

const result = (state: DocState, text: string): ContentResult => ({ revision: state.revision, sha256: state.contentSha256, sizeBytes: state.sizeBytes, text });

async function revisionOrRefuse(q: Queryable, orgId: string, fileId: string, revision: number | undefined, field: string): Promise<DocState> {
  const state = await loadRevision(q, orgId, fileId, revision);
  if (!state) throw badRequest(field, revision === undefined ? `${fileId} has no content yet` : `${fileId} has no revision ${revision}`);
  return state;
}

/** A revision's tabs (default the head) as the exports and the guest page render them. */
async function exportTabs(q: Queryable, orgId: string, fileId: string, revision: number | undefined): Promise<ExportTab[]> {
  const state = await revisionOrRefuse(q, orgId, fileId, revision, 'revision');
  const blocks = await loadBlocks(q, orgId, fileId, hashesOf(state.tabs));
  return state.tabs.map((t) => ({ title: t.title, blocks: t.blocks.map((b) => blockNode(blocks.get(b.hash)!)) }));
}

export const docContent: KindContent = {
  exportFormats: DOC_EXPORT_FORMATS,

  async create(q, orgId, fileId, authorId, content, now) {
    const { tabs, blocks } = settle(tabsFromContent(content));
    const { state, text } = await commitRevision(q, orgId, fileId, undefined, tabs, blocks, [...blocks.values()], { source: 'create', authorId, at: now.toISOString() }, 'content');
    return result(state, text);
  },

  async duplicate(q, orgId, fromId, toId, authorId, now) {
    const from = await revisionOrRefuse(q, orgId, fromId, undefined, 'fileId');
    const blocks = await loadBlocks(q, orgId, fromId, hashesOf(from.tabs));
    // Same tabs and block ids: a copy reads as the original does (comments stay with the original).
    const { state, text } = await commitRevision(q, orgId, toId, undefined, from.tabs, blocks, [...blocks.values()], { source: 'duplicate', authorId, at: now.toISOString() }, 'fileId');
    return result(state, text);
  },

  async restoreRevision(q, orgId, fileId, revision, authorId, now) {
    const head = await revisionOrRefuse(q, orgId, fileId, undefined, 'toRevision');
    const old = revision === head.revision ? head : await revisionOrRefuse(q, orgId, fileId, revision, 'toRevision');
    const blocks = await loadBlocks(q, orgId, fileId, [...hashesOf(head.tabs), ...hashesOf(old.tabs)]);
    const { state, text } = await commitRevision(q, orgId, fileId, head, old.tabs, blocks, [], { source: 'restore', authorId, at: now.toISOString(), baseRevision: revision }, 'toRevision');
    return result(state, text);
  },

  // files.delete permanent: the text goes for good (the cache forgets it at once; a rolled-back purge costs a refetch).
  purge: eraseDoc,

  // A doc's images point at other files, with access of their own: they stay "[image fil_…]" references (env unused).
  async exportAs(q, orgId, fileId, format, revision) {
    return exportDoc(await exportTabs(q, orgId, fileId, revision), format);
  },
  async guestHtml(q, orgId, fileId) {
    return docBodyHtml(await exportTabs(q, orgId, fileId, undefined), { guest: true });
  },
};
