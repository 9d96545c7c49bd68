import { HEX, aliasOf, type Token } from './tokens.js';
import { fonts } from './render/fonts.js';
import { seeded } from '../../protocol/seeded.js';

/*
 * The offline image generator: a seeded pattern, illustration or typographic card in the brand's colours, drawn as
 * SVG and rasterised by resvg (no system fonts: the card's words are drawn by satori as paths, in the bundled Inter).
 * Deterministic: the same inputs and palette give the same bytes.
 */

export type LocalStyle = 'pattern' | 'typographic' | 'illustration';

const DEFAULT_PALETTE = ['#0b5cad', '#e5661a', '#1a1a1a', '#f4f1ea', '#2e8b57'];

function hexOf(value: unknown): string | undefined {
  if (typeof value === 'string' && HEX.test(value)) return value.length === 4 ? `#${[...value.slice(1)].map((c) => c + c).join('')}` : value.slice(0, 7);
  if (value && typeof value === 'object') {
    const c = value as { colorSpace?: string; components?: unknown[]; hex?: string };
    if (typeof c.hex === 'string') return c.hex;
    if (c.colorSpace === 'srgb' && c.components?.every((x) => typeof x === 'number'))
      return `#${c.components
        .map((x) =>
          Math.round(Math.min(1, Math.max(0, x)) * 255)
            .toString(16)
            .padStart(2, '0'),
        )
        .join('')}`;
  }
  return undefined;
}

/** The foundation's colour tokens, aliases followed, in path order; the default palette when it has fewer than two. */
export function paletteOf(tokens: ReadonlyMap<string, Token & { type: string }>): string[] {
  const out: string[] = [];
  for (const [, t] of [...tokens].sort(([a], [b]) => a.localeCompare(b))) {
    if (t.type !== 'color') continue;
    let v = t.value;
    for (let hops = 0, to = aliasOf(v); to !== undefined && hops < 64; hops++, to = aliasOf(v)) v = tokens.get(to)?.value;
    const hex = hexOf(v)?.toLowerCase();
    if (hex && !out.includes(hex)) out.push(hex);
  }
  return out.length >= 2 ? out.slice(0, 8) : DEFAULT_PALETTE;
}

const f = (n: number) => Math.round(n * 10) / 10;

function patternSvg(w: number, h: number, palette: string[], rnd: () => number): string {
  const pick = () => palette[Math.floor(rnd() * palette.length)];
  const cell = Math.max(16, Math.round(Math.min(w, h) / (4 + Math.floor(rnd() * 6))));
  const parts = [`<rect width="${w}" height="${h}" fill="${palette[0]}"/>`];
  for (let y = 0; y < h; y += cell) {
    for (let x = 0; x < w; x += cell) {
      const kind = Math.floor(rnd() * 4);
      const c = pick();
      const cx = x + cell / 2;
      const cy = y + cell / 2;
      if (kind === 0) parts.push(`<circle cx="${f(cx)}" cy="${f(cy)}" r="${f(cell * (0.2 + rnd() * 0.3))}" fill="${c}"/>`);
      else if (kind === 1) parts.push(`<rect x="${x}" y="${y}" width="${cell}" height="${cell}" fill="${c}"/>`);
      else if (kind === 2) parts.push(`<path d="M${x} ${y + cell}L${x + cell} ${y + cell}L${x + cell} ${y}Z" fill="${c}"/>`);
      else parts.push(`<path d="M${x} ${y}A${cell} ${cell} 0 0 1 ${x + cell} ${y + cell}L${x} ${y + cell}Z" fill="${c}"/>`);
    }
  }
  return parts.join('');
}

function illustrationSvg(w: number, h: number, palette: string[], rnd: () => number): string {
  const parts = [`<rect width="${w}" height="${h}" fill="${palette[palette.length - 1]}"/>`];
  for (let i = 0; i < 3; i++) {
    const y = h * (0.35 + i * 0.2);
    const a = h * (0.05 + rnd() * 0.1);
    parts.push(
      `<path d="M0 ${f(y)}C${f(w * 0.3)} ${f(y - a)} ${f(w * 0.6)} ${f(y + a)} ${w} ${f(y - a / 2)}L${w} ${h}L0 ${h}Z" fill="${palette[i % palette.length]}" fill-opacity="0.85"/>`,
    );
  }
  for (let i = 0; i < 6; i++) {
    const r = Math.min(w, h) * (0.04 + rnd() * 0.12);
    parts.push(`<circle cx="${f(rnd() * w)}" cy="${f(rnd() * h * 0.5)}" r="${f(r)}" fill="${palette[(i + 1) % palette.length]}" fill-opacity="0.7"/>`);
  }
  return parts.join('');
}

/** The card's words drawn by satori (text becomes paths, so resvg needs no font). */
async function typographicSvg(w: number, h: number, words: string, palette: string[], rnd: () => number): Promise<string> {
  const { default: satori } = await import('satori');
  const bg = palette[Math.floor(rnd() * palette.length)];
  const fg = palette.find((c) => c !== bg) ?? '#ffffff';
  const text = words.replace(/\s+/g, ' ').trim().slice(0, 120);
  const size = Math.max(14, Math.round(Math.min(w, h) / Math.max(4, Math.sqrt(text.length) * 1.6)));
  const el = {
    type: 'div',
    props: {
      style: {
        width: w,
        height: h,
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        backgroundColor: bg,
        padding: Math.round(Math.min(w, h) / 12),
      },
      children: {
        type: 'div',
        props: {
          style: { color: fg, fontSize: size, fontWeight: 700, fontFamily: 'Inter', lineHeight: 1.1, textAlign: 'center', display: 'flex' },
          children: text,
        },
      },
    },
  };
  return satori(el, { width: w, height: h, fonts: await fonts() });
}

/** A PNG of the style at the size, from the seed and the palette. */
export async function localImage(style: LocalStyle, size: { width: number; height: number }, seed: number, prompt: string, palette: string[]): Promise<Buffer> {
  const { width: w, height: h } = size;
  const rnd = seeded(seed);
  const svg =
    style === 'typographic'
      ? await typographicSvg(w, h, prompt, palette, rnd)
      : `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">${style === 'pattern' ? patternSvg(w, h, palette, rnd) : illustrationSvg(w, h, palette, rnd)}</svg>`;
  const { Resvg } = await import('@resvg/resvg-js');
  return new Resvg(svg, { fitTo: { mode: 'original' }, font: { loadSystemFonts: false }, logLevel: 'off' }).render().asPng();
}
