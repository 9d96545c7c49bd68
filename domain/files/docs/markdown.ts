import type { MarkdownIt, StateCore, StateInline, Token } from 'markdown-it';
import type { MarkdownParser, MarkdownSerializer, MarkdownSerializerState, ParseSpec } from 'prosemirror-markdown';
import type { Node } from 'prosemirror-model';
import { lazyModule } from '../../../config/lazy.js';
import { badRequest } from '../../../protocol/errors.js';
import { docNodeFromJson, docSchema } from '../../../protocol/doc-schema.js';

/*
 * GitHub-flavoured Markdown in and out of the doc model (prosemirror-markdown over markdown-it): headings, lists,
 * quotes, fenced code with a language, rules, hard breaks, bold, italic, strikethrough, inline code, links, images
 * (`![alt](fil_…)`) and mentions written as messaging writes them (`<@usr_…>`). Raw HTML stays text; tables, which
 * the doc model has no node for, stay paragraphs. Nothing is dropped silently: what the model cannot hold is a
 * BAD_REQUEST naming the field.
 */

/** Deepest markdown-it nesting level (each list, item and quote adds one or two): deeper input is refused. */
const MAX_LEVEL = 30;

/** `<@usr_…>` / `<@agt_…>`: a mention, as in messages. */
function mention(state: StateInline, silent: boolean): boolean {
  const m = /^<@((?:usr|agt)_[A-Za-z0-9]{1,60})>/.exec(state.src.slice(state.pos, state.pos + 70));
  if (!m) return false;
  if (!silent) {
    const token = state.push('mention', '', 0);
    token.meta = { id: m[1] };
  }
  state.pos += m[0].length;
  return true;
}

/**
 * Images are blocks in the doc model (Tiptap's default), inline in Markdown: a paragraph holding images is split
 * around them, and an image inside a heading follows the heading, so none is lost.
 */
function liftImages(state: StateCore): void {
  const out: Token[] = [];
  const toks = state.tokens;
  for (let i = 0; i < toks.length; i++) {
    const open = toks[i];
    const inline = toks[i + 1];
    if (!(open.nesting === 1 && inline?.type === 'inline' && inline.children?.some((c) => c.type === 'image'))) {
      out.push(open);
      continue;
    }
    const close = toks[i + 2];
    const images: Token[] = [];
    const pieces: Token[][] = [[]];
    for (const child of inline.children) {
      if (child.type === 'image') {
        images.push(child);
        pieces.push([]);
      } else pieces[pieces.length - 1].push(child);
    }
    // Text at the cut loses the space that separated it from the image.
    const trimmed = (p: Token[], k: number): Token[] =>
      p.map((c, j) => {
        if (c.type !== 'text' || (j !== 0 && j !== p.length - 1)) return c;
        let content = c.content;
        if (j === 0 && k > 0) content = content.trimStart();
        if (j === p.length - 1 && k < images.length) content = content.trimEnd();
        return Object.assign(Object.create(Object.getPrototypeOf(c)) as Token, c, { content });
      });
    const blank = (p: Token[]) => p.every((c) => c.type === 'softbreak' || c.type === 'hardbreak' || (c.type === 'text' && c.content.trim() === ''));
    const block = (children: Token[]): Token[] => {
      const body = Object.assign(Object.create(Object.getPrototypeOf(inline)) as Token, inline, { children });
      return [open, body, close];
    };
    if (open.type !== 'paragraph_open') {
      // A heading keeps its text; its images come after it.
      out.push(...block(pieces.flat()), ...images);
    } else {
      pieces.forEach((p, k) => {
        if (!blank(p)) out.push(...block(trimmed(p, k)));
        if (k < images.length) out.push(images[k]);
      });
      // A paragraph that was only blanks around images still leaves a valid list item or quote (filled on parse).
    }
    i += 2;
  }
  state.tokens = out;
}

const FILE_SRC = /^fil_[A-Za-z0-9]{1,60}$/;
const LINK_HREF = /^(https?:\/\/\S+|mailto:\S+|fil_[A-Za-z0-9]{1,60}(#blk_[A-Za-z0-9]{1,60})?)$/i;
const checked = (v: string | null, re: RegExp, what: string, must: string): string => {
  if (v === null || !re.test(v)) throw new Error(`${what} "${(v ?? '').slice(0, 80)}" must point at ${must}`);
  return v;
};

const PARSE_TOKENS: Record<string, ParseSpec> = {
  blockquote: { block: 'blockquote' },
  paragraph: { block: 'paragraph' },
  list_item: { block: 'listItem' },
  bullet_list: { block: 'bulletList' },
  ordered_list: { block: 'orderedList', getAttrs: (tok) => ({ start: Math.min(Number(tok.attrGet('start') ?? 1) || 1, 999_999_999) }) },
  heading: { block: 'heading', getAttrs: (tok) => ({ level: Number(tok.tag.slice(1)) }) },
  code_block: { block: 'codeBlock', noCloseToken: true },
  fence: { block: 'codeBlock', getAttrs: (tok) => ({ language: tok.info.trim().split(/\s+/)[0] || null }), noCloseToken: true },
  hr: { node: 'horizontalRule' },
  image: {
    node: 'image',
    getAttrs: (tok) => ({ src: checked(tok.attrGet('src'), FILE_SRC, 'image', 'a file of the org, fil_… (URLs are not fetched)'), title: tok.attrGet('title') || null, alt: tok.children?.map((c) => c.content).join('') || null }),
  },
  hardbreak: { node: 'hardBreak' },
  mention: { node: 'mention', getAttrs: (tok) => ({ id: (tok.meta as { id: string }).id }) },
  em: { mark: 'italic' },
  strong: { mark: 'bold' },
  s: { mark: 'strike' },
  link: { mark: 'link', getAttrs: (tok) => ({ href: checked(tok.attrGet('href'), LINK_HREF, 'link', 'an http(s) or mailto URL or a file fil_…'), title: tok.attrGet('title') || null }) },
  code_inline: { mark: 'code', noCloseToken: true },
};

const deepest = (tokens: Token[]): number => tokens.reduce((max, t) => Math.max(max, t.level), 0);

/**
 * Markdown as top-level blocks, each checked against the schema like JSON input (an image's src, a link's href,
 * a mention's id). BAD_REQUEST names `field` (and the block: `field (block 3)`).
 */
export function markdownToBlocks(markdown: string, field: string): Node[] {
  if (markdown.includes('\u0000') || !markdown.isWellFormed()) throw badRequest(field, 'must be well-formed Unicode text without NUL characters');
  const { tokenizer, parser } = markdownTools();
  const tokens = tokenizer.parse(markdown, {});
  if (deepest(tokens) >= MAX_LEVEL) throw badRequest(field, `nested more than ${MAX_LEVEL} levels deep (lists and quotes)`);
  let doc: Node;
  try {
    doc = parser.parse(markdown);
  } catch (err) {
    throw badRequest(field, `cannot be read as Markdown: ${err instanceof Error ? err.message.slice(0, 200) : 'unknown error'}`);
  }
  // Built again through the checked path: the parser creates nodes without running attribute checks.
  const blocks: Node[] = [];
  doc.forEach((block, _offset, i) => {
    blocks.push(docNodeFromJson(block.toJSON(), `${field} (block ${i + 1})`));
  });
  return blocks;
}

const backticksFor = (node: Node, side: number): string => {
  let len = 0;
  if (node.isText) for (const m of node.text!.matchAll(/`+/g)) len = Math.max(len, m[0].length);
  let result = len > 0 && side > 0 ? ' `' : '`';
  for (let i = 0; i < len; i++) result += '`';
  if (len > 0 && side < 0) result += ' ';
  return result;
};

const linkTarget = (href: string, title: string | null) => href.replace(/[()"\s]/g, (c) => (c === ' ' ? '%20' : `\\${c}`)) + (title ? ` "${title.replace(/"/g, '\\"')}"` : '');

const ASCII_WORD = /[A-Za-z0-9]/;
/**
 * prosemirror-markdown's escaping, made stricter where it let text read back as markup: `_` stays bare only between
 * ASCII letters or digits; at a line start, any list marker ("1)", "1." at the end, a lone "+") or setext "="; what would read
 * back as an autolink, a mention or an entity.
 */
function escapeText(str: string, lineStart: boolean): string {
  let out = str.replace(/[`*\\~[\]_]/g, (m, i: number) => (m === '_' && i > 0 && i + 1 < str.length && ASCII_WORD.test(str[i - 1]) && ASCII_WORD.test(str[i + 1]) ? m : `\\${m}`));
  if (lineStart) {
    out = out
      .replace(/^(\+[ ]|[-*>])/, '\\$&')
      .replace(/^(\s*)(#{1,6})(\s|$)/, '$1\\$2$3')
      .replace(/^(\s*\d+)([.)])(?=\s|$)/, '$1\\$2')
      .replace(/^\+$/, '\\+')
      .replace(/^=/, '\\=');
  }
  return out.replace(/<(?=[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*>|[^\s<>@]*@[^\s<>]*>)|&(?=#?[A-Za-z0-9]+;)/g, '\\$&');
}

/** How many lists of the same type come right before this one among its siblings. */
const run = (parent: Node, index: number): number => {
  let n = 0;
  while (index - n - 1 >= 0 && parent.child(index - n - 1).type === parent.child(index).type) n++;
  return n;
};

const SERIALIZE: ConstructorParameters<typeof MarkdownSerializer> = [
  {
    blockquote: (state, node) => state.wrapBlock('> ', null, node, () => state.renderContent(node)),
    codeBlock: (state, node) => {
      const backticks = node.textContent.match(/`{3,}/gm);
      const fence = backticks ? `${backticks.sort().slice(-1)[0]}\`` : '```';
      state.write(fence + ((node.attrs.language as string | null) ?? '') + '\n');
      state.text(node.textContent, false);
      state.write('\n');
      state.write(fence);
      state.closeBlock(node);
    },
    heading: (state, node) => {
      const st = state as MarkdownSerializerState & { out: string };
      state.write(`${state.repeat('#', node.attrs.level as number)} `);
      const at = st.out.length;
      state.renderInline(node, false);
      // A run of # ending the line would read as the heading's closing sequence and vanish.
      st.out = st.out.slice(0, at) + st.out.slice(at).replace(/(^|[ \t])(#+[ \t]*)$/, '$1\\$2');
      state.closeBlock(node);
    },
    horizontalRule: (state, node) => {
      state.write('---');
      state.closeBlock(node);
    },
    // Two lists in a row are told apart by their markers (- then *, . then )), or Markdown would join them.
    bulletList: (state, node, parent, index) => {
      const marker = run(parent, index) % 2 === 0 ? '- ' : '* ';
      state.renderList(node, '  ', () => marker);
    },
    orderedList: (state, node, parent, index) => {
      const start = node.attrs.start as number;
      // A list starting past 1 cannot interrupt a paragraph (CommonMark): a blank line keeps it a list.
      if (start !== 1) (state as MarkdownSerializerState & { flushClose(size: number): void }).flushClose(2);
      const maxW = String(start + node.childCount - 1).length;
      const space = state.repeat(' ', maxW + 2);
      const delim = run(parent, index) % 2 === 0 ? '. ' : ') ';
      state.renderList(node, space, (i) => {
        const n = String(start + i);
        return `${state.repeat(' ', maxW - n.length)}${n}${delim}`;
      });
    },
    // An item that opens with a block other than text (an image) reads back with an empty first paragraph: write
    // it without that paragraph, so it reads back the same.
    listItem: (state, node) =>
      node.forEach((child, _offset, i) => {
        if (!(i === 0 && node.childCount > 1 && child.type.name === 'paragraph' && child.childCount === 0)) state.render(child, node, i);
      }),
    paragraph: (state, node) => {
      state.renderInline(node);
      state.closeBlock(node);
    },
    image: (state, node) => {
      state.write(`![${state.esc((node.attrs.alt as string | null) ?? '')}](${linkTarget(node.attrs.src as string, node.attrs.title as string | null)})`);
      state.closeBlock(node);
    },
    hardBreak: (state, node, parent, index) => {
      // An ATX heading is one line: a break in it can only be a space in Markdown.
      if (parent.type.name === 'heading') return state.write(' ');
      for (let i = index + 1; i < parent.childCount; i++) {
        if (parent.child(i).type !== node.type) {
          state.write('\\\n');
          return;
        }
      }
    },
    mention: (state, node) => state.write(`<@${node.attrs.id as string}>`),
    text: (state, node, parent, index) => {
      const st = state as MarkdownSerializerState & { inAutolink?: boolean; atBlockStart: boolean; out: string };
      if (st.inAutolink) return state.text(node.text!, false);
      // As state.text, with our own escaping: a line after a hard break starts a line too.
      const afterBreak = index > 0 && parent.child(index - 1).type.name === 'hardBreak';
      node.text!.split('\n').forEach((line, i, lines) => {
        state.write();
        st.out += escapeText(line, st.atBlockStart || (i === 0 && afterBreak)) + (i < lines.length - 1 ? '\n' : '');
      });
    },
  },
  {
    italic: { open: '*', close: '*', mixable: true, expelEnclosingWhitespace: true },
    bold: { open: '**', close: '**', mixable: true, expelEnclosingWhitespace: true },
    strike: { open: '~~', close: '~~', mixable: true, expelEnclosingWhitespace: true },
    link: { open: '[', close: (_state, mark) => `](${linkTarget(mark.attrs.href as string, mark.attrs.title as string | null)})`, mixable: true },
    code: { open: (_s, _m, parent, index) => backticksFor(parent.child(index), -1), close: (_s, _m, parent, index) => backticksFor(parent.child(index - 1), 1), escape: false },
  },
  {
    hardBreakNodeName: 'hardBreak',
    // Not in the option's type, read by renderList: lists come out tight (no blank line between items).
    ...({ tightLists: true } as object),
  },
];

// The instances an import gives, so prosemirror-markdown builds on protocol/doc-schema's prosemirror-model.
const markdownIt = lazyModule<typeof import('markdown-it')>('markdown-it');
const prosemirrorMarkdown = lazyModule<typeof import('prosemirror-markdown')>('prosemirror-markdown');

let tools: { tokenizer: MarkdownIt; parser: MarkdownParser; serializer: MarkdownSerializer } | undefined;
/** markdown-it and prosemirror-markdown (a quarter of a second to load) are loaded by the first conversion. */
function markdownTools() {
  if (tools) return tools;
  const { default: MarkdownIt } = markdownIt();
  const { MarkdownParser, MarkdownSerializer } = prosemirrorMarkdown();
  const tokenizer = new MarkdownIt('default', { html: false, linkify: false, typographer: false }).disable(['table']);
  tokenizer.set({ maxNesting: MAX_LEVEL + 10 });
  // markdown-it refuses javascript:, data: and the like by default; the schema then allows only http(s), mailto and fil_.
  tokenizer.inline.ruler.before('autolink', 'mention', mention);
  tokenizer.core.ruler.after('inline', 'lift_images', liftImages);
  return (tools = { tokenizer, parser: new MarkdownParser(docSchema, tokenizer, PARSE_TOKENS), serializer: new MarkdownSerializer(...SERIALIZE) });
}

/** GFM Markdown of top-level blocks (a whole tab, or one block), blocks separated by a blank line. */
export function blocksToMarkdown(blocks: readonly Node[]): string {
  return markdownTools().serializer.serialize(docSchema.node('doc', null, blocks.length > 0 ? [...blocks] : [docSchema.node('paragraph')]));
}
