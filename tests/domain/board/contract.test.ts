import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { METHODS } from '../../../protocol/registry.js';
import { board } from '../../../protocol/methods/board.js';
import { boardReadContracts } from '../../../protocol/reads/board.js';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../../domain/deployed.js';

/** The board contract: complete, strict, described, with valid examples. No database. */

const names = Object.keys(board);

/** A field's description, looking through optional/nullable/default wrappers (as JSON Schema output does). */
function describedAs(schema: z.ZodType): string | undefined {
  let current: any = schema;
  while (current) {
    if (current.description) return current.description;
    current = typeof current.unwrap === 'function' ? current.unwrap() : current.def?.innerType;
  }
  return undefined;
}

/** The top-level fields of a params/query schema (unwrapping refinements). */
function fieldsOf(schema: z.ZodType): Record<string, z.ZodType> {
  const shape = (schema as unknown as { shape?: Record<string, z.ZodType> }).shape;
  expect(shape, 'params is an object schema').toBeDefined();
  return shape!;
}

describe('board contract', () => {
  it('has exactly the 23 registry methods and both reads, deployed with these contracts', () => {
    const registry = [...METHODS.values()].filter((m) => m.family === 'board').map((m) => m.name.slice('board.'.length));
    expect(names.sort()).toEqual(registry.sort());
    for (const n of names) expect(METHOD_HANDLERS.get(`board.${n}`)?.contract).toBe(board[n as keyof typeof board]);
    for (const path of ['board.context', 'board.ready'] as const) expect(READ_HANDLERS.get(path)?.contract).toBe(boardReadContracts[path]);
  });

  it.each(names)('board.%s: summary, result schema, example that parses, every field described, strict', (n) => {
    const c = board[n as keyof typeof board];
    expect(c.summary.length).toBeGreaterThan(20);
    expect(c.summary.split(/(?<=\.)\s/).length).toBeLessThanOrEqual(3);
    expect(c.result).toBeDefined();
    expect(c.params.safeParse(c.example).error?.issues ?? []).toEqual([]);
    for (const [field, schema] of Object.entries(fieldsOf(c.params))) {
      expect(describedAs(schema), `${n}.${field} is described`).toBeTruthy();
    }
    const unknown = c.params.safeParse({ ...(c.example as object), notAField: 1 });
    expect(unknown.success).toBe(false);
    expect(unknown.error!.issues[0].code).toBe('unrecognized_keys');
  });

  it.each(Object.keys(boardReadContracts))('/%s: example parses, fields described, strict', (path) => {
    const c = boardReadContracts[path as keyof typeof boardReadContracts];
    expect(c.query.safeParse(c.example).success).toBe(true);
    for (const [field, schema] of Object.entries(fieldsOf(c.query))) {
      expect(describedAs(schema), `${path}.${field} is described`).toBeTruthy();
    }
    expect(c.query.safeParse({ ...c.example, notAField: 1 }).success).toBe(false);
  });

  it('ids in examples carry the right prefixes', () => {
    const text = JSON.stringify(Object.values(board).map((c) => c.example));
    for (const m of text.matchAll(/"(\w+Id|moveTasksTo)":"([a-z]+)_/g)) {
      const expected = { taskId: 'task', fromTaskId: 'task', toTaskId: 'task', workstreamId: 'ws', moveTasksTo: 'ws', attachmentId: 'att', parentId: 'task' }[
        m[1]
      ];
      expect(m[2], m[1]).toBe(expected);
    }
  });
});
