import type { z } from 'zod';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../domain/deployed.js';

/**
 * Walks a zod schema's tree the way a value is shaped: object fields by name, array items as 0, record values
 * as "k", wrappers (optional, nullable, default, pipe…) and union options at the same path. For the tests that
 * check a rule holds for every node of every deployed contract.
 */

type Def = { type: string; [k: string]: unknown };
export const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

export type SchemaPath = (string | number)[];

export function walkSchema(
  schema: z.core.$ZodType,
  visit: (node: z.core.$ZodType, path: SchemaPath) => void,
  path: SchemaPath = [],
  seen = new Set<unknown>(),
): void {
  if (seen.has(schema)) return;
  seen.add(schema);
  visit(schema, path);
  const def = defOf(schema);
  const go = (s: unknown, p: SchemaPath) => s && walkSchema(s as z.core.$ZodType, visit, p, seen);
  switch (def.type) {
    case 'object':
      for (const [k, v] of Object.entries(def.shape as Record<string, unknown>)) go(v, [...path, k]);
      if (def.catchall) go(def.catchall, [...path, 'k']);
      break;
    case 'array':
      go(def.element, [...path, 0]);
      break;
    case 'record':
      go(def.valueType, [...path, 'k']);
      break;
    case 'tuple':
      (def.items as unknown[]).forEach((item, i) => go(item, [...path, i]));
      break;
    case 'union':
      for (const option of def.options as unknown[]) go(option, path);
      break;
    case 'intersection':
      go(def.left, path);
      go(def.right, path);
      break;
    case 'pipe':
      go(def.in, path);
      break;
    case 'lazy':
      go((def.getter as () => unknown)(), path);
      break;
    default:
      if (def.innerType) go(def.innerType, path);
  }
}

/** Every deployed method's params and every deployed read's query: [where, schema]. */
export function deployedSchemas(): [string, z.core.$ZodType][] {
  return [
    ...[...METHOD_HANDLERS].map(([name, h]): [string, z.core.$ZodType] => [name, h.contract.params as z.core.$ZodType]),
    ...[...READ_HANDLERS]
      .filter(([, h]) => h.contract.query)
      .map(([path, h]): [string, z.core.$ZodType] => [`GET ${path}`, h.contract.query as z.core.$ZodType]),
  ];
}

/** An integer field of a deployed contract: where (method, or `GET <path>`), its path, and its bounds. */
export interface IntField {
  where: string;
  path: SchemaPath;
  /** `<where> <dotted path>`, e.g. `charter.update baseVersion`. */
  name: string;
  min: number;
  max: number;
}

/** Every integer field (`.int()`) of every deployed method's params and read's query. */
export function intFields(): IntField[] {
  const out: IntField[] = [];
  for (const [where, schema] of deployedSchemas()) {
    walkSchema(schema, (node, path) => {
      const n = node as unknown as { isInt?: boolean; minValue: number | null; maxValue: number | null };
      if (defOf(node).type !== 'number' || !n.isInt) return;
      out.push({ where, path, name: `${where} ${path.join('.')}`, min: n.minValue ?? -Infinity, max: n.maxValue ?? Infinity });
    });
  }
  return out;
}
