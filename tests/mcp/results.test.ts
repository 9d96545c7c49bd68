import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { fitResult, MAX_RESULT_CHARS } from '../../mcp/results.js';
import type { TestServer } from '../helpers/harness.js';
import { connectInMemory, mcpTestServer, structured, type Connected } from './fixtures.js';

/*
 * A tool result stays under about 20,000 tokens: the longest list is cut to fit and the result says how to get
 * the rest. A page of the ledger moves nextCursor to the last event kept, so paging on loses nothing.
 */

describe('fitResult', () => {
  const items = (n: number) => Array.from({ length: n }, (_, i) => ({ seq: i + 1, text: 'x'.repeat(90) }));

  it('leaves a result that fits as it is', () => {
    const small = { events: items(3), nextCursor: 3 };
    expect(fitResult(small)).toBe(small);
  });

  it('cuts the longest list to fit and moves a seq cursor to the last item kept', () => {
    const page = { events: items(100), other: [1, 2], nextCursor: 100 };
    const cut = fitResult(page, 2_000);
    expect(JSON.stringify(cut).length).toBeLessThanOrEqual(2_000);
    const kept = (cut.events as { seq: number }[]).length;
    expect(kept).toBeGreaterThan(5);
    expect(kept).toBeLessThan(100);
    // As many as fit: one more would not.
    expect(JSON.stringify(fitResult(page, 2_000 + 110)).length).toBeGreaterThan(JSON.stringify(cut).length);
    expect(cut.other).toEqual([1, 2]);
    expect(cut.nextCursor).toBe(kept);
    expect(cut.truncated).toEqual({ field: 'events', kept, total: 100, hint: `cut to about 500 tokens: call again with cursor ${kept} for the rest` });
  });

  it('an opaque cursor is left alone and the hint says to ask for fewer', () => {
    const page = { approvals: items(100).map(({ text }) => ({ text })), nextCursor: 'opaque' };
    const cut = fitResult(page, 2_000);
    expect(cut.nextCursor).toBe('opaque');
    expect((cut.truncated as { hint: string }).hint).toMatch(/ask for at most \d+ \(limit\) or narrow the query/);
  });
});

describe('over MCP', () => {
  let s: TestServer;
  let admin: Connected;
  beforeAll(async () => {
    s = await mcpTestServer();
    admin = await connectInMemory(s.runtime, s.org.adminKey, { toolsets: 'org' });
    // Enough events that a page of 500 is over the limit.
    for (let i = 0; i < 520; i++) {
      const out = await s.runtime.pipeline.call({ method: 'board.createTask', params: { title: `task ${i}` }, apiKey: s.org.adminKey });
      expect(out.frame.ok).toBe(true);
    }
  });
  afterAll(async () => {
    await admin.close();
    await s.close();
  });

  it('a page of 500 events is cut under the limit; paging on from its nextCursor loses nothing and repeats nothing', async () => {
    const seen: number[] = [];
    let cursor = 0;
    let cuts = 0;
    for (;;) {
      const result = await admin.client.callTool({ name: 'events', arguments: { cursor, limit: 500 } });
      const text = (result.content as { text: string }[]).at(-1)!.text;
      expect(text.length).toBeLessThanOrEqual(MAX_RESULT_CHARS);
      const page = structured(result);
      if (page.truncated) cuts++;
      seen.push(...page.events.map((e: { seq: number }) => e.seq));
      if (page.nextCursor === cursor) break;
      cursor = page.nextCursor;
    }
    expect(cuts).toBeGreaterThan(0);
    const head = (await s.client.get('snapshot')).body.head.seq;
    expect(seen).toEqual(Array.from({ length: head }, (_, i) => i + 1));
  });

  it('describe_method and search_methods stay small by default', async () => {
    const describe = await admin.client.callTool({ name: META_TOOLS.describe, arguments: { name: 'books.reports' } });
    expect(JSON.stringify(describe.content).length).toBeLessThan(8_000);
  });
});
