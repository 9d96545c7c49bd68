import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { METHODS, READS } from '../../protocol/registry.js';
import { toolNameFor } from '../../mcp/catalog.js';
import { META_TOOL_NAMES, META_TOOLS } from '../../mcp/meta-tools.js';
import { DEFAULT_TOOLSETS, parseSelection, SelectionError } from '../../mcp/toolsets.js';
import type { TestServer } from '../helpers/harness.js';
import { connectInMemory, mcpTestServer } from './fixtures.js';

/*
 * What a session lists: generated from the deployed handlers, filtered by the key's scopes, the toolsets,
 * read-only mode and include/exclude lists; three meta-tools (invoke split in two) always there.
 */

/**
 * tools/list budgets, in tokens approximated as characters / 4 of the tools/list result JSON, with an admin key
 * (every scope, so the largest list). Documented in README ("tools/list budget"). The default toolsets (books,
 * board, approval: 72 tools) measure about 24,700 tokens, over the 15,000 aimed at (see README for why);
 * one books area with board
 * and approval stays under the aim.
 */
export const DEFAULT_SET_TOKEN_BUDGET = 26_000;
export const AREA_SET_TOKEN_BUDGET = 15_000;
export const READ_ONLY_TOKEN_BUDGET = 6_000;

let s: TestServer;
let agentKey: string;
let readerKey: string;
let boardOnlyKey: string;

async function list(key: string, selection: Record<string, string> = {}): Promise<{ tools: Tool[]; chars: number }> {
  const c = await connectInMemory(s.runtime, key, selection);
  try {
    const result = await c.client.listTools();
    return { tools: result.tools, chars: JSON.stringify(result).length };
  } finally {
    await c.close();
  }
}

const names = (tools: Tool[]) => tools.map((t) => t.name);

beforeAll(async () => {
  s = await mcpTestServer();
  agentKey = (await s.client.mint({ tier: 'agent' }, 'agent')).apiKey;
  readerKey = (await s.client.mint({ tier: 'reader' }, 'reader')).apiKey;
  boardOnlyKey = (await s.client.mint({ scopes: ['org.read', 'board.read'] }, 'board reader')).apiKey;
});
afterAll(() => s.close());

describe('tools/list', () => {
  it('default set: books, board and approval tools plus the meta-tools, generated from the deployed handlers', async () => {
    const { tools } = await list(s.org.adminKey);
    const listed = names(tools);
    const deployed = [...s.runtime.pipeline.handlers.keys()].filter((m) => (DEFAULT_TOOLSETS as readonly string[]).includes(METHODS.get(m)!.family));
    expect(deployed.length).toBeGreaterThan(5);
    for (const m of deployed) expect(listed).toContain(toolNameFor(m));
    expect(listed).toContain('books_payrollSign');
    expect(listed).toContain('approval_wait');
    expect(listed).not.toContain('org_list');
    expect(listed).not.toContain('settings_mintApiKey');
    expect(listed.slice(-4)).toEqual([META_TOOLS.search, META_TOOLS.describe, META_TOOLS.read, META_TOOLS.write]);
    expect(new Set(listed).size).toBe(listed.length);
    for (const name of listed) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it('every tool carries annotations from the registry flags, an object inputSchema with descriptions, and an outputSchema', async () => {
    const { tools } = await list(s.org.adminKey, { toolsets: 'all' });
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(10);
      const method = [...METHODS.values()].find((m) => toolNameFor(m.name) === tool.name);
      if (method) {
        expect(tool.description).toContain(`[${method.scope}; ${method.flags.join(',')}]`);
        expect(tool.annotations?.readOnlyHint).toBe(method.readOnly);
        expect(tool.annotations?.idempotentHint).toBe(method.idempotent);
        if (method.readOnly) expect(tool.annotations?.destructiveHint).toBe(false);
        // One object at the top, never anyOf/oneOf/allOf (Claude's and OpenAI's tool APIs refuse those).
        for (const combinator of ['anyOf', 'oneOf', 'allOf']) expect(tool.inputSchema, tool.name).not.toHaveProperty(combinator);
        const props = tool.inputSchema.properties as Record<string, { description?: string }>;
        for (const [field, schema] of Object.entries(props ?? {})) {
          expect(schema.description, `${tool.name}.${field} has a description`).toBeTruthy();
        }
        // Mutating idempotent tools take the optional key; nothing else does.
        expect('idempotencyKey' in (props ?? {})).toBe(method.mutating && method.idempotent);
        if (method.mutating && method.idempotent) {
          expect(props.idempotencyKey.description).toMatch(/reuse the same key when you retry/i);
          expect(tool.inputSchema.required ?? []).not.toContain('idempotencyKey');
        }
      }
      const read = [...READS.keys(), 'org/whoami'].find((p) => toolNameFor(p) === tool.name);
      if (read) expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      if (!method && !read) expect(META_TOOL_NAMES).toContain(tool.name);
    }
    const createTask = tools.find((t) => t.name === 'board_createTask')!;
    expect(createTask.inputSchema.required).toEqual(['title']);
    expect(createTask.inputSchema.additionalProperties).toBe(false);
    const payroll = tools.find((t) => t.name === 'books_payrollSign')!;
    expect(payroll.description).toMatch(/Signature act/);
    expect(payroll.description).toMatch(/returns a hold \(status approval_required\)/);
    expect(JSON.stringify(payroll.outputSchema)).toContain('approval_required');
    // A union of params (books.reports by report) is one object: the discriminator an enum, each value described.
    const reports = tools.find((t) => t.name === 'books_reports')!.inputSchema as any;
    expect(reports.required).toEqual(['report']);
    expect(reports.properties.report.enum).toEqual(expect.arrayContaining(['trialBalance', 'profitAndLoss', 'basSummary']));
    expect(reports.properties.report.description).toMatch(/profitAndLoss: Income less expenses/);
    expect(Object.keys(reports.properties)).toEqual(expect.arrayContaining(['asOf', 'from', 'to']));
    const advance = tools.find((t) => t.name === 'books_onboardingAdvance')!.inputSchema as any;
    expect(advance.properties.step.enum).toEqual(['tfn', 'super', 'bank', 'contract']);
    expect(advance.properties.data.anyOf).toHaveLength(4);
    expect(advance.required).toEqual(expect.arrayContaining(['id', 'step', 'data']));
    expect(advance.required).not.toContain('approvalId');
  });

  it('tools/list descriptions are the summary’s opening; describe_method gives the whole of it', async () => {
    const { tools } = await list(s.org.adminKey, { toolsets: 'all' });
    const match = tools.find((t) => t.name === 'books_matchAccept')!;
    const full = s.runtime.pipeline.handlers.get('books.matchAccept')!.contract.summary;
    expect(full.length).toBeGreaterThan(300);
    expect(match.description!.length).toBeLessThan(260);
    expect(match.description).toMatch(/ \[books\.write; M,I\]$/);
    expect(full.startsWith(match.description!.split(' …')[0].replace(/ \[books.*$/, ''))).toBe(true);
    // Parentheses and dotted names do not end a sentence.
    const send = tools.find((t) => t.name === 'books_invoiceSend')!;
    expect(send.description).toMatch(/^Approve and send a draft: DRAFT -> AUTHORISED, numbered INV-…, issued today, due after its dueDays\. /);
  });

  it('books areas are toolsets of their own; books lists every area', async () => {
    const payables = names((await list(s.org.adminKey, { toolsets: 'books.payables' })).tools).filter((n) => n.startsWith('books_'));
    expect(payables).toEqual(expect.arrayContaining(['books_billCapture', 'books_billApprove', 'books_bills', 'books_billScheduleRun']));
    expect(payables).not.toContain('books_invoiceDraft');
    const two = names((await list(s.org.adminKey, { toolsets: 'books.payroll,books.tax' })).tools).filter((n) => n.startsWith('books_'));
    expect(two).toEqual(expect.arrayContaining(['books_payrollSign', 'books_taxSignLodge']));
    expect(two).not.toContain('books_billCapture');
    const areas = ['reconciliation', 'receivables', 'tax', 'assets', 'payables', 'payroll', 'expenses', 'ledger'].map((a) => `books.${a}`);
    const union = new Set<string>();
    for (const area of areas) for (const n of names((await list(s.org.adminKey, { toolsets: area })).tools)) if (n.startsWith('books_')) union.add(n);
    const whole = names((await list(s.org.adminKey, { toolsets: 'books' })).tools).filter((n) => n.startsWith('books_'));
    expect([...union].sort()).toEqual([...whole].sort());
    expect(() => parseSelection({ toolsets: 'books.payable' }, META_TOOL_NAMES)).toThrow(/unknown toolset "books.payable".*books\.payables/);
  });

  it('lists only tools the key’s scopes allow', async () => {
    const admin = names((await list(s.org.adminKey, { toolsets: 'all' })).tools);
    const agent = names((await list(agentKey, { toolsets: 'all' })).tools);
    const boardOnly = names((await list(boardOnlyKey, { toolsets: 'all' })).tools);
    expect(admin).toContain('approval_resolve');
    expect(agent).not.toContain('approval_resolve'); // approval.decide
    expect(agent).not.toContain('settings_mintApiKey'); // admin
    expect(agent).toContain('board_createTask');
    expect(boardOnly).toContain('board_context');
    expect(boardOnly).toContain('board_taskComments');
    expect(boardOnly).not.toContain('board_createTask');
    expect(boardOnly).not.toContain('approval_wait');
    for (const name of boardOnly.filter((n) => !META_TOOL_NAMES.includes(n))) {
      const target = [...METHODS.keys(), ...READS.keys(), 'org/whoami'].find((t) => toolNameFor(t) === name)!;
      const scope = METHODS.get(target)?.scope ?? READS.get(target)?.scope ?? 'org.read';
      expect(['org.read', 'board.read']).toContain(scope);
    }
  });

  it('toolsets choose families; all lists every family; none leaves the meta-tools (and approval_wait)', async () => {
    const board = names((await list(s.org.adminKey, { toolsets: 'board' })).tools);
    expect(board.filter((n) => !META_TOOL_NAMES.includes(n) && n !== 'approval_wait').every((n) => n.startsWith('board_'))).toBe(true);
    const orgSet = names((await list(s.org.adminKey, { toolsets: 'org,settings' })).tools);
    expect(orgSet).toEqual(expect.arrayContaining(['org_list', 'org_whoami', 'events', 'snapshot', 'settings_listApiKeys']));
    expect(orgSet).not.toContain('board_createTask');
    const all = names((await list(s.org.adminKey, { toolsets: 'all' })).tools);
    expect(all.length).toBe(s.runtime.pipeline.handlers.size + s.runtime.pipeline.reads.size + META_TOOL_NAMES.length);
    const none = names((await list(s.org.adminKey, { toolsets: 'none' })).tools);
    expect(none).toEqual(['approval_wait', ...META_TOOL_NAMES]);
  });

  it('read-only mode lists only R tools and drops invoke_write', async () => {
    const { tools } = await list(s.org.adminKey, { readOnly: 'true', toolsets: 'all' });
    expect(tools.length).toBeGreaterThan(5);
    for (const t of tools) expect(t.annotations?.readOnlyHint).toBe(true);
    expect(names(tools)).not.toContain(META_TOOLS.write);
    expect(names(tools)).toEqual(expect.arrayContaining(['board_context', 'approval_get', META_TOOLS.search, META_TOOLS.describe, META_TOOLS.read]));
  });

  it('include adds single tools, exclude removes them (method or tool names, meta-tools too)', async () => {
    const listed = names(
      (await list(s.org.adminKey, { toolsets: 'board', include: 'org.list,settings_listApiKeys', exclude: 'board_deleteWorkstream,invoke_write' })).tools,
    );
    expect(listed).toEqual(expect.arrayContaining(['org_list', 'settings_listApiKeys', 'board_createTask']));
    expect(listed).not.toContain('board_deleteWorkstream');
    expect(listed).not.toContain(META_TOOLS.write);
    // Include does not bypass scopes.
    expect(names((await list(readerKey, { include: 'settings_listApiKeys' })).tools)).not.toContain('settings_listApiKeys');
  });

  it('refuses unknown toolsets and tool names loudly', () => {
    expect(() => parseSelection({ toolsets: 'board,bookz' }, META_TOOL_NAMES)).toThrow(SelectionError);
    expect(() => parseSelection({ toolsets: 'board,bookz' }, META_TOOL_NAMES)).toThrow(/unknown toolset "bookz"/);
    expect(() => parseSelection({ exclude: 'board_nope' }, META_TOOL_NAMES)).toThrow(/unknown tool "board_nope"/);
    expect(() => parseSelection({ readOnly: 'maybe' }, META_TOOL_NAMES)).toThrow(/read-only/);
  });

  it(`tools/list of the default set stays within ${DEFAULT_SET_TOKEN_BUDGET} tokens (chars / 4), one books area with board and approval within ${AREA_SET_TOKEN_BUDGET}, read-only within ${READ_ONLY_TOKEN_BUDGET}`, async () => {
    const admin = await list(s.org.adminKey);
    const agent = await list(agentKey);
    const readOnly = await list(s.org.adminKey, { readOnly: 'true' });
    const area = await list(s.org.adminKey, { toolsets: 'books.payroll,board,approval' });
    const tokens = (chars: number) => Math.ceil(chars / 4);
    const report =
      `default set: ${admin.tools.length} tools, ${tokens(admin.chars)} tokens (admin), ${tokens(agent.chars)} (agent); ` +
      `books.payroll,board,approval: ${area.tools.length} tools, ${tokens(area.chars)} tokens; read-only: ${readOnly.tools.length} tools, ${tokens(readOnly.chars)} tokens`;
    console.info(`[mcp tools/list] ${report}`);
    expect(tokens(admin.chars), report).toBeLessThanOrEqual(DEFAULT_SET_TOKEN_BUDGET);
    expect(tokens(agent.chars)).toBeLessThanOrEqual(tokens(admin.chars));
    expect(tokens(area.chars), report).toBeLessThanOrEqual(AREA_SET_TOKEN_BUDGET);
    expect(tokens(readOnly.chars), report).toBeLessThanOrEqual(READ_ONLY_TOKEN_BUDGET);
  });
});
