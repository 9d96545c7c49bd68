import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openAiProvider, type OpenAiProviderOptions } from '../../ai-gateway/openai/index.js';
import { books } from '../../protocol/methods/books/index.js';
import type { Draft } from '../../ai-gateway/types.js';
import { askServer, lastAudit, sentInvoice, type AskServer } from './kit.js';
import { hang, reply, startMockModel, status, toolResults, type MockModel, type Script, type Step } from './mock-openai.js';

/*
 * The openai provider against a real HTTP server on loopback speaking chat completions (mock-openai.ts):
 * plain and streamed, tool calls, usage, 429 / 500 / hangs and retries, the step bound, the deadline, and
 * answers the grounding check must refuse.
 */
let s: AskServer;
let mock: MockModel;
let invoice: any;

beforeAll(async () => {
  mock = await startMockModel();
  s = await askServer();
  invoice = await sentInvoice(s.client);
});
afterAll(async () => {
  await s.close();
  await mock.close();
});

function useOpenAi(over: Partial<OpenAiProviderOptions> = {}) {
  s.provider.current = openAiProvider({
    baseURL: mock.url,
    apiKey: 'test-key',
    model: 'gpt-4o-mini',
    stream: false,
    maxRetries: 2,
    requestTimeoutMs: 5000,
    maxSteps: 4,
    ...over,
  });
}

const grounded = (inv: any): Extract<Draft, { kind: 'answer' }> => ({
  kind: 'answer',
  answer: `Harbour Cafe owes $1,100.00 on ${inv.number}, due ${inv.dueDate}.`,
  claims: [
    {
      text: `${inv.number} has $1,100.00 due.`,
      cites: [{ kind: 'record', id: inv.id }],
      figure: { value: inv.amountDueCents, unit: 'cents', op: 'value', field: 'amountDueCents' },
    },
  ],
});

/** The model reads the open invoices, then answers with what `answer` makes of the first one it was sent. */
function readThenAnswer(answer: (inv: any) => Draft | string): (Step | Script)[] {
  return [
    reply({ toolCalls: [{ id: 'call_1', name: 'books_invoices', arguments: { status: 'AUTHORISED' } }], usage: { prompt: 120, completion: 15 } }),
    (req) => {
      const inv = toolResults(req).at(-1).invoices[0];
      const a = answer(inv);
      return reply({ content: typeof a === 'string' ? a : JSON.stringify(a), usage: { prompt: 300, completion: 60 } });
    },
  ];
}

async function ask(question = 'Who owes us money?') {
  const res = await s.client.rpc('books.ask', { question });
  expect(res.status, res.raw).toBe(200);
  return res.body.result;
}

const ENV = ['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'OPENAI_CUSTOM_HEADERS', 'OPENAI_ORG_ID', 'OPENAI_PROJECT_ID'];
afterEach(() => {
  for (const name of ENV) delete process.env[name];
  s.runtime.deps.ai.config.timeoutMs = 120_000;
});

describe('openai provider: plain chat completions', () => {
  it('calls the typed reads as tools, answers grounded, and audits tokens, cost, model and retries', async () => {
    // Implicit environment must not be used: the key and URL given are the only ones.
    Object.assign(process.env, {
      OPENAI_API_KEY: 'sk-from-env',
      OPENAI_BASE_URL: 'http://127.0.0.1:9/v1',
      OPENAI_CUSTOM_HEADERS: 'x-leak: yes',
      OPENAI_ORG_ID: 'org-leak',
      OPENAI_PROJECT_ID: 'proj-leak',
    });
    useOpenAi();
    mock.script(readThenAnswer(grounded));
    const result = await ask();
    expect(result).toMatchObject({
      status: 'answered',
      answer: `Harbour Cafe owes $1,100.00 on ${invoice.number}, due ${invoice.dueDate}.`,
      reason: null,
      provider: 'openai',
      model: 'gpt-4o-mini-2024-07-18',
    });
    expect(result.claims[0].cites).toEqual([{ kind: 'record', id: invoice.id }]);
    expect(result.notice).toMatch(/^For analysis only/);
    expect(result.actOnWith).toEqual(['books.invoices']);

    expect(mock.requests).toHaveLength(2);
    for (const req of mock.requests) {
      expect(req.headers.authorization).toBe('Bearer test-key');
      expect(req.headers['x-leak']).toBeUndefined();
      expect(req.headers['openai-organization']).toBeUndefined();
      expect(req.headers['openai-project']).toBeUndefined();
      expect(req.body.model).toBe('gpt-4o-mini');
      expect(req.body.stream).toBe(false);
    }
    const [first, second] = mock.requests;
    expect(first.body.tool_choice).toBe('auto');
    const tools = new Map(first.body.tools.map((t: any) => [t.function.name, t.function]));
    expect([...tools.keys()]).toEqual([
      'books_invoices',
      'books_bills',
      'books_accounts',
      'books_reports',
      'books_journals',
      'books_feedLines',
      'books_assets',
      'books_taxObligations',
      'ledger_events',
    ]);
    for (const fn of tools.values()) expect((fn as any).parameters.type).toBe('object');
    expect((tools.get('books_reports') as any).parameters.anyOf.length).toBe(books.reports.params.options.length); // one branch per report shape
    expect((tools.get('books_invoices') as any).parameters.properties.status.enum).toContain('AUTHORISED');
    expect(first.body.messages.map((m: any) => m.role)).toEqual(['system', 'user']);
    expect(first.body.messages[1].content).toBe('Who owes us money?');
    expect(first.body.messages[0].content).toContain('Today is 2026-11-02.');
    // The second request carries the assistant's tool call and the read's result.
    expect(second.body.messages.map((m: any) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(second.body.messages[2].tool_calls[0]).toMatchObject({ id: 'call_1', function: { name: 'books_invoices' } });
    expect(second.body.messages[3].tool_call_id).toBe('call_1');

    const audit = await lastAudit(s.client);
    expect(audit.id).toBe(result.audit.id);
    expect(audit.seq).toBe(result.audit.seq);
    expect(audit.record).toMatchObject({
      provider: 'openai',
      modelRequested: 'gpt-4o-mini',
      modelAnswered: 'gpt-4o-mini-2024-07-18',
      promptTokens: 420,
      completionTokens: 75,
      tokensEstimated: false,
      // gpt-4o-mini: $0.15 / $0.60 per million tokens: 420 * 0.15 = 63, 75 * 0.60 = 45 micro-dollars.
      costMicroUsd: 108,
      priceSource: 'table:gpt-4o-mini',
      retries: [],
      reads: [{ name: 'books.invoices', ok: true, error: null }],
      verdict: 'grounded',
      reason: null,
      bodies: null,
    });
    expect(audit.record.promptHash).toMatch(/^[0-9a-f]{64}$/);
    expect(audit.record.answerHash).toMatch(/^[0-9a-f]{64}$/);
    expect(audit.record.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('reports a refused tool call back to the model as an error it can correct', async () => {
    useOpenAi();
    mock.script([
      reply({
        toolCalls: [
          { id: 'c1', name: 'books_invoices', arguments: { limit: 5000 } },
          { id: 'c2', name: 'books_invoiceSend', arguments: { id: invoice.id } },
          { id: 'c3', name: 'books_bills', arguments: '{not json' },
        ],
      }),
      ...readThenAnswer(grounded),
    ]);
    const result = await ask();
    expect(result.status).toBe('answered');
    const errors = toolResults(mock.requests[1]);
    expect(errors).toEqual([
      { error: 'BAD_REQUEST: limit: must be at most 200' },
      { error: expect.stringMatching(/^unknown tool "books_invoiceSend"/) },
      { error: expect.stringMatching(/^arguments are not valid JSON/) },
    ]);
    const audit = await lastAudit(s.client);
    expect(audit.record.reads.map((r: any) => [r.name, r.ok])).toEqual([
      ['books.invoices', false],
      ['books_invoiceSend', false],
      ['books.invoices', true],
    ]);
  });

  it('estimates tokens when the endpoint reports no usage', async () => {
    useOpenAi();
    mock.script([
      reply({ toolCalls: [{ id: 'c', name: 'books_invoices', arguments: {} }], usage: null }),
      (req) => reply({ content: JSON.stringify(grounded(toolResults(req)[0].invoices[0])), usage: null }),
    ]);
    expect((await ask()).status).toBe('answered');
    const { record } = await lastAudit(s.client);
    expect(record.tokensEstimated).toBe(true);
    expect(record.promptTokens).toBeGreaterThan(500); // the system prompt and tool specs alone are thousands of characters
    expect(record.costMicroUsd).toBeGreaterThan(0);
  });
});

describe('openai provider: streamed', () => {
  it('assembles content and split tool calls from SSE chunks and takes usage from the last chunk', async () => {
    useOpenAi({ stream: true });
    mock.script(readThenAnswer(grounded));
    const result = await ask();
    expect(result.status, result.reason).toBe('answered');
    expect(result.claims[0].figure).toEqual({ value: 110000, unit: 'cents', op: 'value', field: 'amountDueCents' });
    for (const req of mock.requests) {
      expect(req.body.stream).toBe(true);
      expect(req.body.stream_options).toEqual({ include_usage: true });
    }
    expect(mock.requests[1].body.messages[2].tool_calls[0].function.arguments).toBe('{"status":"AUTHORISED"}');
    const { record } = await lastAudit(s.client);
    expect(record).toMatchObject({
      promptTokens: 420,
      completionTokens: 75,
      tokensEstimated: false,
      modelAnswered: 'gpt-4o-mini-2024-07-18',
      verdict: 'grounded',
    });
  });
});

describe('openai provider: retries and timeouts', () => {
  it('retries a 429 and records it', async () => {
    useOpenAi();
    mock.script([status(429), ...readThenAnswer(grounded)]);
    expect((await ask()).status).toBe('answered');
    expect(mock.requests).toHaveLength(3);
    expect((await lastAudit(s.client)).record.retries).toEqual([{ reason: 'HTTP 429' }]);
  });

  it('retries a 500 (streamed too) and records it', async () => {
    useOpenAi({ stream: true });
    mock.script([
      reply({ toolCalls: [{ id: 'c', name: 'books_invoices', arguments: {} }] }),
      status(500),
      (req) => reply({ content: JSON.stringify(grounded(toolResults(req)[0].invoices[0])) }),
    ]);
    expect((await ask()).status).toBe('answered');
    expect((await lastAudit(s.client)).record.retries).toEqual([{ reason: 'HTTP 500' }]);
  });

  it('times out a request that hangs, retries it, and records the timeout', async () => {
    useOpenAi({ requestTimeoutMs: 300, maxRetries: 1 });
    mock.script([hang, ...readThenAnswer(grounded)]);
    expect((await ask()).status).toBe('answered');
    expect((await lastAudit(s.client)).record.retries).toEqual([{ reason: 'timeout after 300 ms' }]);
  });

  it('refuses once maxRetries are spent, and audits the failure with its retries', async () => {
    useOpenAi({ maxRetries: 1 });
    mock.script([status(500)]);
    const result = await ask();
    expect(result).toMatchObject({ status: 'refused', answer: null, claims: [] });
    expect(result.reason).toMatch(/^the model call failed: the model endpoint answered HTTP 500 after 1 retry/);
    expect(mock.requests).toHaveLength(2);
    const { record } = await lastAudit(s.client);
    expect(record).toMatchObject({ verdict: 'provider_error', retries: [{ reason: 'HTTP 500' }], answerHash: null, costMicroUsd: 0 });
    expect(record.reason).toBe(result.reason);
  });

  it('maxRetries 0 does not retry', async () => {
    useOpenAi({ maxRetries: 0 });
    mock.script([status(429)]);
    expect((await ask()).reason).toMatch(/HTTP 429:/);
    expect(mock.requests).toHaveLength(1);
    expect((await lastAudit(s.client)).record.retries).toEqual([]);
  });

  it('refuses at the ask deadline, whatever the per-request timeout', async () => {
    useOpenAi({ requestTimeoutMs: 60_000, maxRetries: 0 });
    s.runtime.deps.ai.config.timeoutMs = 400;
    mock.script([hang]);
    const started = Date.now();
    const result = await ask();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(result).toMatchObject({ status: 'refused', reason: 'no answer within the 400 ms deadline' });
    const { record } = await lastAudit(s.client);
    expect(record.verdict).toBe('timeout');
    expect(record.latencyMs).toBeGreaterThanOrEqual(400);
  });
});

describe('openai provider: bounded steps and bad output', () => {
  it('stops at maxSteps: the last request may not call tools, and an answerless end is refused', async () => {
    useOpenAi({ maxSteps: 2 });
    mock.script([reply({ toolCalls: [{ id: 'c', name: 'books_accounts', arguments: {} }] })]);
    const result = await ask();
    expect(result.reason).toBe('the model call failed: no final answer within 2 model requests (AI_MAX_STEPS)');
    expect(mock.requests.map((r) => r.body.tool_choice)).toEqual(['auto', 'none']);
    expect((await lastAudit(s.client)).record).toMatchObject({ verdict: 'provider_error', promptTokens: 200 });
  });

  it('refuses a final message that is not JSON or not an answer object', async () => {
    useOpenAi();
    mock.script([reply({ content: 'Harbour Cafe owes about a thousand dollars.' })]);
    expect((await ask()).reason).toMatch(/^the model call failed: the final message is not JSON/);
    mock.script([reply({ content: '```json\n{"kind":"answer","answer":"x","claims":[{"text":"y"}]}\n```' })]);
    expect((await ask()).reason).toBe(
      'the model call failed: the final message is not an answer object: claims.0.cites: Invalid input: expected array, received undefined',
    );
  });

  it('passes on a model that cannot answer, as a refusal with its reason', async () => {
    useOpenAi();
    mock.script([reply({ content: JSON.stringify({ kind: 'cannot_answer', reason: 'There is no invoice INV-9999 in these books.' }) })]);
    expect(await ask('What about INV-9999?')).toMatchObject({ status: 'refused', reason: 'There is no invoice INV-9999 in these books.' });
    expect((await lastAudit(s.client)).record.verdict).toBe('cannot_answer');
  });
});

describe('grounding through the mock model', () => {
  it('refuses a fabricated citation', async () => {
    useOpenAi();
    mock.script(readThenAnswer((inv) => ({ ...grounded(inv), claims: [{ ...grounded(inv).claims[0], cites: [{ kind: 'record', id: 'inv_fabricated01' }] }] })));
    const result = await ask();
    expect(result).toMatchObject({ status: 'refused', answer: null, claims: [] });
    expect(result.reason).toBe("the model's answer was refused as ungrounded: claim 1 cites record inv_fabricated01, which no read returned in this call");
    expect((await lastAudit(s.client)).record).toMatchObject({ verdict: 'ungrounded', reason: result.reason });
  });

  it('refuses a real id the reads did not return in this call', async () => {
    const other = await sentInvoice(s.client, 5500, 'Blue Wren');
    useOpenAi();
    // The model reads only AUTHORISED invoices of another contact, then cites an invoice it was not shown.
    mock.script([
      reply({ toolCalls: [{ id: 'c', name: 'books_invoices', arguments: { contactId: invoice.contact.id } }] }),
      reply({
        content: JSON.stringify({
          kind: 'answer',
          answer: 'Blue Wren owes $55.00.',
          claims: [
            {
              text: 'Blue Wren owes $55.00.',
              cites: [{ kind: 'record', id: other.id }],
              figure: { value: 5500, unit: 'cents', op: 'value', field: 'amountDueCents' },
            },
          ],
        }),
      }),
    ]);
    expect((await ask()).reason).toMatch(new RegExp(`cites record ${other.id}, which no read returned in this call`));
  });

  it('refuses a wrong number in a figure', async () => {
    useOpenAi();
    mock.script(
      readThenAnswer((inv) => {
        const d = grounded(inv) as any;
        d.answer = `Harbour Cafe owes $1,101.00 on ${inv.number}.`;
        d.claims[0].text = `${inv.number} has $1,101.00 due.`;
        d.claims[0].figure.value = 110100;
        return d;
      }),
    );
    expect((await ask()).reason).toBe(
      `the model's answer was refused as ungrounded: claim 1's figure says $1,101.00 but amountDueCents of record ${invoice.id} is $1,100.00`,
    );
  });

  it('refuses a wrong number in the text whose figure is right', async () => {
    useOpenAi();
    mock.script(readThenAnswer((inv) => ({ ...grounded(inv), answer: `Harbour Cafe owes $1,010.00 on ${inv.number}.` })));
    expect((await ask()).reason).toBe(
      "the model's answer was refused as ungrounded: the answer states $1,010.00, which is none of the answer's figures ($1,100.00)",
    );
  });
});
