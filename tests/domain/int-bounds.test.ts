import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_HANDLERS, READ_HANDLERS } from '../../domain/deployed.js';
import { INT32_MAX, PARSE_CONTEXT, formatIssue } from '../../protocol/schema.js';
import { head, ok, refused } from '../helpers/calls.js';
import { newTask } from '../helpers/tasks.js';
import { expectError, expectFrame } from '../helpers/frames.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { setAt } from '../helpers/hostile.js';
import { intFields, type IntField } from '../helpers/schema-walk.js';
import type { z } from 'zod';

/*
 * Every integer field of every deployed method and read, sent past an integer column's range (2^31 and 1e15) in
 * the method's own example: a BAD_REQUEST naming the field, never a 5xx from the database. The bigint fields
 * tests/protocol/int-bounds.test.ts lists take 2^31 (any answer but a 5xx) and refuse 2^53.
 */

const HUGE = [INT32_MAX + 1, 1e15];

type Call = { field: IntField; params: unknown };

function contractOf(where: string): { schema: z.ZodType; example: unknown } {
  if (where.startsWith('GET ')) {
    const read = READ_HANDLERS.get(where.slice(4))!.contract;
    return { schema: read.query, example: read.example ?? {} };
  }
  const contract = METHOD_HANDLERS.get(where)!.contract;
  return { schema: contract.params, example: contract.example };
}

/**
 * The example with the field set to `value`, when the schema's first complaint is then that field's bound (else
 * null: the example does not reach it, as a field of another union option).
 */
function placed(field: IntField, value: number): Call | null {
  const { schema, example } = contractOf(field.where);
  const params = setAt(example ?? {}, field.path, value);
  const issue = schema.safeParse(params, PARSE_CONTEXT).error?.issues[0];
  if (issue?.code !== 'too_big' || !formatIssue(issue).startsWith(`${field.path.join('.')}: `)) return null;
  return { field, params };
}

const familyOf = (where: string) => where.replace(/^GET /, '').split(/[./]/)[0];
const fields = intFields();
const bounded = fields.filter((f) => f.max <= INT32_MAX);
const wide = fields.filter((f) => f.max > INT32_MAX);
const families = [...new Set(bounded.map((f) => familyOf(f.where)))].sort();

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s?.close());

async function call({ field, params }: Call) {
  if (!field.where.startsWith('GET ')) return s.client.rpc(field.where, params);
  // A read's path params (`artifacts/{id}`) come from the example, the rest is the query.
  const query = Object.fromEntries(Object.entries(params as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  const path = field.where.slice(4).replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = query[name];
    delete query[name];
    return encodeURIComponent(value);
  });
  return s.client.get(path, query);
}

describe('integer params past an integer column answer a named BAD_REQUEST', () => {
  it('the example of most methods reaches its integer fields', () => {
    const reached = bounded.filter((f) => placed(f, HUGE[0]));
    expect(reached.length / bounded.length).toBeGreaterThan(0.9);
    // Every family with an integer field has at least one sent.
    expect([...new Set(reached.map((f) => familyOf(f.where)))].sort()).toEqual(families);
  });

  it.each(families)('%s: 2^31 and 1e15 are BAD_REQUEST naming the field, appending nothing', async (family) => {
    const calls = bounded
      .filter((f) => familyOf(f.where) === family)
      .flatMap((f) => HUGE.map((v) => placed(f, v)))
      .filter((c): c is Call => c !== null);
    expect(calls.length).toBeGreaterThan(0);
    const before = await head(s);
    const wrong: string[] = [];
    for (const c of calls) {
      const at = `${c.field.name} = ${JSON.stringify(c.params).slice(0, 200)}`;
      const { message } = expectError(await call(c), 'BAD_REQUEST', undefined, at);
      // The field, and the bound it passed: `revision: must be at most 2147483647`.
      if (!message.startsWith(`${c.field.path.join('.')}: `) || !message.includes(String(c.field.max))) wrong.push(`${c.field.name}: ${message}`);
    }
    expect(wrong).toEqual([]);
    expect(await head(s)).toBe(before);
  });

  it('bigint fields take 2^31 (no 5xx) and refuse 2^53 naming the field', async () => {
    const sent = wide.map((f) => [placed(f, 2 ** 53), f] as const).filter(([c]) => c);
    expect(sent.length).toBeGreaterThan(wide.length / 2);
    for (const [c, f] of sent) {
      expectError(await call(c!), 'BAD_REQUEST', undefined, f.name);
      const fits = { field: f, params: setAt(contractOf(f.where).example ?? {}, f.path, INT32_MAX + 1) };
      const res = await call(fits);
      expect(res.status, `${f.name}: ${res.raw.slice(0, 300)}`).toBeLessThan(500);
      if (!f.where.startsWith('GET ')) expectFrame(res, f.name);
    }
  });
});

/** A cursor as the server writes one (domain/core/cursor.ts): base64url JSON. */
const cursorOf = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');

describe('an opaque cursor carrying an integer past an integer column', () => {
  it('is a BAD_REQUEST naming cursor, never a 5xx from the database', async () => {
    const taskId = (await newTask(s)).id;
    const { annotation } = await ok(s, 'annotation.create', { targetId: taskId, kind: 'comment', body: 'A thread to page.' });
    const channelId = (await ok(s, 'channel.create', { name: `int-bounds-${Date.now()}`, private: false, memberIds: [] })).channel.id;
    const { call: started } = await ok(s, 'calling.start', { channelId });
    for (const n of HUGE) {
      // annotation_replies.seq, decisions.number and call_transcript_lines.line_seq are integer columns.
      await refused(s, 'annotation.getThread', { annotationId: annotation.id, cursor: cursorOf([n]) }, 'BAD_REQUEST', { message: /^cursor: / });
      await refused(s, 'file.listComments', { targetId: taskId, cursor: cursorOf([n]) }, 'BAD_REQUEST', { message: /^cursor: / });
      await refused(s, 'calling.getTranscript', { callId: started.id, cursor: cursorOf([0, n]) }, 'BAD_REQUEST', { message: /^cursor: / });
      expectError(await s.client.get('decision.list', { cursor: cursorOf([n]) }), 'BAD_REQUEST', /^cursor: /);
    }
    // The largest that fits still pages (an empty page).
    expect((await ok(s, 'annotation.getThread', { annotationId: annotation.id, cursor: cursorOf([INT32_MAX]) })).comments).toEqual([]);
    expect((await ok(s, 'calling.getTranscript', { callId: started.id, cursor: cursorOf([0, INT32_MAX]) })).lines).toEqual([]);
    expect((await s.client.get('decision.list', { cursor: cursorOf([INT32_MAX]) })).status).toBe(200);
  });
});
