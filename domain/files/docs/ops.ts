import { Fragment, type Node } from 'prosemirror-model';
import { badRequest, conflict } from '../../../protocol/errors.js';
import { canonicalJson } from '../../../protocol/hashing.js';
import { BLOCK_ID, docBlockFromJson, docFromJson, docSchema } from '../../../protocol/doc-schema.js';
import type { DocOpInput } from '../../../protocol/methods/files/docs.js';
import { newId } from '../../core/ids.js';
import { markdownToBlocks } from './markdown.js';
import { blockNode, blockRecord, type BlockRef, type StoredBlock, type TabDraft, type TabState } from './store.js';

/*
 * Block ops (docs/families/files.md, Docs): what a docWriteRevision or a suggestion does to a doc, by block id, never
 * by offset. Ops are first resolved (Markdown parsed, JSON checked against the schema, errors naming params.ops[i]),
 * then applied in order to a copy of the head. Concurrency is by block: an op whose target changed between the
 * caller's base revision and the head is a conflict (all of them are named at once); every other block merges.
 */

export type ResolvedOp =
  | { op: 'replace'; blockId: string; nodes: Node[] }
  | { op: 'insert'; afterBlockId?: string; beforeBlockId?: string; tabId?: string; nodes: Node[] }
  | { op: 'delete'; blockId: string }
  | { op: 'replaceText'; blockId: string; find: string; replace: string; all: boolean }
  | { op: 'setContent'; tabId?: string; nodes: Node[] };

const oneOf = (at: string, given: Record<string, unknown>): string => {
  const present = Object.keys(given).filter((k) => given[k] !== undefined);
  if (present.length !== 1) throw badRequest(at, `give exactly one of ${Object.keys(given).join(', ')}`);
  return present[0];
};

/** Ops as they will apply: content parsed and checked. BAD_REQUEST names `ops[i]…`. */
export function resolveOps(ops: readonly DocOpInput[]): ResolvedOp[] {
  return ops.map((op, i): ResolvedOp => {
    const at = `ops.${i}`;
    switch (op.op) {
      case 'replace': {
        const from = oneOf(at, { node: op.node, markdown: op.markdown });
        const nodes = from === 'node' ? [docBlockFromJson(op.node, `${at}.node`)] : markdownToBlocks(op.markdown!, `${at}.markdown`);
        if (nodes.length === 0) throw badRequest(`${at}.markdown`, 'is empty: to remove the block use op delete');
        return { op: 'replace', blockId: op.blockId, nodes };
      }
      case 'insert': {
        if (op.afterBlockId !== undefined && op.beforeBlockId !== undefined) throw badRequest(at, 'give afterBlockId or beforeBlockId, not both');
        if (op.tabId !== undefined && (op.afterBlockId ?? op.beforeBlockId) !== undefined) throw badRequest(`${at}.tabId`, 'a block already names its tab: give tabId only to append to a tab');
        const from = oneOf(at, { nodes: op.nodes, markdown: op.markdown });
        const nodes = from === 'nodes' ? op.nodes!.map((n, k) => docBlockFromJson(n, `${at}.nodes.${k}`)) : markdownToBlocks(op.markdown!, `${at}.markdown`);
        if (nodes.length === 0) throw badRequest(`${at}.markdown`, 'is empty: nothing to insert');
        return { op: 'insert', afterBlockId: op.afterBlockId, beforeBlockId: op.beforeBlockId, tabId: op.tabId, nodes };
      }
      case 'delete':
        return { op: 'delete', blockId: op.blockId };
      case 'replaceText':
        return { op: 'replaceText', blockId: op.blockId, find: op.find, replace: op.replace, all: op.all ?? false };
      case 'setContent': {
        const from = oneOf(at, { markdown: op.markdown, json: op.json });
        const nodes = from === 'json' ? docFromJson(op.json, `${at}.json`) : markdownToBlocks(op.markdown!, `${at}.markdown`);
        return { op: 'setContent', tabId: op.tabId, nodes };
      }
    }
  });
}

/** Ops as stored with a suggestion (nodes as JSON), and back. */
export const opsToJson = (ops: readonly ResolvedOp[]): unknown[] => ops.map((o) => ('nodes' in o ? { ...o, nodes: o.nodes.map((n) => n.toJSON()) } : o));
export const opsFromJson = (json: readonly Record<string, unknown>[]): ResolvedOp[] =>
  json.map((o) => (Array.isArray(o.nodes) ? { ...o, nodes: o.nodes.map((n) => docSchema.nodeFromJSON(n)) } : o) as ResolvedOp);

export interface OpChange {
  index: number;
  op: ResolvedOp['op'];
  tabId: string;
  before: BlockRef[];
  after: BlockRef[];
}

/** What must still hold for a suggestion to apply: target blocks' hashes, insert anchors, whole tabs. */
export interface Targets {
  blocks: Record<string, string>;
  anchors: string[];
  /** setContent: the tab's sha256 at the base; an append: "" (the tab must exist). */
  tabs: Record<string, string>;
}

export interface Applied {
  tabs: TabDraft[];
  /** Blocks the result holds that were not in the head (to store). */
  added: StoredBlock[];
  changes: OpChange[];
  /** Ops with every new block's id fixed (what a suggestion stores and an accept re-applies). */
  normalized: ResolvedOp[];
  targets: Targets;
  /** Ids added, changed or removed relative to the head. */
  changedBlocks: string[];
}

export interface ApplyInput {
  head: readonly TabState[];
  /** The caller's base revision (the head itself when they are the same). */
  base: readonly TabState[];
  baseRevision: number;
  headRevision: number;
  /** Every head block (and any other known block) by hash. */
  blocks: Map<string, StoredBlock>;
}

/** A node with top-level id `id`. */
const withId = (node: Node, id: string): Node => (node.attrs.id === id ? node : node.type.create({ ...node.attrs, id }, node.content, node.marks));

/** The block's JSON with its own id blanked: what setContent compares to keep an unchanged block's id. */
const contentKey = (json: Record<string, unknown>): string => canonicalJson({ ...json, attrs: { ...(json.attrs as object), id: null } });

/** Apply resolved ops to the head. BAD_REQUEST for an op that cannot apply; CONFLICT naming stale targets. */
export function applyOps(ops: readonly ResolvedOp[], input: ApplyInput): Applied {
  const tabs: TabDraft[] = input.head.map((t) => ({ id: t.id, title: t.title, parentTabId: t.parentTabId, blocks: [...t.blocks] }));
  const headHash = new Map(input.head.flatMap((t) => t.blocks.map((b): [string, string] => [b.id, b.hash])));
  const baseHash = new Map(input.base.flatMap((t) => t.blocks.map((b): [string, string] => [b.id, b.hash])));
  const headTabs = new Set(input.head.map((t) => t.id));
  const baseTabs = new Map(input.base.map((t) => [t.id, t]));
  const ids = new Set(headHash.keys());
  const created = new Set<string>();
  const removedBy = new Map<string, number>();
  const conflicts: { index: number; id: string }[] = [];
  const added = new Map<string, StoredBlock>();
  const changes: OpChange[] = [];
  const normalized: ResolvedOp[] = [];
  const targets: Targets = { blocks: {}, anchors: [], tabs: {} };

  const record = (node: Node): BlockRef => {
    const b = blockRecord(node);
    if (!input.blocks.has(b.hash)) added.set(b.hash, b);
    input.blocks.set(b.hash, b);
    return { id: node.attrs.id as string, hash: b.hash };
  };
  /** A free id for a new block: the caller's own when valid and unused, else a new one. */
  const freshId = (node: Node): string => {
    const own = node.attrs.id as string | null;
    const id = own && BLOCK_ID.test(own) && !ids.has(own) ? own : newId('blk');
    ids.add(id);
    created.add(id);
    return id;
  };
  const find = (id: string): { tab: TabDraft; i: number } | undefined => {
    for (const tab of tabs) {
      const i = tab.blocks.findIndex((b) => b.id === id);
      if (i !== -1) return { tab, i };
    }
    return undefined;
  };
  /** The op's target block now, or undefined after recording a conflict. */
  const target = (index: number, id: string, field: string, sameContent: boolean): { tab: TabDraft; i: number } | undefined => {
    if (!created.has(id)) {
      const atBase = baseHash.get(id);
      if (atBase === undefined) {
        if (headHash.has(id)) return void conflicts.push({ index, id });
        throw badRequest(field, `no block ${id} in this doc (docRead lists block ids)`);
      }
      if (!headHash.has(id) || (sameContent && headHash.get(id) !== atBase)) return void conflicts.push({ index, id });
      if (sameContent) targets.blocks[id] = atBase;
      else targets.anchors.push(id);
    }
    const at = find(id);
    if (!at) throw badRequest(field, `block ${id} was deleted by ops.${removedBy.get(id)} of this call`);
    return at;
  };
  const tabFor = (index: number, tabId: string | undefined, field: string): TabDraft | undefined => {
    if (tabId === undefined) return tabs[0];
    const tab = tabs.find((t) => t.id === tabId);
    if (tab) return tab;
    if (baseTabs.has(tabId) && !headTabs.has(tabId)) return void conflicts.push({ index, id: tabId });
    throw badRequest(field, `no tab ${tabId} in this doc`);
  };

  ops.forEach((op, index) => {
    const at = `ops.${index}`;
    switch (op.op) {
      case 'replace': {
        const t = target(index, op.blockId, `${at}.blockId`, true);
        if (!t) return;
        const nodes = op.nodes.map((n, k) => (k === 0 ? withId(n, op.blockId) : withId(n, freshId(n))));
        const after = nodes.map(record);
        changes.push({ index, op: op.op, tabId: t.tab.id, before: [t.tab.blocks[t.i]], after });
        t.tab.blocks.splice(t.i, 1, ...after);
        normalized.push({ ...op, nodes });
        return;
      }
      case 'insert': {
        const anchor = op.afterBlockId ?? op.beforeBlockId;
        let tab: TabDraft | undefined;
        let pos: number;
        if (anchor !== undefined) {
          const t = target(index, anchor, `${at}.${op.afterBlockId ? 'afterBlockId' : 'beforeBlockId'}`, false);
          if (!t) return;
          tab = t.tab;
          pos = op.afterBlockId ? t.i + 1 : t.i;
        } else {
          tab = tabFor(index, op.tabId, `${at}.tabId`);
          if (!tab) return;
          targets.tabs[tab.id] ??= '';
          pos = tab.blocks.length;
        }
        const nodes = op.nodes.map((n) => withId(n, freshId(n)));
        const after = nodes.map(record);
        changes.push({ index, op: op.op, tabId: tab.id, before: [], after });
        tab.blocks.splice(pos, 0, ...after);
        // An append names its tab from now on, so an accept later appends to the same tab.
        normalized.push(anchor === undefined ? { ...op, tabId: tab.id, nodes } : { ...op, nodes });
        return;
      }
      case 'delete': {
        const t = target(index, op.blockId, `${at}.blockId`, true);
        if (!t) return;
        const before = t.tab.blocks.splice(t.i, 1);
        removedBy.set(op.blockId, index);
        // A tab always holds a block: the last one deleted leaves an empty paragraph.
        const after = t.tab.blocks.length === 0 ? [record(withId(docSchema.node('paragraph'), freshId(docSchema.node('paragraph'))))] : [];
        t.tab.blocks.push(...after);
        changes.push({ index, op: op.op, tabId: t.tab.id, before, after });
        normalized.push(op);
        return;
      }
      case 'replaceText': {
        const t = target(index, op.blockId, `${at}.blockId`, true);
        if (!t) return;
        const node = replaceText(blockNode(input.blocks.get(t.tab.blocks[t.i].hash)!), op, at);
        const after = [record(node)];
        changes.push({ index, op: op.op, tabId: t.tab.id, before: [t.tab.blocks[t.i]], after });
        t.tab.blocks.splice(t.i, 1, ...after);
        normalized.push(op);
        return;
      }
      case 'setContent': {
        const tab = tabFor(index, op.tabId, `${at}.tabId`);
        if (!tab) return;
        const atBase = baseTabs.get(tab.id);
        const headTab = input.head.find((h) => h.id === tab.id);
        if (atBase && headTab && atBase.sha256 !== headTab.sha256) {
          const was = new Map(atBase.blocks.map((b) => [b.id, b.hash]));
          const now = new Map(headTab.blocks.map((b) => [b.id, b.hash]));
          for (const id of new Set([...was.keys(), ...now.keys()])) if (was.get(id) !== now.get(id)) conflicts.push({ index, id });
          return;
        }
        if (atBase) targets.tabs[tab.id] = atBase.sha256;
        const before = tab.blocks;
        for (const b of before) ids.delete(b.id);
        const mine = new Set(before.map((b) => b.id));
        const byContent = new Map<string, string[]>();
        for (const b of before) {
          const key = contentKey(JSON.parse(input.blocks.get(b.hash)!.body) as Record<string, unknown>);
          byContent.set(key, [...(byContent.get(key) ?? []), b.id]);
        }
        const nodes = op.nodes.map((n) => {
          const own = n.attrs.id as string | null;
          // The caller's id of one of this tab's blocks says "the same block"; else an unchanged block keeps its id.
          const same = own && mine.has(own) && !ids.has(own) ? own : byContent.get(contentKey(n.toJSON() as Record<string, unknown>))?.find((id) => !ids.has(id));
          if (same) {
            ids.add(same);
            return withId(n, same);
          }
          return withId(n, freshId(n));
        });
        const after = nodes.map(record);
        for (const b of before) if (!ids.has(b.id)) removedBy.set(b.id, index);
        changes.push({ index, op: op.op, tabId: tab.id, before, after });
        tab.blocks = after;
        normalized.push({ ...op, tabId: tab.id, nodes });
        return;
      }
    }
  });

  if (conflicts.length > 0) {
    const named = [...new Set(conflicts.map((c) => c.id))];
    const opsNamed = [...new Set(conflicts.map((c) => `ops.${c.index}`))];
    throw conflict(
      `${named.slice(0, 20).join(', ')}${named.length > 20 ? ` and ${named.length - 20} more` : ''} changed since revision ${input.baseRevision} (the head is ${input.headRevision}): ` +
        `${opsNamed.slice(0, 20).join(', ')} cannot apply. Read the head (files.docRead), redo those ops against it, and send them with baseRevision ${input.headRevision}`,
    );
  }
  const finalHash = new Map(tabs.flatMap((t) => t.blocks.map((b): [string, string] => [b.id, b.hash])));
  const changedBlocks = [...new Set([...headHash.keys(), ...finalHash.keys()])].filter((id) => headHash.get(id) !== finalHash.get(id));
  return { tabs, added: [...added.values()], changes, normalized, targets, changedBlocks };
}

/** The blocks and tabs a suggestion's targets name that changed in `head` (stale when any). */
export function staleTargets(targets: Targets, head: readonly TabState[]): string[] {
  const hashes = new Map(head.flatMap((t) => t.blocks.map((b): [string, string] => [b.id, b.hash])));
  const tabs = new Map(head.map((t) => [t.id, t.sha256]));
  const stale: string[] = [];
  for (const [id, hash] of Object.entries(targets.blocks)) if (hashes.get(id) !== hash) stale.push(id);
  for (const id of targets.anchors) if (!hashes.has(id)) stale.push(id);
  for (const [id, sha] of Object.entries(targets.tabs)) if (!tabs.has(id) || (sha !== '' && tabs.get(id) !== sha)) stale.push(id);
  return stale;
}

/** A textblock's text with each non-text inline node as U+FFFC: offsets equal content positions. */
const flat = (tb: Node): string => {
  let s = '';
  tb.forEach((child) => {
    s += child.isText ? child.text! : '\uFFFC';
  });
  return s;
};

const occurrences = (hay: string, needle: string): number[] => {
  const out: number[] = [];
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + needle.length)) out.push(at);
  return out;
};

/** Map every textblock of a block (itself, or those nested in lists and quotes). */
const mapTextblocks = (node: Node, fn: (tb: Node) => Node): Node => {
  if (node.isTextblock) return fn(node);
  if (node.isLeaf) return node;
  const children: Node[] = [];
  node.forEach((c) => children.push(mapTextblocks(c, fn)));
  return node.copy(Fragment.fromArray(children));
};

/** replaceText within one block, keeping the marks of each match's first character. */
function replaceText(node: Node, op: Extract<ResolvedOp, { op: 'replaceText' }>, at: string): Node {
  let count = 0;
  mapTextblocks(node, (tb) => {
    count += occurrences(flat(tb), op.find).length;
    return tb;
  });
  if (count === 0) throw badRequest(`${at}.find`, `not found in ${op.blockId} (the text must lie within one paragraph, heading or item)`);
  if (count > 1 && !op.all) throw badRequest(`${at}.find`, `occurs ${count} times in ${op.blockId}: make it unique with more context, or set all:true`);
  return mapTextblocks(node, (tb) => {
    const hits = occurrences(flat(tb), op.find);
    if (hits.length === 0) return tb;
    let content = Fragment.empty;
    let from = 0;
    for (const hit of hits) {
      const marks = tb.childAfter(hit).node?.marks ?? [];
      content = content.append(tb.content.cut(from, hit));
      if (op.replace) content = content.append(Fragment.from(docSchema.text(op.replace, tb.type.spec.marks === '' ? [] : marks)));
      from = hit + op.find.length;
    }
    content = content.append(tb.content.cut(from));
    return tb.copy(content);
  });
}
