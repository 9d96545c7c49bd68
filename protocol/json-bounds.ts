import { isReservedKey, printable, RESERVED_KEYS_NOTE, TEXT_RULE_MESSAGE, wellFormedText } from './input-rules.js';

/**
 * Bounds on caller-supplied JSON, checked before anything recurses over it. JSON.parse accepts any depth, but
 * JSON.stringify, canonicalJson and most code that walks a value recurse, and overflow the stack somewhere past
 * a few thousand levels: a hostile argument must be refused by name before it gets there. The walk here is
 * iterative, so it is safe on any input.
 */

/** Deepest nesting of objects and arrays accepted anywhere (no contract comes close: books params reach 4). */
export const MAX_JSON_DEPTH = 64;
/** About the length of the value as JSON text: the HTTP body limit, applied to faces that have none (stdio). */
export const MAX_JSON_SIZE = 1024 * 1024;

/** Longest field name quoted in a message, and most names listed: messages stay small whatever the input. */
const MAX_NAME = 40;
const MAX_SEGMENTS = 8;

/** A field name as messages quote it: cut to MAX_NAME characters. */
export function fieldName(segment: PropertyKey): string {
  const s = printable(String(segment));
  return s.length > MAX_NAME ? `${s.slice(0, MAX_NAME)}…` : s;
}

/** Where a path starts: `prefix` goes before every path (`arguments.params`); `root` names an empty one. */
export interface PathStart {
  prefix?: string;
  root?: string;
}

/** `a.b.c` (after the prefix) with every name cut, a long path shortened to its first names and its length. */
export function fieldPath(segments: readonly PropertyKey[], start: PathStart = {}): string {
  if (segments.length === 0) return start.prefix ?? start.root ?? 'params';
  const shown = segments.slice(0, MAX_SEGMENTS).map(fieldName);
  if (segments.length > MAX_SEGMENTS) shown.push(`…(${segments.length} levels)`);
  return start.prefix ? `${start.prefix}.${shown.join('.')}` : shown.join('.');
}

export interface JsonBounds {
  maxDepth: number;
  maxSize: number;
  /**
   * Also the input rules (input-rules.ts) on every key and string: no reserved key (__proto__, constructor,
   * prototype) and well-formed text without NUL. On for what callers send; off where the server hashes its own
   * data (canonicalJson), which must keep verifying whatever an older chain holds.
   */
  input?: boolean;
}

const DEFAULT_BOUNDS: JsonBounds = { maxDepth: MAX_JSON_DEPTH, maxSize: MAX_JSON_SIZE, input: true };

const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON !== 'function';

/**
 * The first way `value` breaks the bounds (and, by default, the input rules), as `<field path>: <reason>` (the
 * spec's BAD_REQUEST form), or undefined. Paths are bare as zod's are (`items.0.note`) unless `start` gives a
 * prefix. Every face runs this on what it received before anything else walks it, so no key or string of any
 * contract, nested or not, escapes the rules, whatever its zod schema says (z.unknown() included).
 */
export function jsonBoundsIssue(value: unknown, start: PathStart = {}, bounds: JsonBounds = DEFAULT_BOUNDS): string | undefined {
  // Depth-first with an explicit stack; paths are rebuilt from parent links only for the message.
  interface Node {
    value: unknown;
    depth: number;
    key: string | number | undefined;
    parent: Node | undefined;
  }
  const pathOf = (n: Node | undefined): (string | number)[] => {
    const out: (string | number)[] = [];
    for (let at = n; at?.key !== undefined; at = at.parent) out.push(at.key);
    return out.reverse();
  };
  let size = 0;
  const stack: Node[] = [{ value, depth: 0, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === 'string') {
      size += v.length + 2;
      if (bounds.input && !wellFormedText(v)) return `${fieldPath(pathOf(node), start)}: ${TEXT_RULE_MESSAGE}`;
    } else if (!isContainer(v)) size += 5;
    else {
      const depth = node.depth + 1;
      if (depth > bounds.maxDepth) return `${fieldPath(pathOf(node), start)}: nested more than ${bounds.maxDepth} levels deep`;
      size += 2;
      if (Array.isArray(v)) {
        size += v.length;
        for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], depth, key: i, parent: node });
      } else {
        for (const k of Object.keys(v)) {
          size += k.length + 4;
          if (bounds.input && isReservedKey(k)) return `${fieldPath([...pathOf(node), k], start)}: not accepted as a field name (${RESERVED_KEYS_NOTE})`;
          if (bounds.input && !wellFormedText(k)) return `${fieldPath([...pathOf(node), k], start)}: field name ${TEXT_RULE_MESSAGE}`;
          stack.push({ value: (v as Record<string, unknown>)[k], depth, key: k, parent: node });
        }
      }
    }
    if (size > bounds.maxSize) return `${fieldPath([], start)}: larger than ${bounds.maxSize} characters of JSON`;
  }
  return undefined;
}

/**
 * The first reserved key (input-rules.ts) anywhere in `value`, as `<field path>: <reason>`, or undefined: the
 * check a face runs on a whole parsed body, whose routes do not all validate params (JSON.parse keeps
 * "__proto__" as an own key, which a later merge or assignment would follow). Iterative, like the walk above.
 */
export function reservedKeyIssue(value: unknown, start: PathStart = {}): string | undefined {
  // Parent links, not a path per node: a body nested a million levels deep costs one pass.
  interface Node {
    value: unknown;
    key: PropertyKey | undefined;
    parent: Node | undefined;
  }
  const pathOf = (n: Node | undefined): PropertyKey[] => {
    const out: PropertyKey[] = [];
    for (let at = n; at?.key !== undefined; at = at.parent) out.push(at.key);
    return out.reverse();
  };
  const stack: Node[] = [{ value, key: undefined, parent: undefined }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (!isContainer(v)) continue;
    if (Array.isArray(v)) v.forEach((item, i) => stack.push({ value: item, key: i, parent: node }));
    else {
      for (const k of Object.keys(v)) {
        if (isReservedKey(k)) return `${fieldPath([...pathOf(node), k], start)}: not accepted as a field name (${RESERVED_KEYS_NOTE})`;
        stack.push({ value: (v as Record<string, unknown>)[k], key: k, parent: node });
      }
    }
  }
  return undefined;
}
