import type { z } from 'zod';

/**
 * What a union accepts, in words, for its BAD_REQUEST message: zod says only "Invalid input", which leaves a
 * caller (an agent above all) guessing the shape. `{principalId} | {teamId} | {org: true} | {email}` names each
 * accepted shape: an object by its fields (a discriminator or literal with its value, an optional field with ?),
 * anything else by its type or values.
 */

/** Most options, and most fields of one object, a message lists. */
const MAX_OPTIONS = 8;
const MAX_FIELDS = 6;

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** A schema without its optional, nullable, default and readonly wrappers, and whether it may be left out. */
function unwrap(s: z.core.$ZodType): { inner: z.core.$ZodType; optional: boolean } {
  let inner = s;
  let optional = false;
  for (;;) {
    const def = defOf(inner);
    if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') optional = true;
    if (['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional'].includes(def.type)) inner = def.innerType as z.core.$ZodType;
    else if (def.type === 'pipe') inner = def.in as z.core.$ZodType;
    else return { inner, optional };
  }
}

const literalText = (values: readonly unknown[]) => values.map((v) => JSON.stringify(v)).join('|');

/** One accepted shape, short: `{kind: "member", principalId}`, `"a"|"b"`, `a string`, `a list`. */
export function describeShape(schema: z.core.$ZodType, depth = 0): string {
  const { inner } = unwrap(schema);
  const def = defOf(inner);
  switch (def.type) {
    case 'object': {
      const shape = def.shape as Record<string, z.core.$ZodType>;
      const fields = Object.entries(shape).map(([key, field]) => {
        const { inner: f, optional } = unwrap(field);
        const fd = defOf(f);
        // A field with one fixed value is what tells the shapes apart: show the value.
        if (fd.type === 'literal') return `${key}${optional ? '?' : ''}: ${literalText(fd.values as unknown[])}`;
        return `${key}${optional ? '?' : ''}`;
      });
      const shown = fields.slice(0, MAX_FIELDS).join(', ');
      return `{${shown}${fields.length > MAX_FIELDS ? ', …' : ''}}`;
    }
    case 'literal':
      return literalText(def.values as unknown[]);
    case 'enum':
      return literalText(Object.values(def.entries as Record<string, unknown>));
    case 'union':
      return depth > 1 ? 'one of several shapes' : (def.options as z.core.$ZodType[]).map((o) => describeShape(o, depth + 1)).join(' | ');
    case 'array':
      return 'a list';
    case 'record':
      return 'an object';
    case 'string':
      return 'a string';
    case 'number':
    case 'int':
      return 'a number';
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    default:
      return def.type;
  }
}

/** `expected one of <shape> | <shape> …` for a union's issue, from the union schema zod hands the error map. */
export function unionExpectation(union: z.core.$ZodType): string {
  const options = defOf(union).options as z.core.$ZodType[];
  const shapes = options.slice(0, MAX_OPTIONS).map((o) => describeShape(o));
  const more = options.length - shapes.length;
  return `expected one of ${shapes.join(' | ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}

/**
 * The error map parseParams gives zod (ctx.error): only unions' issues get words of their own; every other
 * issue keeps zod's message or the builder's (undefined defers).
 */
export function unionMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'invalid_union') return undefined;
  const union = (issue as { inst?: unknown }).inst;
  // A discriminated union's def is a union's with a discriminator: both list their options.
  if (!union || !Array.isArray(defOf(union).options)) return undefined;
  return unionExpectation(union as z.core.$ZodType);
}
