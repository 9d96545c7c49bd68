import { Fragment, Schema, type Mark, type Node, type NodeType } from 'prosemirror-model';
import { badRequest } from './errors.js';

/*
 * The native doc model (docs/families/files.md, Docs): ProseMirror JSON with Tiptap StarterKit names, so an editor
 * built on Tiptap reads and writes it as it is. Every top-level block carries a stable `attrs.id` (`blk_…`); an image
 * points at a file of the org (`fil_…`), never at a URL (remote URLs are never fetched); a mention names a member
 * (`usr_…`/`agt_…`); a link goes to http(s), mailto or a file. Every write is built through docNodeFromJson below, so
 * a bad node is refused naming its exact place in the params.
 */

export const BLOCK_ID = /^blk_[A-Za-z0-9]{1,60}$/;
export const TAB_ID = /^tab_[A-Za-z0-9]{1,60}$/;
const FILE_REF = /^fil_[A-Za-z0-9]{1,60}$/;
const MEMBER_REF = /^(usr|agt)_[A-Za-z0-9]{1,60}$/;
const LINK_HREF = /^(https?:\/\/[^\s]+|mailto:[^\s]+|fil_[A-Za-z0-9]{1,60}(#blk_[A-Za-z0-9]{1,60})?)$/i;

/** Deepest nesting of nodes a doc may have (a list in a list … ten deep is far past any real doc). */
export const MAX_NODE_DEPTH = 24;

type Check = (v: unknown) => void;
const fail = (why: string): never => {
  throw new AttrError(why);
};
class AttrError extends Error {}

const optional =
  (check: Check): Check =>
  (v) => {
    if (v !== null) check(v);
  };
const matching =
  (re: RegExp, what: string): Check =>
  (v) => {
    if (typeof v !== 'string' || v.length > 2048 || !re.test(v)) fail(`must be ${what}`);
  };
const shortText =
  (max: number): Check =>
  (v) => {
    if (typeof v !== 'string' || v.length > max) fail(`must be a string of at most ${max} characters`);
  };
const intIn =
  (min: number, max: number): Check =>
  (v) => {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) fail(`must be an integer ${min} to ${max}`);
  };

const blockId = { default: null, validate: optional(matching(BLOCK_ID, 'a block id blk_…')) };

export const docSchema = new Schema({
  nodes: {
    doc: { content: 'block+' },
    paragraph: { group: 'block', content: 'inline*', attrs: { id: blockId } },
    heading: { group: 'block', content: 'inline*', defining: true, attrs: { id: blockId, level: { default: 1, validate: intIn(1, 6) } } },
    blockquote: { group: 'block', content: 'block+', defining: true, attrs: { id: blockId } },
    codeBlock: {
      group: 'block',
      content: 'text*',
      marks: '',
      code: true,
      defining: true,
      attrs: { id: blockId, language: { default: null, validate: optional(matching(/^[A-Za-z0-9_+#.-]{1,40}$/, 'a language name (letters, digits, _+#.-)')) } },
    },
    bulletList: { group: 'block', content: 'listItem+', attrs: { id: blockId } },
    orderedList: { group: 'block', content: 'listItem+', attrs: { id: blockId, start: { default: 1, validate: intIn(0, 999_999_999) } } },
    listItem: { content: 'paragraph block*', defining: true },
    horizontalRule: { group: 'block', attrs: { id: blockId } },
    image: {
      group: 'block',
      attrs: {
        id: blockId,
        src: { validate: matching(FILE_REF, 'a file id fil_… (images are files of the org; URLs are not fetched)') },
        alt: { default: null, validate: optional(shortText(1000)) },
        title: { default: null, validate: optional(shortText(1000)) },
      },
    },
    text: { group: 'inline' },
    hardBreak: { group: 'inline', inline: true, selectable: false, leafText: () => '\n' },
    mention: {
      group: 'inline',
      inline: true,
      atom: true,
      attrs: { id: { validate: matching(MEMBER_REF, 'a member id usr_… or agt_…') }, label: { default: null, validate: optional(shortText(200)) } },
      leafText: (node) => `@${(node.attrs.label as string | null) ?? (node.attrs.id as string)}`,
    },
  },
  marks: {
    bold: {},
    italic: {},
    strike: {},
    code: { excludes: '_' },
    link: {
      attrs: {
        href: { validate: matching(LINK_HREF, 'an http(s) or mailto URL or a file id fil_…(#blk_…)') },
        title: { default: null, validate: optional(shortText(1000)) },
      },
      inclusive: false,
    },
  },
});

/** A top-level block's plain text: nested blocks on their own lines, a hard break a newline, a mention @label. */
export const blockText = (node: Node): string => node.textBetween(0, node.content.size, '\n', (leaf) => leaf.type.spec.leafText?.(leaf) ?? '');

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const cut = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);
const NODE_KEYS = new Set(['type', 'attrs', 'content', 'marks', 'text']);

/** Run the schema's own attribute checks (the `validate` of each attribute spec), naming the attribute. */
function checkAttrs(spec: Record<string, { validate?: unknown }> | undefined, attrs: Record<string, unknown>, path: string): void {
  for (const [name, a] of Object.entries(spec ?? {})) {
    if (typeof a.validate !== 'function') continue;
    try {
      (a.validate as Check)(attrs[name]);
    } catch (err) {
      throw badRequest(`${path}.attrs.${name}`, err instanceof AttrError ? err.message : 'is not valid');
    }
  }
}

function attrsOf(
  json: Record<string, unknown>,
  path: string,
  type: { spec: { attrs?: Record<string, { default?: unknown }> }; name: string },
): Record<string, unknown> {
  if (json.attrs === undefined || json.attrs === null) return {};
  if (!isObject(json.attrs)) throw badRequest(`${path}.attrs`, 'must be an object');
  // Attributes the schema does not define (a Tiptap editor's target, rel, class…) are dropped, as ProseMirror does.
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(type.spec.attrs ?? {})) if (json.attrs[name] !== undefined) out[name] = json.attrs[name];
  return out;
}

function marksOf(json: Record<string, unknown>, path: string): Mark[] {
  if (json.marks === undefined) return [];
  if (!Array.isArray(json.marks)) throw badRequest(`${path}.marks`, 'must be an array of marks');
  let set: readonly Mark[] = [];
  json.marks.forEach((m, i) => {
    const at = `${path}.marks.${i}`;
    if (!isObject(m) || typeof m.type !== 'string') throw badRequest(at, 'must be a mark {type, attrs?}');
    const type = docSchema.marks[m.type];
    if (!type) throw badRequest(`${at}.type`, `unknown mark "${cut(m.type)}": expected one of ${Object.keys(docSchema.marks).join(', ')}`);
    const attrs = attrsOf(m, at, type);
    for (const [name, a] of Object.entries(type.spec.attrs ?? {}))
      if (a.default === undefined && attrs[name] === undefined) throw badRequest(`${at}.attrs.${name}`, 'required');
    checkAttrs(type.spec.attrs, Object.fromEntries(Object.entries(type.spec.attrs ?? {}).map(([name, a]) => [name, attrs[name] ?? a.default])), at);
    set = type.create(attrs).addToSet(set);
  });
  return [...set];
}

/**
 * Build a node from caller JSON, checking everything the schema says (types, attributes, content, marks, depth),
 * bottom up, so a refusal names the exact place: `ops[2].node.content[1].attrs.level: must be …`.
 */
export function docNodeFromJson(json: unknown, path: string, depth = 0): Node {
  if (depth > MAX_NODE_DEPTH) throw badRequest(path, `nested more than ${MAX_NODE_DEPTH} nodes deep`);
  if (!isObject(json)) throw badRequest(path, 'must be a node object {type, attrs?, content?, marks?, text?}');
  const unknown = Object.keys(json).filter((k) => !NODE_KEYS.has(k));
  if (unknown.length > 0) throw badRequest(`${path}.${cut(unknown[0])}`, 'unknown field');
  if (typeof json.type !== 'string') throw badRequest(`${path}.type`, 'required: a node type such as paragraph');
  const type: NodeType | undefined = docSchema.nodes[json.type];
  if (!type || type.name === 'doc')
    throw badRequest(
      `${path}.type`,
      `unknown node type "${cut(json.type)}": expected one of ${Object.keys(docSchema.nodes)
        .filter((n) => n !== 'doc')
        .join(', ')}`,
    );
  const marks = marksOf(json, path);
  if (type.name === 'text') {
    if (typeof json.text !== 'string' || json.text.length === 0) throw badRequest(`${path}.text`, 'required: a non-empty string');
    if (json.text.includes('\u0000') || !json.text.isWellFormed()) throw badRequest(`${path}.text`, 'must be well-formed Unicode text without NUL characters');
    return docSchema.text(json.text, marks);
  }
  if (json.text !== undefined) throw badRequest(`${path}.text`, `only text nodes have text (this is a ${type.name})`);
  if (json.content !== undefined && !Array.isArray(json.content)) throw badRequest(`${path}.content`, 'must be an array of nodes');
  const children = ((json.content as unknown[] | undefined) ?? []).map((c, i) => docNodeFromJson(c, `${path}.content.${i}`, depth + 1));
  const attrs = attrsOf(json, path, type);
  for (const [name, a] of Object.entries(type.spec.attrs ?? {}))
    if (a.default === undefined && attrs[name] === undefined) throw badRequest(`${path}.attrs.${name}`, 'required');
  // Checked before create: ProseMirror runs the same validators there and would throw without naming the place.
  const withDefaults = Object.fromEntries(Object.entries(type.spec.attrs ?? {}).map(([name, a]) => [name, attrs[name] ?? a.default]));
  checkAttrs(type.spec.attrs, withDefaults, path);
  const node = type.create(attrs, Fragment.fromArray(children), marks);
  if (!type.validContent(node.content)) {
    const names = children.map((c) => c.type.name + (c.marks.length ? `[${c.marks.map((m) => m.type.name).join(',')}]` : ''));
    throw badRequest(
      `${path}.content`,
      `a ${type.name} may not hold [${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''}] (it holds ${type.spec.content ?? 'nothing'}${type.spec.marks === '' ? ', unmarked' : ''})`,
    );
  }
  if (marks.length > 0) throw badRequest(`${path}.marks`, `only inline nodes carry marks (this is a ${type.name})`);
  return node;
}

/** A top-level block from caller JSON: a block node (not text, a list item or a doc). */
export function docBlockFromJson(json: unknown, path: string): Node {
  const node = docNodeFromJson(json, path);
  if (!node.type.isInGroup('block'))
    throw badRequest(
      `${path}.type`,
      `a ${node.type.name} is not a top-level block (use paragraph, heading, bulletList, orderedList, blockquote, codeBlock, horizontalRule or image)`,
    );
  return node;
}

/** A whole doc `{type:'doc', content:[blocks]}` from caller JSON. */
export function docFromJson(json: unknown, path: string): Node[] {
  if (!isObject(json) || json.type !== 'doc') throw badRequest(`${path}.type`, 'must be "doc" (a ProseMirror doc {type:"doc", content:[…]})');
  const unknown = Object.keys(json).filter((k) => k !== 'type' && k !== 'content' && k !== 'attrs');
  if (unknown.length > 0) throw badRequest(`${path}.${cut(unknown[0])}`, 'unknown field');
  if (!Array.isArray(json.content)) throw badRequest(`${path}.content`, 'required: an array of blocks');
  return json.content.map((b, i) => docBlockFromJson(b, `${path}.content.${i}`));
}
