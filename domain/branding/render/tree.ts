import Mustache from 'mustache';
import { aliasOf, HEX } from '../tokens.js';

/*
 * A stored template body (checked by template-body.ts) to the element tree satori draws: token refs resolved
 * against the live foundation, {{field}} slots filled with the values as plain text (never parsed again: values add
 * no nodes), image nodes pointing at the bytes the caller loaded. A ref the foundation no longer has (a body kept
 * since a token was dropped) leaves its property out rather than failing the render.
 */

export interface Element {
  type: 'div' | 'img';
  props: Record<string, unknown> & { style: Record<string, unknown>; children?: (Element | string)[] };
}

export interface RenderImage {
  dataUri: string;
  width: number;
  height: number;
}

export interface TreeInput {
  body: Record<string, unknown>;
  size: { width: number; height: number };
  tokens: ReadonlyMap<string, { type: string; value: unknown }>;
  values: Readonly<Record<string, string>>;
  /** The bytes of each img_ id shown; an id missing here draws an empty box of the node's size. */
  images: ReadonlyMap<string, RenderImage>;
}

const writer = new Mustache.Writer();
(writer as { templateCache?: unknown }).templateCache = undefined;

const WEIGHT_NAMES: Record<string, number> = {
  thin: 100,
  hairline: 100,
  'extra-light': 200,
  'ultra-light': 200,
  light: 300,
  normal: 400,
  regular: 400,
  book: 400,
  medium: 500,
  'semi-bold': 600,
  'demi-bold': 600,
  bold: 700,
  'extra-bold': 800,
  'ultra-bold': 800,
  black: 900,
  heavy: 900,
  'extra-black': 950,
  'ultra-black': 950,
};

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A token's value followed through its aliases; undefined when the chain breaks. */
export function resolveToken(tokens: TreeInput['tokens'], path: string): { type: string; value: unknown } | undefined {
  let t = tokens.get(path);
  for (let hops = 0; t && aliasOf(t.value) !== undefined && hops < 64; hops++) t = tokens.get(aliasOf(t.value)!);
  return t && aliasOf(t.value) === undefined ? { type: tokens.get(path)!.type, value: t.value } : undefined;
}

/** A resolved token value as a CSS value satori takes. */
export function cssValue(type: string, value: unknown): string | number | undefined {
  if (type === 'color') {
    if (typeof value === 'string') return HEX.test(value) ? value : undefined;
    if (!isObject(value)) return undefined;
    if (typeof value.hex === 'string') return value.hex;
    const c = value.components;
    if (value.colorSpace !== 'srgb' || !Array.isArray(c) || !c.every((x) => typeof x === 'number')) return undefined;
    const [r, g, b] = c.map((x) => Math.round(Math.min(1, Math.max(0, x)) * 255));
    return typeof value.alpha === 'number' ? `rgba(${r}, ${g}, ${b}, ${value.alpha})` : `rgb(${r}, ${g}, ${b})`;
  }
  if (type === 'dimension' && isObject(value) && typeof value.value === 'number') return value.unit === 'rem' ? value.value * 16 : value.value;
  if (type === 'number' && typeof value === 'number') return value;
  if (type === 'fontFamily') return Array.isArray(value) ? value.join(', ') : typeof value === 'string' ? value : undefined;
  if (type === 'fontWeight') return typeof value === 'number' ? value : WEIGHT_NAMES[value as string];
  return undefined;
}

function style(raw: unknown, tokens: TreeInput['tokens']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (!isObject(raw)) return out;
  for (const [prop, value] of Object.entries(raw)) {
    const ref = aliasOf(value);
    if (ref === undefined) {
      out[prop] = value;
      continue;
    }
    const t = resolveToken(tokens, ref);
    const css = t && cssValue(t.type, t.value);
    if (css !== undefined) out[prop] = css;
  }
  return out;
}

/** Text with its {{field}} slots filled: the parsed spans joined, so a value is only ever text. */
export function fill(text: string, values: Readonly<Record<string, string>>): string {
  const spans: Mustache.TemplateSpans = writer.parse(text);
  return spans.map(([kind, v]) => (kind === 'text' ? v : kind === 'name' ? (values[v] ?? '') : '')).join('');
}

const SLOT = /^\{\{\s*([A-Za-z0-9_]+)\s*\}\}$/;

/** The img_ id an image node shows, given the values (a slot names an image field). */
export const imageIdOf = (src: unknown, values: Readonly<Record<string, string>>): string | undefined => {
  if (typeof src !== 'string') return undefined;
  const slot = SLOT.exec(src)?.[1];
  return slot === undefined ? src : values[slot];
};

/** Every img_ id a body shows with these values. */
export function imagesIn(body: unknown, values: Readonly<Record<string, string>>, out = new Set<string>()): Set<string> {
  if (!isObject(body)) return out;
  if (body.type === 'image') {
    const id = imageIdOf(body.src, values);
    if (id) out.add(id);
  }
  if (Array.isArray(body.children)) for (const c of body.children) imagesIn(c, values, out);
  return out;
}

export function toElement(input: TreeInput): Element {
  const walk = (node: Record<string, unknown>, root: boolean): Element => {
    // Sizes include padding and borders (satori's default is content-box): a 1080 frame with padding stays 1080.
    const s: Record<string, unknown> = { boxSizing: 'border-box', ...style(node.style, input.tokens) };
    switch (node.type) {
      case 'frame':
      case 'stack': {
        const children = ((node.children as Record<string, unknown>[] | undefined) ?? []).map((c) => walk(c, false));
        const base = node.type === 'stack' ? { display: 'flex', flexDirection: 'column' } : { display: 'flex' };
        const size = root ? { width: input.size.width, height: input.size.height, overflow: 'hidden' } : {};
        return { type: 'div', props: { style: { ...base, ...s, ...size }, children } };
      }
      case 'text':
        return { type: 'div', props: { style: { display: 'flex', ...s }, children: [fill(node.text as string, input.values)] } };
      case 'image': {
        const id = imageIdOf(node.src, input.values);
        const img = id ? input.images.get(id) : undefined;
        const numeric = (v: unknown) => (typeof v === 'number' ? v : undefined);
        let [w, h] = [numeric(s.width), numeric(s.height)];
        if (img && w === undefined && h === undefined) [w, h] = [img.width, img.height];
        else if (img && h === undefined && w !== undefined) h = Math.round((w * img.height) / img.width);
        else if (img && w === undefined && h !== undefined) w = Math.round((h * img.width) / img.height);
        const sized = { ...s, ...(w !== undefined ? { width: w } : {}), ...(h !== undefined ? { height: h } : {}) };
        if (!img) return { type: 'div', props: { style: { display: 'flex', ...sized } } };
        return { type: 'img', props: { src: img.dataUri, width: w, height: h, style: { objectFit: 'contain', ...sized } } };
      }
      default: {
        const shape = node.shape === 'ellipse' ? { borderRadius: '50%' } : node.shape === 'line' ? { height: 2, backgroundColor: s.color ?? '#000000' } : {};
        return { type: 'div', props: { style: { display: 'flex', ...shape, ...s } } };
      }
    }
  };
  return walk(input.body, true);
}
