import { PassThrough } from 'node:stream';
import type { KIT_FORMATS } from '../../protocol/methods/branding/index.js';
import { cssValue, resolveToken } from './render/tree.js';
import type { Token } from './tokens.js';

/*
 * The export kit's token files and its zip. Style Dictionary 5 builds the platform files in memory (formatPlatform:
 * no temp dir, nothing written), from the tokens with colours as hex (a DTCG colour object's own hex fallback, as
 * the contrast checks use it) and sizes as the foundation wrote them; its ios and android groups treat every size as
 * rem, so a px dimension goes through transforms of ours (1 px = 1 pt = 1 dp; 1 rem = 16). The zip is fflate's
 * streaming Zip (a dependency already; decision 0077 says why not archiver): entries go out as they are added.
 */

type Format = (typeof KIT_FORMATS)[number];
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The tree with every colour as a hex string (aliases kept), for Style Dictionary. */
function withHexColours(tree: Record<string, unknown>, tokens: ReadonlyMap<string, Token & { type: string }>, prefix = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, node] of Object.entries(tree)) {
    if (name.startsWith('$') || !isObject(node)) {
      out[name] = node;
      continue;
    }
    const path = prefix ? `${prefix}.${name}` : name;
    const t = tokens.get(path);
    if (t && '$value' in node)
      out[name] = t.type === 'color' && isObject(node.$value) ? { ...node, $value: cssValue('color', node.$value) ?? '#000000' } : node;
    else out[name] = withHexColours(node, tokens, path);
  }
  return out;
}

const dimensionOf = (t: { $value?: unknown; value?: unknown }): number => {
  const v = t.$value ?? t.value;
  return isObject(v) && typeof v.value === 'number' ? (v.unit === 'rem' ? v.value * 16 : v.value) : parseFloat(String(v));
};
const typeOf = (t: { $type?: string; type?: string }) => t.$type ?? t.type;
const family = (t: { $value?: unknown; value?: unknown }) => ([] as unknown[]).concat(t.$value ?? t.value).join(', ');
const HOOKS = {
  transforms: {
    'wops/size/dp': { type: 'value', filter: (t: never) => typeOf(t) === 'dimension', transform: (t: never) => `${dimensionOf(t)}dp` },
    'wops/size/swift': { type: 'value', filter: (t: never) => typeOf(t) === 'dimension', transform: (t: never) => `CGFloat(${dimensionOf(t)})` },
    'wops/font/swift': { type: 'value', filter: (t: never) => typeOf(t) === 'fontFamily', transform: (t: never) => JSON.stringify(family(t)) },
    'wops/font/join': { type: 'value', filter: (t: never) => typeOf(t) === 'fontFamily', transform: (t: never) => family(t) },
  },
};

const PLATFORMS: Record<Exclude<Format, 'dtcg'>, { path: string; platform: Record<string, unknown> }> = {
  css: { path: 'tokens/tokens.css', platform: { transformGroup: 'css', files: [{ destination: 'tokens.css', format: 'css/variables' }] } },
  js: { path: 'tokens/tokens.js', platform: { transformGroup: 'js', files: [{ destination: 'tokens.js', format: 'javascript/es6' }] } },
  ios: {
    path: 'tokens/BrandTokens.swift',
    platform: {
      transforms: ['attribute/cti', 'name/camel', 'color/UIColorSwift', 'wops/size/swift', 'wops/font/swift'],
      files: [{ destination: 'BrandTokens.swift', format: 'ios-swift/enum.swift', options: { className: 'BrandTokens' } }],
    },
  },
  android: {
    path: 'tokens/tokens.xml',
    platform: {
      transforms: ['attribute/cti', 'name/snake', 'color/hex8android', 'wops/size/dp', 'wops/font/join'],
      files: [{ destination: 'tokens.xml', format: 'android/resources' }],
    },
  },
};

/** The token files of the formats asked, in the order of KIT_FORMATS. */
export async function tokenFiles(
  tree: Record<string, unknown>,
  tokens: ReadonlyMap<string, Token & { type: string }>,
  formats: readonly Format[],
): Promise<{ path: string; data: Buffer }[]> {
  const out: { path: string; data: Buffer }[] = [];
  if (formats.includes('dtcg')) out.push({ path: 'tokens/tokens.json', data: Buffer.from(`${JSON.stringify(tree, null, 2)}\n`) });
  const platforms = (Object.keys(PLATFORMS) as (keyof typeof PLATFORMS)[]).filter((f) => formats.includes(f));
  if (platforms.length === 0 || tokens.size === 0) return out;
  const { default: StyleDictionary } = await import('style-dictionary');
  const sd = new StyleDictionary({
    tokens: withHexColours(tree, tokens) as never,
    hooks: HOOKS as never,
    log: { verbosity: 'silent', warnings: 'disabled' },
    platforms: Object.fromEntries(platforms.map((p) => [p, PLATFORMS[p].platform])),
  });
  for (const p of platforms) {
    const [file] = await sd.formatPlatform(p);
    out.push({ path: PLATFORMS[p].path, data: Buffer.from(String(file.output)) });
  }
  return out;
}

/** A token's resolved value as CSS (for the guidelines), or undefined. */
export const tokenCss = (tokens: ReadonlyMap<string, { type: string; value: unknown }>, path: string) => {
  const t = resolveToken(tokens, path);
  return t ? cssValue(t.type, t.value) : undefined;
};

/**
 * A zip written as entries are added: `body` is the stream of its bytes (hand it to the blob store as it fills),
 * `add` deflates one entry (stored as is when already compressed), `end` finishes it. Fixed entry times keep the same
 * entries the same bytes.
 */
/**
 * The one date the outputs carry: every zip entry's time and every PDF's CreationDate (pdfmake otherwise writes the
 * moment it runs, and its file ID hashes that), so the same inputs make the same bytes.
 */
export const OUTPUT_EPOCH = new Date('2026-01-01T00:00:00Z');

export async function zipStream() {
  const { Zip, ZipDeflate, ZipPassThrough } = await import('fflate');
  const body = new PassThrough();
  const entries: { path: string; bytes: number }[] = [];
  const zip = new Zip((err, chunk, final) => {
    if (err) body.destroy(err);
    else {
      body.write(chunk);
      if (final) body.end();
    }
  });
  return {
    body,
    entries,
    add(path: string, data: Buffer, compressed = false) {
      const f = compressed ? new ZipPassThrough(path) : new ZipDeflate(path, { level: 6 });
      f.mtime = OUTPUT_EPOCH;
      zip.add(f);
      f.push(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), true);
      entries.push({ path, bytes: data.length });
    },
    end: () => zip.end(),
  };
}
