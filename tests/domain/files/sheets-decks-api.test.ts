import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { connectInMemory, structured, toolError } from '../../mcp/fixtures.js';
import { ok, refused } from '../../helpers/calls.js';

/*
 * Sheets and decks through the deployed API: made by files.create with content, read and written over HTTP and over
 * the sheets and decks MCP desks, exported, searched, and shown to a guest as the share page renders them.
 */

describe('sheets through the API and MCP', () => {
  it('files.create makes a sheet whose =SUM reads 6; a write recalculates; a formula is kept unless overwriteFormulas; the agent works it over MCP', async ({
    drive: o,
  }) => {
    const { file } = await ok(
      o.s,
      'files.create',
      { kind: 'sheet', name: 'Budget 2026', content: { tabs: [{ title: 'Costs', cells: { A1: '1', A2: '2', A3: '3', A4: '=SUM(A1:A3)', B1: 'Rent' } }] } },
      o.mia.key,
    );
    expect(file).toMatchObject({ kind: 'sheet', revision: 1 });
    const read = await ok(o.s, 'files.sheetRead', { fileId: file.id, range: 'A4' }, o.mia.key);
    expect(read.cells).toEqual([{ a1: 'A4', input: '=SUM(A1:A3)', value: 6, error: null }]);

    const write = await ok(o.s, 'files.sheetWriteCells', { fileId: file.id, baseRevision: read.head, cells: [{ a1: 'A2', input: '20' }] }, o.mia.key);
    expect(write.recalculated).toContainEqual(expect.objectContaining({ a1: 'A4', value: 24, error: null }));
    await refused(o.s, 'files.sheetWriteCells', { fileId: file.id, cells: [{ a1: 'A4', input: '0' }] }, 'CONFLICT', { key: o.mia.key });
    await refused(o.s, 'files.sheetWriteCells', { fileId: file.id, cells: [{ a1: 'A0', input: '1' }] }, 'BAD_REQUEST', { key: o.mia.key });
    await refused(o.s, 'files.sheetRead', { fileId: 'fil_0000000000000000' }, 'NOT_FOUND', { key: o.mia.key });

    const a = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'sheets' });
    try {
      const tools = (await a.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['files_sheetRead', 'files_sheetWriteCells', 'files_sheetTabOp', 'files_create']));
      const sheet = structured(await a.client.callTool({ name: 'files_create', arguments: { kind: 'sheet', name: 'Agent sheet' } })).file;
      const wrote = structured(
        await a.client.callTool({
          name: 'files_sheetWriteCells',
          arguments: {
            fileId: sheet.id,
            cells: [
              { a1: 'B1', input: '10' },
              { a1: 'B2', input: '=B1/0' },
            ],
          },
        }),
      );
      expect(wrote.errors).toContainEqual(expect.objectContaining({ a1: 'B2', error: '#DIV/0!' }));
      const bad = toolError(await a.client.callTool({ name: 'files_sheetWriteCells', arguments: { fileId: sheet.id, cells: [{ a1: 'ZZZZ1', input: '1' }] } }));
      expect(bad).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^cells\.0\.a1: /) });
    } finally {
      await a.close();
    }

    const exp = await ok(o.s, 'files.exportRequest', { fileId: file.id, format: 'csv' }, o.mia.key);
    const csv = await o.s.app.inject({ method: 'GET', url: `${new URL(exp.url).pathname}${new URL(exp.url).search}` });
    expect(csv.body.split(/\r?\n/)[1]).toMatch(/^20\b/);
  });
});

describe('decks through the API and MCP', () => {
  it('files.create makes a deck from slides; deckRead shows them; the agent revises it over MCP on the head revision', async ({ drive: o }) => {
    const { file } = await ok(
      o.s,
      'files.create',
      {
        kind: 'deck',
        name: 'Pitch',
        content: {
          slides: [
            { title: 'Why now', body: 'The market **moved**.' },
            { title: 'Ask', notes: 'Say the number last.' },
          ],
        },
      },
      o.mia.key,
    );
    const read = await ok(o.s, 'files.deckRead', { fileId: file.id }, o.mia.key);
    expect(read.slides.map((s: any) => s.title)).toEqual(['Why now', 'Ask']);

    const a = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'decks' });
    try {
      const tools = (await a.client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(['files_deckRead', 'files_deckWriteSlides']));
      const deck = structured(await a.client.callTool({ name: 'files_create', arguments: { kind: 'deck', name: 'Agent deck' } })).file;
      const head = structured(await a.client.callTool({ name: 'files_deckRead', arguments: { fileId: deck.id } }));
      const revised = structured(
        await a.client.callTool({
          name: 'files_deckWriteSlides',
          arguments: { fileId: deck.id, baseRevision: head.revision, ops: [{ op: 'insert', slide: { title: 'Numbers' } }] },
        }),
      );
      expect(revised.revision).toBe(head.revision + 1);
    } finally {
      await a.close();
    }
  });
});
