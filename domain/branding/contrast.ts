import { badRequest } from '../../protocol/errors.js';
import type { Contrast } from '../../protocol/methods/branding/index.js';
import type { z } from 'zod';
import { aliasOf, HEX, type Token } from './tokens.js';

/*
 * WCAG 2 contrast of the usage pairs, by hand (sRGB relative luminance; ~20 lines, no colour library): a colour is a
 * hex string, an sRGB colour object, or any DTCG colour object with its `hex` fallback. A translucent foreground is
 * composited over its background, a translucent background over white.
 */

export const MINIMUM = { text: 4.5, largeText: 3, ui: 3 } as const;
type Rgba = [number, number, number, number];

function fromHex(hex: string): Rgba {
  const h = hex.slice(1);
  const full = h.length <= 4 ? [...h].map((c) => c + c).join('') : h;
  const n = (i: number) => parseInt(full.slice(i, i + 2), 16) / 255;
  return [n(0), n(2), n(4), full.length === 8 ? n(6) : 1];
}

function rgbaOf(value: unknown): Rgba | undefined {
  if (typeof value === 'string') return HEX.test(value) ? fromHex(value) : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  const c = value as { colorSpace?: string; components?: unknown[]; alpha?: number; hex?: string };
  const alpha = typeof c.alpha === 'number' ? c.alpha : 1;
  if (c.colorSpace === 'srgb' && c.components?.every((x) => typeof x === 'number')) {
    const [r, g, b] = c.components;
    return [r, g, b, alpha].map((x) => Math.min(1, Math.max(0, x))) as Rgba;
  }
  if (typeof c.hex === 'string') return [...fromHex(c.hex).slice(0, 3), alpha] as Rgba;
  return undefined;
}

const over = (top: Rgba, under: Rgba): Rgba => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1) as Rgba;
const channel = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
const luminance = ([r, g, b]: Rgba) => 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
const toHex = (c: Rgba) =>
  `#${c
    .slice(0, 3)
    .map((x) =>
      Math.round(x * 255)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;

/** The WCAG 2 ratio of two opaque colours, e.g. 4.54 for #767676 on #ffffff. */
export function ratioOf(fg: Rgba, bg: Rgba): number {
  const [a, b] = [luminance(fg), luminance(bg)];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}

/** A pair's colour: a token by reference (followed through aliases) or a literal. */
function resolve(ref: string, tokens: ReadonlyMap<string, Token & { type: string }>, at: string): Rgba {
  let value: unknown = ref;
  for (let hops = 0; hops < 64; hops++) {
    const alias = aliasOf(value);
    if (alias === undefined) break;
    const t = tokens.get(alias);
    if (!t) throw badRequest(at, `{${alias}} names no token`);
    if (t.type !== 'color') throw badRequest(at, `{${alias}} is a ${t.type}, not a color`);
    value = t.value;
  }
  const rgba = rgbaOf(value);
  if (!rgba)
    throw badRequest(
      at,
      typeof value === 'string' && value === ref
        ? 'must be a colour token {group.token} or a hex colour'
        : `has no sRGB value: give the token srgb components or a hex fallback`,
    );
  return rgba;
}

const floor = (x: number, places: number) => Math.floor(x * 10 ** places) / 10 ** places;

/** Every pair's contrast; with `enforce`, the first failing pair is a BAD_REQUEST (`usage.1: 3.1:1 below 4.5:1`). */
export function contrastsOf(
  usage: readonly { fg: string; bg: string; use: keyof typeof MINIMUM }[],
  tokens: ReadonlyMap<string, Token & { type: string }>,
  enforce: boolean,
): z.infer<typeof Contrast>[] {
  return usage.map((pair, index) => {
    const fgRaw = resolve(pair.fg, tokens, `usage.${index}.fg`);
    const bgRaw = resolve(pair.bg, tokens, `usage.${index}.bg`);
    const bg = bgRaw[3] < 1 ? over(bgRaw, [1, 1, 1, 1]) : bgRaw;
    const fg = over(fgRaw, bg);
    const ratio = ratioOf(fg, bg);
    const minimum = MINIMUM[pair.use];
    if (enforce && ratio < minimum)
      throw badRequest(`usage.${index}`, `${floor(ratio, 1).toFixed(1)}:1 below ${minimum}:1 (${pair.use}, ${pair.fg} on ${pair.bg})`);
    return { index, fg: pair.fg, bg: pair.bg, use: pair.use, fgHex: toHex(fg), bgHex: toHex(bg), ratio: floor(ratio, 2), minimum, passes: ratio >= minimum };
  });
}
