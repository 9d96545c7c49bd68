import Mustache from 'mustache';
import { badRequest } from '../../protocol/errors.js';
import { aliasOf, HEX, type TOKEN_TYPES } from './tokens.js';

type TokenType = (typeof TOKEN_TYPES)[number];

/*
 * A template's body: a node tree (frame, stack, text, image, shape) with styles in the CSS subset the renderer
 * (satori) draws, token refs `{color.brand.primary}` checked against the live foundation, and text that is
 * mustache with {{field}} slots only (no sections, partials or comments: values fill slots and add no nodes).
 * Every refusal is BAD_REQUEST naming the field by its dotted path (`body.children.2.style.position`).
 */

export const MAX_NODES = 500;
export const MAX_DEPTH = 12;
const MAX_TEXT = 2000;

type Kind = 'length' | 'number' | 'color' | 'fontFamily' | 'fontWeight' | 'paint' | readonly string[];
const ALIGN = ['flex-start', 'flex-end', 'center', 'stretch', 'baseline', 'space-between', 'space-around'] as const;
const LENGTHS =
  'width height minWidth minHeight maxWidth maxHeight top right bottom left margin marginTop marginRight marginBottom marginLeft padding paddingTop paddingRight paddingBottom paddingLeft gap rowGap columnGap flexBasis borderRadius borderTopLeftRadius borderTopRightRadius borderBottomLeftRadius borderBottomRightRadius borderWidth fontSize letterSpacing lineHeight';

/** Satori's CSS subset, by property: what kind of value each takes. */
const STYLE: Record<string, Kind> = {
  ...Object.fromEntries(LENGTHS.split(' ').map((p) => [p, 'length' as const])),
  flexGrow: 'number',
  flexShrink: 'number',
  opacity: 'number',
  lineClamp: 'number',
  color: 'color',
  backgroundColor: 'color',
  borderColor: 'color',
  fontFamily: 'fontFamily',
  fontWeight: 'fontWeight',
  backgroundImage: 'paint',
  boxShadow: 'paint',
  textShadow: 'paint',
  transform: 'paint',
  display: ['flex', 'none'],
  position: ['relative', 'absolute'],
  flexDirection: ['row', 'column', 'row-reverse', 'column-reverse'],
  flexWrap: ['nowrap', 'wrap', 'wrap-reverse'],
  alignItems: ALIGN,
  alignSelf: ['auto', ...ALIGN],
  alignContent: ALIGN,
  justifyContent: ['flex-start', 'flex-end', 'center', 'space-between', 'space-around', 'space-evenly'],
  overflow: ['visible', 'hidden'],
  textAlign: ['left', 'right', 'center', 'justify', 'start', 'end'],
  fontStyle: ['normal', 'italic'],
  textTransform: ['none', 'uppercase', 'lowercase', 'capitalize'],
  textDecorationLine: ['none', 'underline', 'line-through'],
  whiteSpace: ['normal', 'pre', 'pre-wrap', 'pre-line', 'nowrap'],
  wordBreak: ['normal', 'break-all', 'break-word', 'keep-all'],
  textOverflow: ['clip', 'ellipsis'],
  objectFit: ['contain', 'cover', 'fill', 'none', 'scale-down'],
  borderStyle: ['solid', 'dashed'],
};

/** Which token types a kind of property takes by reference. */
const REF_TYPES: Record<Exclude<Kind, readonly string[] | 'paint'>, readonly TokenType[]> = {
  length: ['dimension', 'number'],
  number: ['number'],
  color: ['color'],
  fontFamily: ['fontFamily'],
  fontWeight: ['fontWeight', 'number'],
};

const LENGTH = /^-?\d+(\.\d+)?(px|%|em|rem)?$/;
const CSS_COLOR = /^(transparent|currentColor|rgba?\(\s*[\d.%\s,/]+\)|hsla?\(\s*[\d.%\s,/deg]+\))$/;
/** Gradients, shadows and transforms: CSS words, numbers, colours and parentheses; never url() or a quote. */
const PAINT = /^(?!.*url\()[-#(),.%\w\s]+$/i;

const NODE_KEYS: Record<string, readonly string[]> = {
  frame: ['type', 'style', 'children'],
  stack: ['type', 'style', 'children'],
  text: ['type', 'style', 'text'],
  image: ['type', 'style', 'src', 'alt'],
  shape: ['type', 'style', 'shape'],
};
const SHAPES = ['rect', 'ellipse', 'line'];
const IMAGE_ID = /^img_[A-Za-z0-9]+$/;
const SLOT = /^\{\{\s*([A-Za-z0-9_]+)\s*\}\}$/;

export interface Field {
  name: string;
  type: 'text' | 'image';
  maxLength: number | null;
}

export interface BodyCheck {
  /** The foundation's tokens by path with their types (tokens.ts checkTokens). */
  tokens: ReadonlyMap<string, { type: TokenType }>;
  fields: readonly Field[];
  /** A ref the foundation lacks: its literal value (a cloned package's), or undefined to refuse it. */
  literalFor?: (path: string) => string | number | undefined;
  /** Keep refs the foundation lacks as they are (a body checked before, whose tokens have changed since). */
  keepUnknownRefs?: boolean;
  /** The field path of the body, for messages (body, or package.template.body). */
  at: string;
}

export interface CheckedBody {
  body: Record<string, unknown>;
  nodes: number;
  refs: string[];
  images: string[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
/** A private writer with no cache: mustache's default one keeps every text it parsed, forever. */
const writer = new Mustache.Writer();
(writer as { templateCache?: unknown }).templateCache = undefined;

/** Check a body against its fields and the foundation's tokens; returns it with refs the foundation lacks made literal. */
export function checkBody(raw: unknown, c: BodyCheck): CheckedBody {
  const refs = new Set<string>();
  const images = new Set<string>();
  let nodes = 0;
  const walk = (node: unknown, at: string, depth: number): Record<string, unknown> => {
    if (!isObject(node)) throw badRequest(at, 'must be a node object {type, …}');
    if (++nodes > MAX_NODES) throw badRequest(at, `more than ${MAX_NODES} nodes`);
    if (depth > MAX_DEPTH) throw badRequest(at, `nested more than ${MAX_DEPTH} deep`);
    const type = node.type;
    if (typeof type !== 'string' || !(type in NODE_KEYS)) throw badRequest(`${at}.type`, `must be one of ${Object.keys(NODE_KEYS).join(', ')}`);
    if (depth === 0 && type !== 'frame') throw badRequest(`${at}.type`, 'the root must be a frame');
    const unknown = Object.keys(node).filter((k) => !NODE_KEYS[type].includes(k));
    if (unknown.length) throw badRequest(`${at}.${unknown[0]}`, `unknown field for a ${type} node (it takes ${NODE_KEYS[type].join(', ')})`);
    const out: Record<string, unknown> = { type };
    if (node.style !== undefined) out.style = checkStyle(node.style, `${at}.style`, c, refs);
    if (type === 'frame' || type === 'stack') {
      if (node.children !== undefined && !Array.isArray(node.children)) throw badRequest(`${at}.children`, 'must be an array of nodes');
      out.children = ((node.children as unknown[] | undefined) ?? []).map((child, i) => walk(child, `${at}.children.${i}`, depth + 1));
    } else if (type === 'text') {
      if (typeof node.text !== 'string' || node.text.length > MAX_TEXT) throw badRequest(`${at}.text`, `must be a string of at most ${MAX_TEXT} characters`);
      checkSlots(node.text, `${at}.text`, c.fields);
      out.text = node.text;
    } else if (type === 'image') {
      out.src = checkSrc(node.src, `${at}.src`, c.fields, images);
      if (node.alt !== undefined) {
        if (typeof node.alt !== 'string' || node.alt.length > 300) throw badRequest(`${at}.alt`, 'must be a string of at most 300 characters');
        checkSlots(node.alt, `${at}.alt`, c.fields);
        out.alt = node.alt;
      }
    } else {
      if (typeof node.shape !== 'string' || !SHAPES.includes(node.shape)) throw badRequest(`${at}.shape`, `must be one of ${SHAPES.join(', ')}`);
      out.shape = node.shape;
    }
    return out;
  };
  const body = walk(raw, c.at, 0);
  return { body, nodes, refs: [...refs].sort(), images: [...images].sort() };
}

function checkStyle(style: unknown, at: string, c: BodyCheck, refs: Set<string>): Record<string, unknown> {
  if (!isObject(style)) throw badRequest(at, 'must be an object of style properties');
  const out: Record<string, unknown> = {};
  for (const [prop, value] of Object.entries(style)) {
    const where = `${at}.${prop}`;
    const kind = STYLE[prop];
    if (!kind) throw badRequest(where, 'not a style the renderer draws (flexbox layout, position, size, spacing, colours, borders, type)');
    const ref = aliasOf(value);
    if (ref !== undefined && typeof kind === 'string' && kind !== 'paint') {
      const token = c.tokens.get(ref);
      if (token) {
        if (!REF_TYPES[kind].includes(token.type)) throw badRequest(where, `{${ref}} is a ${token.type}, not a ${REF_TYPES[kind].join(' or ')}`);
        refs.add(ref);
        out[prop] = value;
        continue;
      }
      if (c.keepUnknownRefs) {
        out[prop] = value;
        continue;
      }
      const literal = c.literalFor?.(ref);
      if (literal === undefined) throw badRequest(where, `{${ref}} names no token of the live foundation (branding.getFoundation lists them)`);
      out[prop] = checkLiteral(literal, kind, where);
      continue;
    }
    out[prop] = checkLiteral(value, kind, where);
  }
  return out;
}

function checkLiteral(value: unknown, kind: Kind, where: string): unknown {
  if (typeof kind !== 'string') {
    if (typeof value !== 'string' || !kind.includes(value)) throw badRequest(where, `must be one of ${kind.join(', ')}`);
    return value;
  }
  const ok =
    kind === 'length'
      ? (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && (LENGTH.test(value) || value === 'auto'))
      : kind === 'number'
        ? typeof value === 'number' && Number.isFinite(value)
        : kind === 'color'
          ? typeof value === 'string' && (HEX.test(value) || CSS_COLOR.test(value))
          : kind === 'fontWeight'
            ? (typeof value === 'number' && value >= 100 && value <= 900) || value === 'normal' || value === 'bold'
            : kind === 'fontFamily'
              ? typeof value === 'string' && value.length <= 200 && /^[\w\s,'-]+$/.test(value)
              : typeof value === 'string' && value.length <= 500 && PAINT.test(value);
  if (!ok) throw badRequest(where, `not a ${KIND_WORDS[kind]}, nor a token ref {group.token}`);
  return value;
}

const KIND_WORDS: Record<Exclude<Kind, readonly string[]>, string> = {
  length: 'length (a number of px, or 12px, 50%, 1.5em, auto)',
  number: 'number',
  color: 'colour (#rrggbb, rgb(), transparent)',
  fontWeight: 'font weight (100 to 900, normal, bold)',
  fontFamily: 'font family (names and commas)',
  paint: 'gradient, shadow or transform (no url())',
};

/** Text is mustache with {{field}} slots naming text fields, and nothing else of mustache. */
function checkSlots(text: string, at: string, fields: readonly Field[]): void {
  let spans: Mustache.TemplateSpans;
  try {
    spans = writer.parse(text);
  } catch (err) {
    throw badRequest(at, `not a valid text with {{field}} slots: ${(err as Error).message.split('\n')[0]}`);
  }
  for (const [kind, name] of spans) {
    if (kind === 'text') continue;
    if (kind !== 'name') throw badRequest(at, 'only {{field}} slots: no sections, inverted sections, partials, comments, unescaped or delimiter tags');
    const field = fields.find((f) => f.name === name);
    if (!field || field.type !== 'text') throw badRequest(at, `{{${name}}} names no text field (fields: ${fields.map((f) => f.name).join(', ') || 'none'})`);
  }
}

function checkSrc(src: unknown, at: string, fields: readonly Field[], images: Set<string>): string {
  if (typeof src === 'string' && IMAGE_ID.test(src) && src.length <= 64) {
    images.add(src);
    return src;
  }
  const slot = typeof src === 'string' ? SLOT.exec(src)?.[1] : undefined;
  if (slot === undefined) throw badRequest(at, 'must be an image id (img_…) or an image field slot {{field}}');
  if (!fields.some((f) => f.name === slot && f.type === 'image')) throw badRequest(at, `{{${slot}}} names no image field`);
  return src as string;
}
