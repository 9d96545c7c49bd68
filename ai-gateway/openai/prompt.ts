import { z } from 'zod';
import type { ReadTool } from '../types.js';

/** OpenAI function names allow [a-zA-Z0-9_-] only: `books.invoices` is offered as `books_invoices`. */
export const functionName = (tool: string) => tool.replace(/\./g, '_');

/**
 * A read's params as a function's JSON Schema (zod 4's converter, as protocol/openapi.ts and mcp/ use it).
 * Functions take an object: a union of shapes (books.reports) is an object with one anyOf branch per shape.
 */
export function parametersOf(tool: ReadTool): Record<string, unknown> {
  const json = z.toJSONSchema(tool.params, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  if (json.type === undefined && (Array.isArray(json.anyOf) || Array.isArray(json.oneOf))) {
    const branches = (json.anyOf ?? json.oneOf) as unknown[];
    return { type: 'object', anyOf: branches };
  }
  return json;
}

export function toolSpecs(tools: readonly ReadTool[]) {
  return tools.map((t) => ({
    type: 'function' as const,
    function: { name: functionName(t.name), description: t.description, parameters: parametersOf(t) },
  }));
}
