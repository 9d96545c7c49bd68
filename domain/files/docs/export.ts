import type { LevelFormat, Paragraph, ParagraphChild } from 'docx';
import type { Mark, Node } from 'prosemirror-model';
import { badRequest } from '../../../protocol/errors.js';
import type { ExportResult } from '../kinds.js';
import { blocksToMarkdown } from './markdown.js';
import { renderPdf } from '../pdf.js';

/*
 * A doc revision rendered for files.exportRequest: md (GFM, prosemirror-markdown), html (a small serializer of our
 * own over the schema: text escaped, hrefs already checked at write), docx (docx 9) and pdf (pdfmake 0.3 with the
 * Roboto fonts its package ships: ../pdf.ts; no URL or other file is ever read). Images are files of
 * the org and stay references ([image fil_…]): an export never inlines another file's bytes. Tabs follow one
 * another, each under its title when there are several.
 */

export const DOC_EXPORT_FORMATS = ['docx', 'pdf', 'md', 'html'] as const;

export interface ExportTab {
  title: string;
  blocks: Node[];
}

export async function exportDoc(tabs: readonly ExportTab[], format: string): Promise<ExportResult> {
  switch (format) {
    case 'md':
      return { bytes: Buffer.from(toMarkdown(tabs)), contentType: 'text/markdown; charset=utf-8', extension: 'md' };
    case 'html':
      return { bytes: Buffer.from(toHtml(tabs)), contentType: 'text/html; charset=utf-8', extension: 'html' };
    case 'docx':
      return { bytes: await toDocx(tabs), contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', extension: 'docx' };
    case 'pdf':
      return { bytes: await toPdf(tabs), contentType: 'application/pdf', extension: 'pdf' };
    default:
      throw badRequest('format', `a doc exports as ${DOC_EXPORT_FORMATS.join(', ')}`);
  }
}

const several = (tabs: readonly ExportTab[]) => tabs.length > 1;
const imageRef = (n: Node) => `[image ${n.attrs.src as string}${n.attrs.alt ? `: ${n.attrs.alt as string}` : ''}]`;
const mentionText = (n: Node) => `@${(n.attrs.label as string | null) ?? (n.attrs.id as string)}`;

export function toMarkdown(tabs: readonly ExportTab[]): string {
  if (!several(tabs)) return blocksToMarkdown(tabs[0]?.blocks ?? []);
  return tabs.map((t) => `# ${t.title.replace(/[\\`*_[\]#<>]/g, '\\$&')}\n\n${blocksToMarkdown(t.blocks)}`).join('\n');
}

/** Text as HTML text or attribute value: the five characters that could end either escaped. */
export const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
const esc = escapeHtml;

/**
 * An export is a file its reader opens as they like; a guest page is served to someone outside the org: its links
 * open with no opener and no referrer, a link to another file of the org (`fil_…`, which the guest cannot open) is
 * plain text, and an image (another file's bytes) is its alt text.
 */
interface HtmlMode {
  guest: boolean;
}

const linkTags = (m: Mark, mode: HtmlMode): [string, string] => {
  const href = m.attrs.href as string;
  if (mode.guest && href.startsWith('fil_')) return ['', ''];
  const title = m.attrs.title ? ` title="${esc(m.attrs.title as string)}"` : '';
  return [`<a href="${esc(href)}"${title}${mode.guest ? ' rel="noopener noreferrer nofollow"' : ''}>`, '</a>'];
};

const MARK_TAGS: Record<string, (m: Mark, mode: HtmlMode) => [string, string]> = {
  bold: () => ['<strong>', '</strong>'],
  italic: () => ['<em>', '</em>'],
  strike: () => ['<s>', '</s>'],
  code: () => ['<code>', '</code>'],
  link: linkTags,
};

function htmlOf(node: Node, top: boolean, mode: HtmlMode): string {
  const id = top && node.attrs.id ? ` id="${esc(node.attrs.id as string)}"` : '';
  const inner = () => {
    let s = '';
    node.forEach((c) => (s += htmlOf(c, false, mode)));
    return s;
  };
  switch (node.type.name) {
    case 'text': {
      const tags = node.marks.map((m) => MARK_TAGS[m.type.name](m, mode));
      return tags.map(([o]) => o).join('') + esc(node.text!) + tags.map(([, c]) => c).reverse().join('');
    }
    case 'paragraph':
      return `<p${id}>${inner()}</p>\n`;
    case 'heading':
      return `<h${node.attrs.level as number}${id}>${inner()}</h${node.attrs.level as number}>\n`;
    case 'blockquote':
      return `<blockquote${id}>\n${inner()}</blockquote>\n`;
    case 'bulletList':
      return `<ul${id}>\n${inner()}</ul>\n`;
    case 'orderedList':
      return `<ol${id}${node.attrs.start !== 1 ? ` start="${node.attrs.start as number}"` : ''}>\n${inner()}</ol>\n`;
    case 'listItem':
      return `<li>${inner()}</li>\n`;
    case 'codeBlock':
      return `<pre${id}><code${node.attrs.language ? ` class="language-${esc(node.attrs.language as string)}"` : ''}>${esc(node.textContent)}</code></pre>\n`;
    case 'horizontalRule':
      return `<hr${id}>\n`;
    case 'image':
      if (mode.guest) return `<span class="image">[image${node.attrs.alt ? `: ${esc(node.attrs.alt as string)}` : ''}]</span>\n`;
      return `<img${id} src="${esc(node.attrs.src as string)}" alt="${esc((node.attrs.alt as string | null) ?? '')}" data-file-id="${esc(node.attrs.src as string)}">\n`;
    case 'hardBreak':
      return '<br>';
    case 'mention':
      return `<span data-type="mention" data-id="${esc(node.attrs.id as string)}">${esc(mentionText(node))}</span>`;
    default:
      return inner();
  }
}

/** The tabs as an HTML fragment: each tab a section under its title when there are several. */
export function docBodyHtml(tabs: readonly ExportTab[], mode: HtmlMode = { guest: false }): string {
  return tabs
    .map(
      (t) =>
        (several(tabs) ? `<section>\n<h1 class="tab-title">${esc(t.title)}</h1>\n` : '') +
        t.blocks.map((b) => htmlOf(b, true, mode)).join('') +
        (several(tabs) ? '</section>\n' : ''),
    )
    .join('');
}

export function toHtml(tabs: readonly ExportTab[]): string {
  const body = docBodyHtml(tabs);
  return `<!doctype html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>${esc(tabs[0]?.title ?? 'Doc')}</title>\n</head>\n<body>\n${body}</body>\n</html>\n`;
}

/* docx: the package (docx 9) is imported by the first docx export, not with the server. */

type Docx = typeof import('docx');
const MONO = 'Courier New';

function docxRuns({ TextRun, ExternalHyperlink }: Docx, node: Node): ParagraphChild[] {
  const out: ParagraphChild[] = [];
  node.forEach((c) => {
    if (c.type.name === 'hardBreak') out.push(new TextRun({ text: '', break: 1 }));
    else if (c.type.name === 'mention') out.push(new TextRun({ text: mentionText(c), bold: true }));
    else if (c.isText) {
      const has = (name: string) => c.marks.some((m) => m.type.name === name);
      const link = c.marks.find((m) => m.type.name === 'link')?.attrs.href as string | undefined;
      const run = new TextRun({ text: c.text!, bold: has('bold'), italics: has('italic'), strike: has('strike'), font: has('code') ? MONO : undefined, style: link ? 'Hyperlink' : undefined });
      out.push(link && /^(https?|mailto):/i.test(link) ? new ExternalHyperlink({ link, children: [run] }) : run);
    }
  });
  return out;
}

interface DocxState {
  docx: Docx;
  lists: number;
}

function docxBlocks(node: Node, st: DocxState, indent: number, list?: { reference: string; level: number; instance: number }): Paragraph[] {
  const { BorderStyle, HeadingLevel, Paragraph, TextRun } = st.docx;
  const quote = indent > 0 ? { indent: { left: 720 * indent }, border: { left: { style: BorderStyle.SINGLE, size: 6, color: 'AAAAAA', space: 8 } } } : {};
  switch (node.type.name) {
    case 'paragraph':
      return [new Paragraph({ children: docxRuns(st.docx, node), ...(list ? { numbering: list } : quote) })];
    case 'heading': {
      const headings = [HeadingLevel.HEADING_1, HeadingLevel.HEADING_2, HeadingLevel.HEADING_3, HeadingLevel.HEADING_4, HeadingLevel.HEADING_5, HeadingLevel.HEADING_6];
      return [new Paragraph({ children: docxRuns(st.docx, node), heading: headings[(node.attrs.level as number) - 1], ...quote })];
    }
    case 'blockquote':
      return node.children.flatMap((c) => docxBlocks(c, st, indent + 1));
    case 'bulletList':
    case 'orderedList': {
      const reference = node.type.name === 'bulletList' ? 'bullets' : 'numbers';
      const level = list ? Math.min(list.level + 1, 8) : 0;
      const instance = ++st.lists;
      return node.children.flatMap((item) => item.children.flatMap((c, i) => docxBlocks(c, st, indent, i === 0 ? { reference, level, instance } : undefined)));
    }
    case 'codeBlock':
      return node.textContent.split('\n').map((line) => new Paragraph({ children: [new TextRun({ text: line, font: MONO })], shading: { fill: 'F3F3F3' }, ...quote }));
    case 'horizontalRule':
      return [new Paragraph({ children: [], border: { bottom: { style: BorderStyle.SINGLE, size: 6, color: '999999', space: 1 } } })];
    case 'image':
      return [new Paragraph({ children: [new TextRun({ text: imageRef(node), italics: true })], ...quote })];
    default:
      return [];
  }
}

const listLevels = ({ AlignmentType }: Docx, format: (typeof LevelFormat)[keyof typeof LevelFormat], text: (l: number) => string) =>
  Array.from({ length: 9 }, (_, level) => ({ level, format, text: text(level), alignment: AlignmentType.LEFT, style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } } }));

async function toDocx(tabs: readonly ExportTab[]): Promise<Buffer> {
  const docx = await import('docx');
  const { Document, HeadingLevel, LevelFormat, Packer, PageBreak, Paragraph, TextRun } = docx;
  const st: DocxState = { docx, lists: 0 };
  const children = tabs.flatMap((t, i) => [
    ...(several(tabs) ? [new Paragraph({ children: i > 0 ? [new PageBreak(), new TextRun(t.title)] : [new TextRun(t.title)], heading: HeadingLevel.TITLE })] : []),
    ...t.blocks.flatMap((b) => docxBlocks(b, st, 0)),
  ]);
  const doc = new Document({
    numbering: {
      config: [
        { reference: 'bullets', levels: listLevels(docx, LevelFormat.BULLET, (l) => ['•', '◦', '▪'][l % 3]) },
        { reference: 'numbers', levels: listLevels(docx, LevelFormat.DECIMAL, (l) => `%${l + 1}.`) },
      ],
    },
    sections: [{ children }],
  });
  return Packer.toBuffer(doc);
}

/* pdf */

type PdfText = { text: string; bold?: boolean; italics?: boolean; decoration?: string; background?: string; link?: string; color?: string };

function pdfRuns(node: Node): PdfText[] {
  const out: PdfText[] = [];
  node.forEach((c) => {
    if (c.type.name === 'hardBreak') out.push({ text: '\n' });
    else if (c.type.name === 'mention') out.push({ text: mentionText(c), bold: true });
    else if (c.isText) {
      const has = (name: string) => c.marks.some((m) => m.type.name === name);
      const link = c.marks.find((m) => m.type.name === 'link')?.attrs.href as string | undefined;
      out.push({
        text: c.text!,
        ...(has('bold') ? { bold: true } : {}),
        ...(has('italic') ? { italics: true } : {}),
        ...(has('strike') ? { decoration: 'lineThrough' } : {}),
        ...(has('code') ? { background: '#f3f3f3' } : {}),
        ...(link && /^(https?|mailto):/i.test(link) ? { link, color: '#1a56a8' } : {}),
      });
    }
  });
  return out.length > 0 ? out : [{ text: '' }];
}

function pdfBlock(node: Node): unknown {
  switch (node.type.name) {
    case 'paragraph':
      return { text: pdfRuns(node), margin: [0, 0, 0, 6] };
    case 'heading':
      return { text: pdfRuns(node), bold: true, fontSize: [22, 18, 15, 13, 12, 11][(node.attrs.level as number) - 1], margin: [0, 8, 0, 4] };
    case 'blockquote':
      return { stack: node.children.map(pdfBlock), margin: [18, 0, 0, 6], italics: true, color: '#444444' };
    case 'bulletList':
      return { ul: node.children.map((item) => ({ stack: item.children.map(pdfBlock) })), margin: [0, 0, 0, 6] };
    case 'orderedList':
      return { ol: node.children.map((item) => ({ stack: item.children.map(pdfBlock) })), start: node.attrs.start as number, margin: [0, 0, 0, 6] };
    case 'codeBlock':
      return { table: { widths: ['*'], body: [[{ text: node.textContent || ' ', fontSize: 9, preserveLeadingSpaces: true }]] }, layout: 'noBorders', fillColor: '#f3f3f3', margin: [0, 0, 0, 6] };
    case 'horizontalRule':
      return { canvas: [{ type: 'line', x1: 0, y1: 4, x2: 515, y2: 4, lineWidth: 0.5, lineColor: '#999999' }], margin: [0, 4, 0, 8] };
    case 'image':
      return { text: imageRef(node), italics: true, margin: [0, 0, 0, 6] };
    default:
      return { text: '' };
  }
}

async function toPdf(tabs: readonly ExportTab[]): Promise<Buffer> {
  const content = tabs.flatMap((t, i) => [
    ...(several(tabs) ? [{ text: t.title, fontSize: 24, bold: true, margin: [0, 0, 0, 10], ...(i > 0 ? { pageBreak: 'before' } : {}) }] : []),
    ...t.blocks.map(pdfBlock),
  ]);
  const def = { content, defaultStyle: { font: 'Roboto', fontSize: 11 }, info: { title: tabs[0]?.title ?? 'Doc', producer: 'workspace-ops' } };
  return renderPdf(def);
}
