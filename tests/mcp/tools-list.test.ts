import { AREA_TOOLSET_NAMES } from '../../protocol/methods/areas.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { METHODS, READS, STATIC_READS } from '../../protocol/registry.js';
import { buildCatalog, isAdditive, modelVisible, toolNameFor } from '../../mcp/catalog.js';
import { DESKS } from '../../mcp/desks.js';
import { META_TOOL_NAMES, META_TOOLS } from '../../mcp/meta-tools.js';
import { createMcpServer } from '../../mcp/server.js';
import { parseSelection, requireDeployed, SelectionError } from '../../mcp/toolsets.js';
import type { TestServer } from '../helpers/harness.js';
import { connectInMemory, mcpTestServer } from './fixtures.js';

/*
 * What a session lists: generated from the deployed handlers, filtered by the key's scopes, the toolsets,
 * read-only mode and include/exclude lists; three meta-tools (invoke split in two) always there.
 */

/**
 * tools/list budgets in model-visible tokens: characters / 4 of each tool's name, description and inputSchema
 * (what a model API puts in context; titles, annotations and output schemas stay with the client; an app-only tool
 * stays with the app), with an admin
 * key (every scope, so the largest list). Documented in docs/mcp.md ("tools/list budget").
 */
export const DEFAULT_DESK_TOKEN_BUDGET = 8_000;
export const DESK_TOKEN_BUDGET = 10_000;

let s: TestServer;
let agentKey: string;
let readerKey: string;
let boardOnlyKey: string;

async function list(
  key: string,
  selection: Record<string, string> = {},
  opts: { humanDecisions?: boolean } = {},
): Promise<{ tools: Tool[]; chars: number; modelTokens: number }> {
  const c = await connectInMemory(s.runtime, key, selection, {}, opts);
  try {
    const result = await c.client.listTools();
    // An app-only tool (MCP Apps visibility ["app"]) is never in the model's list: hosts keep it for the app's page.
    const visible = result.tools.filter(modelVisible).map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    return { tools: result.tools, chars: JSON.stringify(result).length, modelTokens: Math.ceil(JSON.stringify(visible).length / 4) };
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
  it('default (the core desk): who you are, your approvals and the meta-tools, nothing else', async () => {
    const { tools } = await list(s.org.adminKey);
    const listed = names(tools);
    expect(listed).toEqual([
      'approval_get',
      'approval_list',
      'approval_wait',
      'org_whoami',
      META_TOOLS.search,
      META_TOOLS.describe,
      META_TOOLS.read,
      META_TOOLS.write,
    ]);
    for (const name of listed) expect(name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
    // A desk lists its toolsets, its single tools and the core; payroll reaches the pay-run list through books.reports.
    const payroll = names((await list(s.org.adminKey, { toolsets: 'payroll' })).tools);
    expect(payroll).toEqual(expect.arrayContaining(['books_payrollSign', 'books_payrollDraft', 'books_reports', 'books_ask', 'approval_wait', 'org_whoami']));
    expect(payroll).not.toContain('books_invoiceDraft');
    expect(payroll).not.toContain('board_createTask');
    const work = names((await list(s.org.adminKey, { toolsets: 'work' })).tools);
    expect(work).toEqual(expect.arrayContaining(['board_createTask', 'board_claim', 'approval_get']));
  });

  it('a desk or toolset with nothing deployed here is refused, naming the desks that have tools', async () => {
    // Every family is deployed here: a catalog without the artifact family stands for a server without it.
    const handlers = new Map([...s.runtime.pipeline.handlers].filter(([name]) => !name.startsWith('artifact.')));
    const without = buildCatalog(handlers, s.runtime.pipeline.reads);
    for (const desk of ['artifacts', 'artifact']) {
      const make = () => requireDeployed(parseSelection({ toolsets: desk }, META_TOOL_NAMES), without);
      expect(make).toThrow(SelectionError);
      expect(make).toThrow(new RegExp(`"${desk}" has nothing deployed on this server yet.*desks with tools here: core, receivables`));
    }
    const principal = await s.runtime.pipeline.principalFor(s.org.adminKey);
    const artifacts = () =>
      createMcpServer({
        pipeline: s.runtime.pipeline,
        apiKey: s.org.adminKey,
        principal,
        selection: parseSelection({ toolsets: 'artifacts' }, META_TOOL_NAMES),
      });
    expect(artifacts).not.toThrow();
    // Every desk's toolsets exist: families of the registry, or family areas.
    for (const [name, desk] of Object.entries(DESKS)) {
      for (const t of desk.toolsets) expect(AREA_TOOLSET_NAMES.includes(t) || [...METHODS.values()].some((m) => m.family === t), `${name}: ${t}`).toBe(true);
    }
  });

  it('every tool carries annotations from the registry flags, an object inputSchema with descriptions, and an outputSchema', async () => {
    const { tools } = await list(s.org.adminKey, { toolsets: 'all' });
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type).toBe('object');
      expect(tool.description?.length).toBeGreaterThan(10);
      expect(tool.title, tool.name).toMatch(/^[A-Z]/);
      expect(tool.annotations?.title).toBe(tool.title);
      const method = [...METHODS.values()].find((m) => toolNameFor(m.name) === tool.name);
      if (method) {
        expect(tool.description).toContain(`[${method.scope}; ${method.flags.join(',')}]`);
        // An R method that writes or acts outside the server (contract writes, openWorld) is a write to MCP.
        const contract = s.runtime.pipeline.handlers.get(method.name)?.contract;
        const readOnly = method.readOnly && !contract?.writes && !contract?.openWorld;
        expect(tool.annotations?.readOnlyHint, tool.name).toBe(readOnly);
        expect(tool.annotations?.openWorldHint, tool.name).toBe(!!contract?.openWorld);
        expect(tool.annotations?.idempotentHint, tool.name).toBe(method.idempotent || !!contract?.writes);
        expect(tool.annotations?.destructiveHint, tool.name).toBe(readOnly ? false : !isAdditive(method.name));
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
      const read = [...READS.keys(), ...STATIC_READS.keys()].find((p) => toolNameFor(p) === tool.name);
      if (read) expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      if (!method && !read) expect(META_TOOL_NAMES).toContain(tool.name);
    }
    const hint = (n: string) => tools.find((t) => t.name === n)!.annotations?.destructiveHint;
    expect([hint('board_createTask'), hint('board_addTaskComment'), hint('books_invoiceDraft'), hint('books_journalPost')]).toEqual([
      false,
      false,
      false,
      false,
    ]);
    expect([hint('board_deleteWorkstream'), hint('books_invoiceVoid'), hint('books_payrollSign'), hint('board_updateTask'), hint(META_TOOLS.write)]).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(tools.find((t) => t.name === 'books_payrollSign')!.title).toBe('Books: payroll sign');
    expect(tools.find((t) => t.name === 'org_whoami')!.title).toBe('Org: whoami');
    const createTask = tools.find((t) => t.name === 'board_createTask')!;
    expect(createTask.inputSchema.required).toEqual(['title']);
    expect(createTask.inputSchema.additionalProperties).toBe(false);
    const payroll = tools.find((t) => t.name === 'books_payrollSign')!;
    expect(payroll.description).toMatch(/Signature act/);
    expect(payroll.description).toMatch(/Signature act: holds \(approval_required\) for a human; once approved, call again with approvalId\./);
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
    // A human's decision is never an agent's tool, whoever's key the session holds, unless the operator opts in.
    expect(admin).not.toContain('approval_resolve');
    expect(agent).not.toContain('approval_resolve'); // approval.decide
    expect(names((await list(s.org.adminKey, { toolsets: 'all' }, { humanDecisions: true })).tools)).toContain('approval_resolve');
    expect(names((await list(agentKey, { toolsets: 'all' }, { humanDecisions: true })).tools)).not.toContain('approval_resolve');
    expect(agent).not.toContain('settings_mintApiKey'); // admin
    expect(agent).toContain('board_createTask');
    expect(boardOnly).toContain('board_context');
    expect(boardOnly).toContain('board_taskComments');
    expect(boardOnly).not.toContain('board_createTask');
    expect(boardOnly).not.toContain('approval_wait');
    // No write scope, no invoke_write.
    expect(boardOnly).not.toContain(META_TOOLS.write);
    // A read scope may carry M methods (directory.read: directory.ask and exportVcard append their event), so a
    // reader key lists invoke_write once those are deployed.
    expect(names((await list(readerKey, { toolsets: 'all' })).tools)).toContain(META_TOOLS.write);
    expect(agent).toContain(META_TOOLS.write);
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
    // Every deployed tool but approval_resolve (a human's decision), the reads that answer files (vCard, avatar) and
    // the methods that carry a secret value (contract notOverMcp: credential.put and lease, two settings secret methods).
    const fileReads = [...s.runtime.pipeline.reads.values()].filter((r) => r.contract.media).length;
    expect(fileReads).toBe(2);
    const withheld = [...s.runtime.pipeline.handlers.values()].filter((h) => h.contract.notOverMcp).length;
    expect(withheld).toBe(4);
    expect(all).not.toContain('credential_lease');
    expect(all.length).toBe(s.runtime.pipeline.handlers.size - withheld + s.runtime.pipeline.reads.size - fileReads + META_TOOL_NAMES.length - 1);
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

  it(`model-visible tokens: the default desk within ${DEFAULT_DESK_TOKEN_BUDGET}, every desk with tools here within ${DESK_TOKEN_BUDGET}; all measured`, async () => {
    const rows: string[] = [];
    const measure = async (label: string, selection: Record<string, string>, budget?: number) => {
      const m = await list(s.org.adminKey, selection);
      rows.push(`| ${label} | ${m.tools.length} | ${m.modelTokens.toLocaleString('en')} | ${Math.ceil(m.chars / 4).toLocaleString('en')} |`);
      if (budget !== undefined) expect(m.modelTokens, `${label}: ${m.modelTokens} model-visible tokens`).toBeLessThanOrEqual(budget);
      return m;
    };
    await measure('core (default)', {}, DEFAULT_DESK_TOKEN_BUDGET);
    const principal = await s.runtime.pipeline.principalFor(s.org.adminKey);
    for (const desk of Object.keys(DESKS).filter((d) => d !== 'core')) {
      const selection = parseSelection({ toolsets: desk }, META_TOOL_NAMES);
      try {
        createMcpServer({ pipeline: s.runtime.pipeline, apiKey: s.org.adminKey, principal, selection });
      } catch {
        rows.push(`| ${desk} | not deployed | | |`);
        continue;
      }
      await measure(desk, { toolsets: desk }, DESK_TOKEN_BUDGET);
    }
    const agent = await list(agentKey);
    await measure('all (not a default)', { toolsets: 'all' });
    console.info(`[mcp tools/list] | selection | tools | model-visible tokens | tools/list tokens |\n${rows.join('\n')}`);
    const core = await list(s.org.adminKey);
    expect(agent.modelTokens).toBeLessThanOrEqual(core.modelTokens);
  });
});
