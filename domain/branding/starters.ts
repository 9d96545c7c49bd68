import type { Queryable } from '../../db/types.js';
import type { RECIPES } from '../../protocol/methods/branding/index.js';
import { currentAssets } from './assets.js';
import type { Doc } from './model.js';
import type { Field } from './template-body.js';
import type { TemplateState } from './templates.js';
import type { Token } from './tokens.js';

/*
 * The six starter recipes: each builds a template from the live foundation. Colours and the font are token refs
 * when the foundation has a fitting token (so a later palette change shows in renders without regenerating), the
 * text on a coloured ground is the fg of a usage pair on that ground (checked for contrast when it was saved), the
 * logo keeps its image's aspect, sizes follow the type scale the tokens give (a base size and a ratio, else 16 px
 * and 1.25), and the fixed copy is the brand's name and its shortest voice example, never a term the voice avoids.
 */

export type Recipe = (typeof RECIPES)[number];
type Tokens = ReadonlyMap<string, Token & { type: string }>;
type Node = Record<string, unknown>;

export interface Palette {
  primary: string;
  surface: string;
  text: string;
  accent: string;
  onPrimary: string;
  font: string;
  base: number;
  ratio: number;
  logo: { id: string; aspect: number } | null;
  wordmark: { id: string; aspect: number } | null;
  name: string;
  cta: string;
}

const ref = (path: string) => `{${path}}`;

/** The first colour token whose path matches, as a ref; else the literal. */
function pick(tokens: Tokens, type: string, wanted: RegExp[], fallback: string): string {
  const paths = [...tokens.values()].filter((t) => t.type === type).map((t) => t.path);
  for (const re of wanted) {
    const hit = paths.find((p) => re.test(p));
    if (hit) return ref(hit);
  }
  return fallback;
}

function numberToken(tokens: Tokens, wanted: RegExp, type: 'dimension' | 'number'): number | undefined {
  const t = [...tokens.values()].find((x) => x.type === type && wanted.test(x.path));
  const v = t?.value as { value?: unknown; unit?: string } | number | undefined;
  if (typeof v === 'number') return v;
  if (v && typeof v === 'object' && typeof v.value === 'number') return v.unit === 'rem' ? v.value * 16 : v.value;
  return undefined;
}

const clean = (text: string, avoid: string[]) => !avoid.some((a) => text.toLowerCase().includes(a.toLowerCase()));

/** What the recipes draw with, from the live foundation (and the logos' sizes in the library). */
export async function paletteOf(q: Queryable, orgId: string, doc: Doc, tokens: Tokens): Promise<Palette> {
  const primary = pick(tokens, 'color', [/^color\.brand\.primary$/, /primary/, /brand/], '#0b5cad');
  const surface = pick(tokens, 'color', [/^color\.surface$/, /surface|background|\bbg\b/, /white/], '#ffffff');
  const text = pick(tokens, 'color', [/^color\.text$/, /text|foreground|\bfg\b/, /black|ink/], '#1a1a1a');
  const accent = pick(tokens, 'color', [/accent/, /secondary/, /highlight/], primary);
  const onPrimary = doc.usage.find((u) => u.bg === primary && u.use !== 'ui')?.fg ?? surface;
  const font = pick(tokens, 'fontFamily', [/body/, /sans/, /./], 'Inter');
  const ids = [doc.logos.primary, doc.logos.wordmark].filter((x): x is string => typeof x === 'string');
  const sizes = await currentAssets(q, orgId, { ids });
  const logoOf = (id: string | undefined) => {
    const a = id ? sizes.get(id) : undefined;
    return a && a.status === 'active' && a.width && a.height ? { id: a.asset_id, aspect: Number(a.width) / Number(a.height) } : null;
  };
  const avoid = doc.voice.rules.flatMap((r) => r.avoid);
  const example = doc.voice.examples
    .map((e) => e.text.trim())
    .filter((t) => t.length <= 48 && clean(t, avoid))
    .sort((a, b) => a.length - b.length)[0];
  return {
    primary,
    surface,
    text,
    accent,
    onPrimary,
    font,
    base: numberToken(tokens, /font.*(size|base)|size.*(body|base)/i, 'dimension') ?? 16,
    ratio: numberToken(tokens, /scale|ratio/i, 'number') ?? 1.25,
    logo: logoOf(doc.logos.primary) ?? logoOf(doc.logos.wordmark),
    wordmark: logoOf(doc.logos.wordmark) ?? logoOf(doc.logos.primary),
    name: doc.name || 'Your brand',
    cta: example ?? [doc.name, 'Learn more'].find((t) => t && clean(t, avoid)) ?? '',
  };
}

/** Step k of the type scale, for a canvas `factor` times a 400 px reference. */
const step = (p: Palette, k: number, factor: number) => Math.round(p.base * p.ratio ** k * factor);

const textNode = (text: string, style: Node): Node => ({ type: 'text', text, style });
/** The logo at `height` (its width from its aspect, at most maxWidth), or the brand name in its place. */
function logoNode(p: Palette, height: number, maxWidth: number, color: string, word = false): Node {
  const logo = word ? p.wordmark : p.logo;
  if (!logo) return textNode(p.name, { color, fontFamily: p.font, fontSize: Math.round(height * 0.6), fontWeight: 700 });
  const width = Math.min(maxWidth, Math.round(height * logo.aspect));
  return { type: 'image', src: logo.id, alt: 'Logo', style: { width, height: Math.round(width / logo.aspect) } };
}

const F = (name: string, maxLength: number): Field => ({ name, type: 'text', maxLength });

/** A recipe's template on this palette (checked by the caller against the live tokens, as any body is). */
export function recipe(name: Recipe, p: Palette): TemplateState {
  const frame = (width: number, height: number, style: Node, children: Node[]) => ({ type: 'frame', style: { width, height, ...style }, children });
  const stack = (style: Node, children: Node[]): Node => ({ type: 'stack', style, children });
  const bar = (style: Node): Node => ({ type: 'shape', shape: 'rect', style: { backgroundColor: p.accent, ...style } });
  const type = (k: number, f: number, color: string, weight = 400): Node => ({ color, fontFamily: p.font, fontSize: step(p, k, f), fontWeight: weight });
  switch (name) {
    case 'social-square': {
      const f = 1080 / 400;
      return {
        kind: 'social-post',
        name: 'Social post (square)',
        size: { width: 1080, height: 1080 },
        fields: [F('headline', 80), F('subline', 140)],
        body: frame(1080, 1080, { backgroundColor: p.surface, padding: 96, flexDirection: 'column', justifyContent: 'space-between' }, [
          logoNode(p, 96, 480, p.text),
          stack({ gap: 32 }, [textNode('{{headline}}', type(4, f, p.text, 700)), textNode('{{subline}}', type(1, f, p.text))]),
          stack({ flexDirection: 'row', alignItems: 'center', gap: 24 }, [bar({ width: 96, height: 12 }), textNode(p.cta, type(0, f, p.text, 600))]),
        ]),
      };
    }
    case 'social-story': {
      const f = 1080 / 400;
      return {
        kind: 'social-story',
        name: 'Social story',
        size: { width: 1080, height: 1920 },
        fields: [F('headline', 60), F('subline', 140), F('cta', 30)],
        body: frame(1080, 1920, { backgroundColor: p.primary, padding: 120, flexDirection: 'column', justifyContent: 'space-between' }, [
          logoNode(p, 120, 600, p.onPrimary),
          stack({ gap: 40 }, [textNode('{{headline}}', type(5, f, p.onPrimary, 700)), textNode('{{subline}}', type(2, f, p.onPrimary))]),
          stack({ backgroundColor: p.surface, borderRadius: 48, padding: 36, alignItems: 'center' }, [textNode('{{cta}}', type(1, f, p.text, 700))]),
        ]),
      };
    }
    case 'banner': {
      const f = 500 / 400;
      return {
        kind: 'banner',
        name: 'Banner',
        size: { width: 1500, height: 500 },
        fields: [F('headline', 60), F('subline', 120)],
        body: frame(1500, 500, { backgroundColor: p.primary, padding: 80, flexDirection: 'row', alignItems: 'center', gap: 80 }, [
          logoNode(p, 140, 420, p.onPrimary, true),
          stack({ gap: 16, flexGrow: 1 }, [textNode('{{headline}}', type(4, f, p.onPrimary, 700)), textNode('{{subline}}', type(1, f, p.onPrimary))]),
        ]),
      };
    }
    case 'slide': {
      const f = 1080 / 400;
      return {
        kind: 'slide',
        name: 'Slide',
        size: { width: 1920, height: 1080 },
        fields: [F('title', 80), F('body', 400)],
        body: frame(1920, 1080, { backgroundColor: p.surface, flexDirection: 'row' }, [
          bar({ width: 24, height: 1080 }),
          stack({ padding: 120, gap: 48, flexGrow: 1, justifyContent: 'space-between' }, [
            stack({ gap: 48 }, [textNode('{{title}}', type(3, f, p.text, 700)), textNode('{{body}}', type(1, f, p.text))]),
            stack({ flexDirection: 'row', justifyContent: 'flex-end' }, [logoNode(p, 72, 360, p.text)]),
          ]),
        ]),
      };
    }
    case 'email-header': {
      const f = 200 / 400;
      return {
        kind: 'email-header',
        name: 'Email header',
        size: { width: 600, height: 200 },
        fields: [F('headline', 50)],
        body: frame(600, 200, { backgroundColor: p.primary, padding: 32, flexDirection: 'row', alignItems: 'center', gap: 32 }, [
          logoNode(p, 56, 200, p.onPrimary, true),
          textNode('{{headline}}', type(4, f, p.onPrimary, 700)),
        ]),
      };
    }
    case 'business-card': {
      const f = 600 / 400;
      return {
        kind: 'business-card',
        name: 'Business card',
        size: { width: 1050, height: 600 },
        fields: [F('name', 60), F('role', 60), F('email', 80), F('phone', 40)],
        body: frame(1050, 600, { backgroundColor: p.surface, padding: 72, flexDirection: 'column', justifyContent: 'space-between' }, [
          logoNode(p, 80, 420, p.text, true),
          stack({ gap: 8 }, [
            textNode('{{name}}', type(2, f, p.text, 700)),
            textNode('{{role}}', type(0, f, p.text)),
            bar({ width: 64, height: 6, marginTop: 16, marginBottom: 16 }),
            textNode('{{email}}', type(0, f, p.text)),
            textNode('{{phone}}', type(0, f, p.text)),
          ]),
        ]),
      };
    }
  }
}
