import { badRequest } from '../../protocol/errors.js';
import { canonicalJson } from '../../protocol/hashing.js';
import { MAX_TOKENS_BYTES } from '../../protocol/methods/branding/index.js';

/*
 * DTCG 2025.10 design tokens, checked by hand: a tree of groups and tokens; a token has `$value`, its `$type` is
 * its own, a group's above it, or its alias target's; names never start with `$` nor hold `{`, `}` or `.`;
 * aliases `{group.token}` name a token (not a group) of a compatible type, and never loop. Every refusal is a
 * BAD_REQUEST naming the token's path (`tokens.color.a: alias cycle color.a→color.b→color.a`).
 */

export const TOKEN_TYPES = [
  'color',
  'dimension',
  'fontFamily',
  'fontWeight',
  'duration',
  'cubicBezier',
  'number',
  'strokeStyle',
  'border',
  'transition',
  'shadow',
  'gradient',
  'typography',
] as const;
type TokenType = (typeof TOKEN_TYPES)[number];

const COLOR_SPACES = [
  'srgb',
  'srgb-linear',
  'hsl',
  'hwb',
  'lab',
  'lch',
  'oklab',
  'oklch',
  'display-p3',
  'a98-rgb',
  'prophoto-rgb',
  'rec2020',
  'xyz-d65',
  'xyz-d50',
];
const FONT_WEIGHTS = [
  'thin',
  'hairline',
  'extra-light',
  'ultra-light',
  'light',
  'normal',
  'regular',
  'book',
  'medium',
  'semi-bold',
  'demi-bold',
  'bold',
  'extra-bold',
  'ultra-bold',
  'black',
  'heavy',
  'extra-black',
  'ultra-black',
];
const STROKE_STYLES = ['solid', 'dashed', 'dotted', 'double', 'groove', 'ridge', 'outset', 'inset'];
const GROUP_PROPS = new Set(['$type', '$description', '$extensions', '$deprecated']);
const TOKEN_PROPS = new Set(['$value', '$type', '$description', '$extensions', '$deprecated']);
export const HEX = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const ALIAS = /^\{([^{}]+)\}$/;

export interface Token {
  path: string;
  value: unknown;
  /** Declared on the token or inherited from a group. */
  declared?: TokenType;
}

const field = (path: string, sub = '') => `tokens.${path}${sub}`;
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
export const aliasOf = (v: unknown): string | undefined => (typeof v === 'string' ? ALIAS.exec(v)?.[1] : undefined);

/** Every token of the tree by path, with its declared or inherited type. */
export function flatten(tree: Record<string, unknown>): Map<string, Token> {
  const out = new Map<string, Token>();
  const walk = (node: Record<string, unknown>, prefix: string, inherited: TokenType | undefined) => {
    const type = typeOf(node.$type, prefix || '$root', inherited);
    for (const [name, child] of Object.entries(node)) {
      if (name.startsWith('$')) {
        if (!GROUP_PROPS.has(name)) throw badRequest(field(prefix ? `${prefix}.${name}` : name), `not a group property (${[...GROUP_PROPS].join(', ')})`);
        continue;
      }
      const path = prefix ? `${prefix}.${name}` : name;
      if (/[{}.]/.test(name) || name.trim() === '') throw badRequest(field(path), 'a name may not be empty or hold {, } or .');
      if (!isObject(child)) throw badRequest(field(path), 'must be a group or a token (an object with $value)');
      if ('$value' in child) {
        for (const k of Object.keys(child)) {
          if (!TOKEN_PROPS.has(k))
            throw badRequest(field(path, `.${k}`), k.startsWith('$') ? 'not a token property' : 'a token has no children (is it a group missing $value?)');
        }
        out.set(path, { path, value: child.$value, declared: typeOf(child.$type, path, type) });
      } else walk(child, path, type);
    }
  };
  walk(tree, '', undefined);
  return out;
}

function typeOf(given: unknown, path: string, inherited: TokenType | undefined): TokenType | undefined {
  if (given === undefined) return inherited;
  if (typeof given !== 'string' || !(TOKEN_TYPES as readonly string[]).includes(given)) {
    throw badRequest(field(path, '.$type'), `must be a DTCG type: ${TOKEN_TYPES.join(', ')}`);
  }
  return given as TokenType;
}

/** Check a whole tree: size, shape, types, values, aliases and cycles. Returns its tokens with their resolved types. */
export function checkTokens(tree: Record<string, unknown>): Map<string, Token & { type: TokenType }> {
  const bytes = Buffer.byteLength(canonicalJson(tree));
  if (bytes > MAX_TOKENS_BYTES) throw badRequest('tokens', `${bytes} bytes, above ${MAX_TOKENS_BYTES} (64 KiB)`);
  const tokens = flatten(tree);
  const paths = [...tokens.keys()].sort();
  for (const path of paths) findCycle(tokens, path);
  const typed = new Map<string, Token & { type: TokenType }>();
  const resolveType = (path: string): TokenType => {
    const t = tokens.get(path)!;
    const target = aliasOf(t.value);
    const type = t.declared ?? (target !== undefined ? resolveType(target) : undefined);
    if (!type) throw badRequest(field(path), 'no $type: give one on the token or a group above it');
    return type;
  };
  for (const path of paths) typed.set(path, { ...tokens.get(path)!, type: resolveType(path) });
  for (const path of paths) {
    const t = typed.get(path)!;
    checkValue(typed, t.type, t.value, path, '.$value');
  }
  return typed;
}

/** The first alias cycle through `start`, as a BAD_REQUEST (every alias in a value counts: a border's colour too). */
function findCycle(tokens: Map<string, Token>, start: string): void {
  const trail: string[] = [];
  const visit = (path: string) => {
    const at = trail.indexOf(path);
    if (at >= 0) throw badRequest(field(start), `alias cycle ${[...trail.slice(at), path].join('→')}`);
    const t = tokens.get(path);
    if (!t) return;
    trail.push(path);
    for (const ref of aliasesIn(t.value)) {
      if (!tokens.has(ref)) throw badRequest(field(path), `alias {${ref}} names no token`);
      visit(ref);
    }
    trail.pop();
  };
  visit(start);
}

function aliasesIn(value: unknown): string[] {
  const alias = aliasOf(value);
  if (alias !== undefined) return [alias];
  if (Array.isArray(value)) return value.flatMap(aliasesIn);
  if (isObject(value)) return Object.values(value).flatMap(aliasesIn);
  return [];
}

type Typed = Map<string, Token & { type: TokenType }>;

function checkValue(tokens: Typed, type: TokenType, value: unknown, path: string, sub: string): void {
  const bad = (reason: string) => badRequest(field(path, sub), reason);
  const target = aliasOf(value);
  if (target !== undefined) {
    const t = tokens.get(target)!;
    if (t.type !== type) throw bad(`alias {${target}} is a ${t.type}, not a ${type}`);
    return;
  }
  const num = (v: unknown, s: string, min = -Infinity, max = Infinity) => {
    if (aliasOf(v) !== undefined) return checkValue(tokens, 'number', v, path, `${sub}.${s}`);
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max)
      throw badRequest(field(path, `${sub}.${s}`), `must be a number${min > -Infinity ? ` from ${min} to ${max}` : ''}`);
  };
  const parts = (keys: Record<string, TokenType>, v: unknown = value, at: string = sub) => {
    if (!isObject(v)) throw badRequest(field(path, at), `must be an object {${Object.keys(keys).join(', ')}}`);
    for (const k of Object.keys(v)) if (!(k in keys)) throw badRequest(field(path, `${at}.${k}`), `not a ${type} field (${Object.keys(keys).join(', ')})`);
    for (const [k, t] of Object.entries(keys)) {
      if (v[k] === undefined) throw badRequest(field(path, `${at}.${k}`), 'required');
      checkValue(tokens, t, v[k], path, `${at}.${k}`);
    }
  };
  switch (type) {
    case 'color':
      if (typeof value === 'string') {
        if (!HEX.test(value)) throw bad('must be a colour object {colorSpace, components, alpha?, hex?} or a hex colour #rrggbb');
        return;
      }
      if (!isObject(value)) throw bad('must be a colour object {colorSpace, components, alpha?, hex?}');
      for (const k of Object.keys(value))
        if (!['colorSpace', 'components', 'alpha', 'hex'].includes(k)) throw badRequest(field(path, `${sub}.${k}`), 'not a colour field');
      if (typeof value.colorSpace !== 'string' || !COLOR_SPACES.includes(value.colorSpace))
        throw badRequest(field(path, `${sub}.colorSpace`), `must be one of ${COLOR_SPACES.join(', ')}`);
      if (
        !Array.isArray(value.components) ||
        value.components.length !== 3 ||
        !value.components.every((c) => c === 'none' || (typeof c === 'number' && Number.isFinite(c)))
      ) {
        throw badRequest(field(path, `${sub}.components`), 'must be 3 numbers (or "none")');
      }
      if (value.alpha !== undefined) num(value.alpha, 'alpha', 0, 1);
      if (value.hex !== undefined && (typeof value.hex !== 'string' || !/^#[0-9a-fA-F]{6}$/.test(value.hex)))
        throw badRequest(field(path, `${sub}.hex`), 'must be #rrggbb');
      return;
    case 'dimension':
    case 'duration': {
      const units = type === 'dimension' ? ['px', 'rem'] : ['ms', 's'];
      if (!isObject(value) || Object.keys(value).some((k) => k !== 'value' && k !== 'unit')) throw bad(`must be {value, unit} with unit ${units.join(' or ')}`);
      num(value.value, 'value');
      if (typeof value.unit !== 'string' || !units.includes(value.unit)) throw badRequest(field(path, `${sub}.unit`), `must be ${units.join(' or ')}`);
      return;
    }
    case 'number':
      return num(value, '', -Infinity, Infinity);
    case 'fontFamily':
      if (
        typeof value === 'string'
          ? value.trim() === ''
          : !Array.isArray(value) || value.length === 0 || !value.every((f) => typeof f === 'string' && f.trim() !== '')
      ) {
        throw bad('must be a font name or a non-empty list of them');
      }
      return;
    case 'fontWeight':
      if (typeof value === 'number' ? !Number.isInteger(value) || value < 1 || value > 1000 : typeof value !== 'string' || !FONT_WEIGHTS.includes(value)) {
        throw bad(`must be 1 to 1000 or one of ${FONT_WEIGHTS.join(', ')}`);
      }
      return;
    case 'cubicBezier':
      if (!Array.isArray(value) || value.length !== 4) throw bad('must be [x1, y1, x2, y2]');
      value.forEach((v, i) => (i % 2 === 0 ? num(v, String(i), 0, 1) : num(v, String(i))));
      return;
    case 'strokeStyle':
      if (typeof value === 'string') {
        if (!STROKE_STYLES.includes(value)) throw bad(`must be one of ${STROKE_STYLES.join(', ')} or {dashArray, lineCap}`);
        return;
      }
      if (!isObject(value) || !Array.isArray(value.dashArray) || !['round', 'butt', 'square'].includes(value.lineCap as string))
        throw bad('must be {dashArray: [dimension…], lineCap: round|butt|square}');
      value.dashArray.forEach((d, i) => checkValue(tokens, 'dimension', d, path, `${sub}.dashArray.${i}`));
      return;
    case 'border':
      return parts({ color: 'color', width: 'dimension', style: 'strokeStyle' });
    case 'transition':
      return parts({ duration: 'duration', delay: 'duration', timingFunction: 'cubicBezier' });
    case 'shadow': {
      const layers = Array.isArray(value) ? value : [value];
      if (layers.length === 0) throw bad('must be a shadow or a non-empty list of them');
      layers.forEach((layer, i) => {
        const at = Array.isArray(value) ? `${sub}.${i}` : sub;
        if (!isObject(layer) || (layer.inset !== undefined && typeof layer.inset !== 'boolean')) {
          throw badRequest(field(path, at), 'must be {color, offsetX, offsetY, blur, spread, inset?}');
        }
        const { inset: _inset, ...rest } = layer;
        parts({ color: 'color', offsetX: 'dimension', offsetY: 'dimension', blur: 'dimension', spread: 'dimension' }, rest, at);
      });
      return;
    }
    case 'gradient':
      if (!Array.isArray(value) || value.length === 0) throw bad('must be a non-empty list of {color, position}');
      value.forEach((stop, i) => {
        if (!isObject(stop) || Object.keys(stop).some((k) => k !== 'color' && k !== 'position'))
          throw badRequest(field(path, `${sub}.${i}`), 'must be {color, position}');
        checkValue(tokens, 'color', stop.color, path, `${sub}.${i}.color`);
        num(stop.position, `${i}.position`, 0, 1);
      });
      return;
    case 'typography':
      return parts({ fontFamily: 'fontFamily', fontSize: 'dimension', fontWeight: 'fontWeight', letterSpacing: 'dimension', lineHeight: 'number' });
  }
}
