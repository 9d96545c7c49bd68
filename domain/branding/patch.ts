import { canonicalJson } from '../../protocol/hashing.js';
import { flatten } from './tokens.js';

/*
 * RFC 7396 JSON merge patches over the foundation, and what a change touches: token paths, logos.<role>, name,
 * usage, voice.<field>. The paths go into events and proposals; the values only into the hold's summary (kept on
 * the hold's row for the inbox, never in the ledger).
 */

type Json = unknown;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

/** The merge patch that turns `from` into `to` (objects merge; anything else is replaced). */
export function mergePatchBetween(from: Record<string, unknown>, to: Record<string, unknown>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const k of Object.keys(from)) if (!(k in to)) patch[k] = null;
  for (const [k, v] of Object.entries(to)) {
    const was = from[k];
    if (isObject(was) && isObject(v)) {
      const inner = mergePatchBetween(was, v);
      if (Object.keys(inner).length) patch[k] = inner;
    } else if (was === undefined || canonicalJson(was) !== canonicalJson(v)) patch[k] = v;
  }
  return patch;
}

interface Doc {
  name: string;
  logos: Record<string, string>;
  tokens: Record<string, unknown>;
  usage: unknown[];
  voice: { tone: string; rules: unknown[]; examples: unknown[] };
}

const same = (a: unknown, b: unknown) => canonicalJson(a ?? null) === canonicalJson(b ?? null);

/** Group properties by group path (a group's $type change changes what its tokens are). */
function groupProps(tree: Record<string, unknown>, prefix = '', out = new Map<string, string>()): Map<string, string> {
  const own = Object.fromEntries(Object.entries(tree).filter(([k]) => k.startsWith('$')));
  if (Object.keys(own).length) out.set(prefix || '$root', canonicalJson(own));
  for (const [k, v] of Object.entries(tree)) if (!k.startsWith('$') && isObject(v) && !('$value' in v)) groupProps(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

/** What changed between two valid foundations, sorted: `tokens.<path>`, `logos.<role>`, `name`, `usage`, `voice.<field>`. */
export function changedPaths(before: Doc, after: Doc): string[] {
  const paths: string[] = [];
  if (before.name !== after.name) paths.push('name');
  for (const role of new Set([...Object.keys(before.logos), ...Object.keys(after.logos)]))
    if (before.logos[role] !== after.logos[role]) paths.push(`logos.${role}`);
  const [a, b] = [flatten(before.tokens), flatten(after.tokens)];
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    const [x, y] = [a.get(path), b.get(path)];
    if (!x || !y || !same(x.value, y.value) || x.declared !== y.declared) paths.push(`tokens.${path}`);
  }
  const [ga, gb] = [groupProps(before.tokens), groupProps(after.tokens)];
  // A group's own properties changed: named only when none of its tokens already is.
  for (const group of new Set([...ga.keys(), ...gb.keys()])) {
    if (ga.get(group) !== gb.get(group) && !paths.some((p) => p.startsWith(`tokens.${group}.`))) paths.push(`tokens.${group}`);
  }
  if (!same(before.usage, after.usage)) paths.push('usage');
  for (const f of ['tone', 'rules', 'examples'] as const) if (!same(before.voice[f], after.voice[f])) paths.push(`voice.${f}`);
  return [...new Set(paths)].sort();
}

const brief = (v: unknown) => {
  const text = v === undefined ? '(none)' : typeof v === 'string' ? v : canonicalJson(v);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
};

/** The change in words for the inbox: token values before → after, other paths by name (at most 12, then a count). */
export function describeChanges(before: Doc, after: Doc, paths: readonly string[]): string {
  const [a, b] = [flatten(before.tokens), flatten(after.tokens)];
  const words = paths.slice(0, 12).map((p) => {
    if (!p.startsWith('tokens.')) return p;
    const key = p.slice('tokens.'.length);
    return a.has(key) || b.has(key) ? `${p} ${brief(a.get(key)?.value)} → ${brief(b.get(key)?.value)}` : p;
  });
  return words.join('; ') + (paths.length > 12 ? `; and ${paths.length - 12} more` : '');
}
