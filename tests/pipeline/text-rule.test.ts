import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../domain/deployed.js';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { parseParams } from '../../protocol/schema.js';
import { head } from '../helpers/calls.js';
import { setAt } from '../helpers/hostile.js';
import type { TestServer } from '../helpers/harness.js';
import { defOf, deployedSchemas, walkSchema, type SchemaPath } from '../helpers/schema-walk.js';
import { connectInMemory, mcpHttpTestServer, toolError, type Connected } from '../mcp/fixtures.js';

/**
 * The text rule (well-formed Unicode, no NUL) holds for every string a caller sends: a NUL in
 * member.getEditorOptions.q or messaging.channels.query (raw z.string()) and a lone surrogate in a z.unknown()
 * field sent with an idempotency key (hashed before anything refused it) answered 500. parseParams now applies
 * the rule to every string and key of the params before zod, so no contract's choice of builder can skip it.
 */

const RULE = 'must be well-formed Unicode text without NUL characters';
const BAD = ['a\u0000b', 'x\ud800', '\udfff'];

/** Every string leaf (and record key) of every deployed contract, at the path a value puts it. */
const leaves: { where: string; path: SchemaPath; schema: z.core.$ZodType; key: boolean }[] = [];
for (const [where, schema] of deployedSchemas()) {
  walkSchema(schema, (node, path) => {
    const def = defOf(node);
    if (def.type === 'string') leaves.push({ where, path, schema, key: false });
    if (def.type === 'record') leaves.push({ where, path, schema, key: true });
  });
}

const exampleOf = (where: string): unknown =>
  where.startsWith('GET ') ? (READ_HANDLERS.get(where.slice(4))?.contract.example ?? {}) : (METHOD_HANDLERS.get(where)?.contract.example ?? {});

const messageOf = (schema: z.core.$ZodType, value: unknown, root?: string) => {
  try {
    parseParams(schema as z.ZodType, value, root);
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('every string leaf of every deployed contract refuses NUL and lone surrogates', () => {
  it('the walk reaches them', () => {
    expect(leaves.filter((l) => !l.key).length).toBeGreaterThan(500);
    expect(leaves.map((l) => `${l.where} ${l.path.join('.')}`)).toEqual(
      expect.arrayContaining(['member.getEditorOptions q', 'messaging.channels query', 'files.create name']),
    );
  });

  it.each([...new Set(leaves.map((l) => l.where))].sort())('%s', (where) => {
    const example = exampleOf(where);
    const root = where.startsWith('GET ') ? 'query' : 'params';
    for (const { path, schema, key } of leaves.filter((l) => l.where === where)) {
      for (const bad of BAD) {
        // A bad key: inside the record at this path; a bad value: at the leaf itself.
        const value = key ? setAt(example, [...path, bad], 'x') : setAt(example, path, bad);
        const at = key ? [...path, bad.replaceAll('\u0000', '\ufffd').toWellFormed()].join('.') : path.join('.') || root;
        expect(messageOf(schema, value, root), `${where} ${at}`).toBe(`${at}: ${key ? `field name ${RULE}` : RULE}`);
      }
    }
  });
});

describe('the three inputs that answered 500', () => {
  let s: TestServer;
  let mcp: Connected;
  beforeAll(async () => {
    s = await mcpHttpTestServer();
    mcp = await connectInMemory(s.runtime, s.org.adminKey, { toolsets: 'all' });
  });
  afterAll(async () => {
    await mcp.close();
    await s.close();
  });

  it('a NUL in member.getEditorOptions.q and messaging.channels.query: 400 naming the field', async () => {
    for (const [method, field] of [
      ['member.getEditorOptions', 'q'],
      ['messaging.channels', 'query'],
    ]) {
      for (const bad of BAD) {
        const res = await s.client.rpc(method, { [field]: bad });
        expect(res.status, res.raw).toBe(400);
        expect(res.body.error).toEqual({ code: 'BAD_REQUEST', message: `${field}: ${RULE}` });
      }
    }
  });

  it('a lone surrogate inside a z.unknown() field with an idempotency key: 400 before any hashing, over HTTP and MCP', async () => {
    const seq = await head(s.client);
    const params = { kind: 'doc', name: 'Plan', content: { markdown: 'a\ud800' } };
    const res = await s.client.rpc('files.create', params, { idem: 'lone-surrogate-1' });
    expect(res.status, res.raw).toBe(400);
    expect(res.body.error).toEqual({ code: 'BAD_REQUEST', message: `content.markdown: ${RULE}` });
    // The MCP derives an idempotency key from the params (canonical JSON, which throws on a lone surrogate).
    expect(toolError(await mcp.client.callTool({ name: META_TOOLS.write, arguments: { name: 'files.create', params } }))).toEqual({
      code: 'BAD_REQUEST',
      message: `content.markdown: ${RULE}`,
    });
    // A key of a z.unknown() value is held to the rule too.
    const key = await s.client.rpc('files.create', { ...params, content: { ['bad\u0000key']: 'x' } }, { idem: 'lone-surrogate-2' });
    expect(key.body.error).toEqual({ code: 'BAD_REQUEST', message: `content.bad\ufffdkey: field name ${RULE}` });
    expect(await head(s.client)).toBe(seq);
  });
});
