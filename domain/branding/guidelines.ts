import { renderPdf } from '../files/index.js';
import { contrastsOfStored, type Doc } from './model.js';
import { OUTPUT_EPOCH, tokenCss } from './kit-files.js';
import type { Token } from './tokens.js';

/*
 * The kit's guidelines.pdf (pdfmake, through files' printer): the brand's colours with swatches, its usage pairs
 * with their WCAG contrast, its type tokens, and its voice (tone, rules with the terms to avoid, examples).
 */

type Tokens = ReadonlyMap<string, Token & { type: string }>;

const swatch = (hex: string) => ({ canvas: [{ type: 'rect', x: 0, y: 0, w: 28, h: 14, r: 2, color: hex, lineColor: '#cccccc', lineWidth: 0.5 }] });
const HEX6 = /^#[0-9a-fA-F]{6}$/;

export function guidelinesPdf(doc: Doc, tokens: Tokens, version: number): Promise<Buffer> {
  const colours = [...tokens.values()].filter((t) => t.type === 'color').map((t) => [t.path, String(tokenCss(tokens, t.path) ?? '')] as const);
  const type = [...tokens.values()].filter((t) => ['fontFamily', 'fontWeight', 'typography'].includes(t.type) || /font|type|text/i.test(t.path.split('.')[0]));
  const pairs = contrastsOfStored(doc);
  const table = (widths: unknown[], header: string[], body: unknown[][]) => ({
    table: { headerRows: 1, widths, body: [header.map((h) => ({ text: h, bold: true })), ...body] },
    layout: 'lightHorizontalLines',
    margin: [0, 4, 0, 12],
  });
  const content: unknown[] = [
    { text: doc.name || 'Brand guidelines', fontSize: 24, bold: true },
    { text: `Brand version ${version}`, color: '#666666', margin: [0, 2, 0, 16] },
    { text: 'Colours', fontSize: 16, bold: true },
    colours.length
      ? table(
          [36, '*', 80],
          ['', 'Token', 'Value'],
          colours.map(([path, hex]) => [HEX6.test(hex) ? swatch(hex) : '', path, hex]),
        )
      : { text: 'No colour tokens.', italics: true, margin: [0, 4, 0, 12] },
    { text: 'Pairs and contrast (WCAG 2)', fontSize: 16, bold: true },
    pairs.length
      ? table(
          ['*', '*', 60, 50, 50],
          ['Foreground', 'Background', 'Use', 'Ratio', 'AA'],
          pairs.map((p) => [`${p.fg} (${p.fgHex})`, `${p.bg} (${p.bgHex})`, p.use, `${p.ratio.toFixed(2)}:1`, p.passes ? 'passes' : `below ${p.minimum}:1`]),
        )
      : { text: 'No usage pairs.', italics: true, margin: [0, 4, 0, 12] },
    { text: 'Type', fontSize: 16, bold: true },
    type.length
      ? table(
          ['*', '*'],
          ['Token', 'Value'],
          type.map((t) => [t.path, JSON.stringify(t.value)]),
        )
      : { text: 'The kit’s fonts: Inter (fonts/, SIL Open Font License 1.1).', margin: [0, 4, 0, 12] },
    { text: 'Voice', fontSize: 16, bold: true, margin: [0, 0, 0, 4] },
    { text: doc.voice.tone || 'No tone set.', margin: [0, 0, 0, 8] },
    doc.voice.rules.length
      ? {
          ul: doc.voice.rules.map((r) => ({
            text: [r.text, r.avoid.length ? { text: `  Avoid: ${r.avoid.join(', ')}`, color: '#a00000' } : '', { text: `  (${r.id})`, color: '#888888' }],
          })),
          margin: [0, 0, 0, 8],
        }
      : '',
    ...doc.voice.examples.map((e) => ({ text: [{ text: e.channel ? `${e.channel}: ` : '', bold: true }, e.text], margin: [0, 0, 0, 4] })),
  ];
  return renderPdf({
    info: { title: `${doc.name || 'Brand'} guidelines`, producer: 'wops', creator: 'wops', creationDate: OUTPUT_EPOCH },
    pageMargins: 48,
    content,
  });
}
