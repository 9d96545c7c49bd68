import { z } from 'zod';

/** A JSON Schema object as MCP carries it (`inputSchema`, `outputSchema`). */
export type JsonSchema = { type: 'object'; [key: string]: unknown };

/** Any JSON object: what a tool without a declared result shape promises. */
export const ANY_OBJECT: JsonSchema = { type: 'object' };

/**
 * zod 4's own converter (the contract's schemas are zod 4; zod-to-json-schema does not read them).
 * `io: 'input'` describes what a caller may send (defaults optional), `io: 'output'` what comes back.
 * `$schema` is dropped: MCP's default dialect is 2020-12 already, and validators that do not know the
 * 2020-12 meta-schema refuse a schema naming it.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return tidy(json) as Record<string, unknown>;
}

/** A format already says what a long generated pattern (ISO dates) says; the integer bounds of JS are noise. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'pattern' && typeof (node as { format?: unknown }).format === 'string') continue;
    if ((k === 'maximum' && v === Number.MAX_SAFE_INTEGER) || (k === 'minimum' && v === Number.MIN_SAFE_INTEGER)) continue;
    out[k] = tidy(v);
  }
  // `x.describe(...).nullable()` puts the description inside the non-null branch: lift it to the field.
  if (Array.isArray(out.anyOf) && out.description === undefined) {
    const described = (out.anyOf as Record<string, unknown>[]).find((b) => typeof b?.description === 'string');
    if (described) {
      out.description = described.description;
      out.anyOf = (out.anyOf as Record<string, unknown>[]).map((b) =>
        b === described ? Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'description')) : b,
      );
    }
  }
  return out;
}

/** Only what a value's JSON type is: nested shapes collapse to their type (`object`, `array`). */
function typeOnly(node: Record<string, unknown>): Record<string, unknown> {
  if (node.const !== undefined) return { const: node.const };
  if (Array.isArray(node.anyOf)) return { anyOf: (node.anyOf as Record<string, unknown>[]).map(typeOnly) };
  if (node.type === undefined && Array.isArray(node.enum)) return { enum: node.enum };
  return node.type === undefined ? {} : { type: node.type };
}

/**
 * The outline of an output schema: its top-level fields and each field's JSON type; nested objects and arrays
 * are given by type only, and nothing is marked required. A tools/list is paid for in context by every session;
 * describe_method serves the full, annotated schema.
 */
export function outline(schema: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(schema.anyOf)) return { type: 'object', anyOf: (schema.anyOf as Record<string, unknown>[]).map(outline) };
  if (schema.type !== 'object') return typeOnly(schema);
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = { type: 'object' };
  if (Object.keys(props).length) out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, typeOnly(v)]));
  return out;
}

const withoutDescription = (s: Record<string, unknown>) => Object.fromEntries(Object.entries(s).filter(([k]) => k !== 'description'));

/** The field that picks the branch: an enum of its values, each value's own description kept. */
function discriminator(seen: Record<string, unknown>[]): Record<string, unknown> {
  const texts = new Set(seen.map((s) => s.description).filter((d) => typeof d === 'string'));
  const description = texts.size <= 1 ? [...texts][0] : seen.map((s) => `${String(s.const)}: ${s.description ?? ''}`.trim()).join(' ');
  return { type: 'string', enum: seen.map((s) => s.const), ...(description ? { description } : {}) };
}

/**
 * Object branches of a union (books.onboardingAdvance by step, books.reports by report) as one object: Claude's
 * and OpenAI's tool APIs refuse an input schema with anyOf at the top. The discriminator becomes an enum, a
 * field whose shape differs by branch an anyOf of its shapes, and only fields every branch requires are required.
 * The server still validates the exact branch, so a wrong combination is refused naming the field.
 */
export function mergeBranches(branches: Record<string, unknown>[]): JsonSchema {
  const shapes = new Map<string, Record<string, unknown>[]>();
  for (const branch of branches) {
    for (const [field, schema] of Object.entries((branch.properties ?? {}) as Record<string, Record<string, unknown>>)) {
      const seen = shapes.get(field) ?? [];
      const key = JSON.stringify(withoutDescription(schema));
      if (!seen.some((s) => JSON.stringify(withoutDescription(s)) === key)) seen.push(schema);
      shapes.set(field, seen);
    }
  }
  const properties: Record<string, unknown> = {};
  for (const [field, seen] of shapes) {
    const description = seen.find((s) => typeof s.description === 'string')?.description;
    if (seen.length === 1) properties[field] = seen[0];
    else if (seen.every((s) => s.const !== undefined)) properties[field] = discriminator(seen);
    else properties[field] = { anyOf: seen, ...(description ? { description } : {}) };
  }
  const requiredBy = branches.map((b) => new Set((b.required ?? []) as string[]));
  const required = [...shapes.keys()].filter((f) => requiredBy.every((r) => r.has(f)));
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

export const isObjectSchema = (s: Record<string, unknown>): s is JsonSchema => s.type === 'object';
