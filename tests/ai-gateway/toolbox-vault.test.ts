import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { AnswererRegistry, NEVER_READ, type Answerer } from '../../ai-gateway/answerer.js';
import { createToolbox } from '../../ai-gateway/toolbox.js';
import { ToolError } from '../../ai-gateway/types.js';
import { DEPLOYED } from '../../domain/deployed.js';

/*
 * The AI gateway's toolboxes never read the vault (credential.*) or call a remote tool (integration.invokeTool):
 * no deployed answerer offers them, an answerer that did could not be registered or given a toolbox, and a model
 * asking for one is told it is not a tool.
 */

const answerer = (names: string[]): Answerer => ({
  method: 'test.ask',
  tools: names.map((name) => ({ name, description: 'a read', params: z.object({}) })),
  grounding: {},
  local: () => Promise.reject(new Error('not called')),
  instructions: () => '',
});

const env = { readAs: () => Promise.resolve({}), q: { query: () => Promise.resolve([]) } as never, orgId: 'org_x', scopes: new Set(['org.read']) };

describe('the AI toolbox and the vault', () => {
  it('no deployed answerer reads credential.* or integration.invokeTool', () => {
    const reads = DEPLOYED.answerers.flatMap((a) => a.tools.map((t) => t.name));
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.filter((n) => NEVER_READ.test(n))).toEqual([]);
    expect(NEVER_READ.test('credential.list')).toBe(true);
    expect(NEVER_READ.test('integration.invokeTool')).toBe(true);
    expect(NEVER_READ.test('integration.list')).toBe(false);
  });

  it('an answerer listing them is refused at registration and by the toolbox', () => {
    for (const name of ['credential.list', 'credential.lease', 'integration.invokeTool']) {
      expect(() => new AnswererRegistry([answerer(['books.invoices', name])])).toThrow(/may not read/);
      expect(() => createToolbox(env, answerer([name]))).toThrow(/may not read/);
    }
  });

  it('a model asking for one is told it is not a tool', async () => {
    const tb = createToolbox(env, answerer(['books.invoices']));
    await expect(tb.call('credential.lease', { name: 'x' })).rejects.toThrow(ToolError);
    await expect(tb.call('integration.invokeTool', {})).rejects.toThrow(/unknown tool/);
  });
});
