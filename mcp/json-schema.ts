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
      out.anyOf = (out.anyOf as Record<string, unknown>[]).map((b) => (b === described ? Object.fromEntries(Object.entries(b).filter(([k]) => k !== 'description')) : b));
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
 * The outline of an output schema: its top-level fields, which are required, and each field's JSON type;
 * nested objects and arrays are given by type only. A tools/list is paid for in context by every session,
 * and this is the part of the result shape a client validates against; describe_method serves the full,
 * annotated schema.
 */
export function outline(schema: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(schema.anyOf)) return { type: 'object', anyOf: (schema.anyOf as Record<string, unknown>[]).map(outline) };
  if (schema.type !== 'object') return typeOnly(schema);
  const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = { type: 'object' };
  if (Object.keys(props).length) out.properties = Object.fromEntries(Object.entries(props).map(([k, v]) => [k, typeOnly(v)]));
  if (Array.isArray(schema.required) && schema.required.length) out.required = schema.required;
  if (schema.additionalProperties === false) out.additionalProperties = false;
  return out;
}

export const isObjectSchema = (s: Record<string, unknown>): s is JsonSchema => s.type === 'object';
