import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A model endpoint on loopback that speaks the OpenAI chat-completions protocol (POST /v1/chat/completions),
 * plain JSON or server-sent events, scripted by the test: each request is answered by the next step of the
 * script, a function of the request (so a scripted model can read the tool results it was sent).
 */

export interface SeenRequest {
  headers: IncomingMessage['headers'];
  body: any;
}

export interface ToolCallSpec {
  id: string;
  name: string;
  arguments: unknown;
}

export interface Reply {
  content?: string | null;
  toolCalls?: ToolCallSpec[];
  model?: string;
  /** Omit usage entirely with null. */
  usage?: { prompt: number; completion: number } | null;
}

export type Step =
  | { kind: 'reply'; reply: Reply }
  | { kind: 'status'; status: number; body?: unknown; headers?: Record<string, string> }
  /** Accept the request and never answer (until the server closes). */
  | { kind: 'hang' };

export type Script = (req: SeenRequest, n: number) => Step;

export interface MockModel {
  url: string;
  requests: SeenRequest[];
  /** Answer the following requests with these steps, in order; past the end, the last step repeats. */
  script(steps: (Step | Script)[]): void;
  /** POST /v1/images/generations: answered by this (default 404); its requests are in `requests` too. */
  images: (body: any) => { status: number; body: unknown };
  close(): Promise<void>;
}

export const reply = (r: Reply): Step => ({ kind: 'reply', reply: r });
export const status = (code: number, headers: Record<string, string> = { 'retry-after-ms': '10' }): Step => ({
  kind: 'status',
  status: code,
  headers,
  body: { error: { message: `mock ${code}`, type: code === 429 ? 'rate_limit_exceeded' : 'server_error' } },
});
export const hang: Step = { kind: 'hang' };

/** The tool messages a request carries (what the gateway's tools returned), parsed. */
export const toolResults = (req: SeenRequest): any[] => req.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content));

const DEFAULT_MODEL = 'gpt-4o-mini-2024-07-18';

function completion(r: Reply, streamed: false): unknown;
function completion(r: Reply, streamed: true): string[];
function completion(r: Reply, streamed: boolean): unknown {
  const model = r.model ?? DEFAULT_MODEL;
  const toolCalls = (r.toolCalls ?? []).map((c) => ({
    id: c.id,
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  const usage =
    r.usage === null
      ? undefined
      : {
          prompt_tokens: r.usage?.prompt ?? 100,
          completion_tokens: r.usage?.completion ?? 20,
          total_tokens: (r.usage?.prompt ?? 100) + (r.usage?.completion ?? 20),
        };
  const finish = toolCalls.length ? 'tool_calls' : 'stop';
  if (!streamed) {
    return {
      id: 'chatcmpl-mock',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: r.content ?? null, tool_calls: toolCalls.length ? toolCalls : undefined, refusal: null },
          finish_reason: finish,
          logprobs: null,
        },
      ],
      usage,
    };
  }
  // Streamed: the role, the content in small pieces, each tool call split in two (name, then arguments in two
  // halves), the finish reason, then (stream_options.include_usage) a last chunk with no choices and the usage.
  const chunk = (delta: unknown, finishReason: string | null = null) => ({
    id: 'chatcmpl-mock',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  });
  const chunks: unknown[] = [chunk({ role: 'assistant', content: '' })];
  const text = r.content ?? '';
  for (let i = 0; i < text.length; i += 7) chunks.push(chunk({ content: text.slice(i, i + 7) }));
  toolCalls.forEach((c, index) => {
    const half = Math.ceil(c.function.arguments.length / 2);
    chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments.slice(0, half) } }] }));
    chunks.push(chunk({ tool_calls: [{ index, function: { arguments: c.function.arguments.slice(half) } }] }));
  });
  chunks.push(chunk({}, finish));
  if (usage) chunks.push({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage });
  return [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), 'data: [DONE]\n\n'];
}

export async function startMockModel(): Promise<MockModel> {
  const requests: SeenRequest[] = [];
  let steps: (Step | Script)[] = [];
  let next = 0;
  const hanging = new Set<ServerResponse>();

  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (d) => (raw += d));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/images/generations') {
        const seen: SeenRequest = { headers: req.headers, body: JSON.parse(raw) };
        requests.push(seen);
        const out = mock.images(seen.body);
        res.writeHead(out.status, { 'content-type': 'application/json' }).end(JSON.stringify(out.body));
        return;
      }
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}` } }));
        return;
      }
      const seen: SeenRequest = { headers: req.headers, body: JSON.parse(raw) };
      requests.push(seen);
      const entry = steps[Math.min(next, steps.length - 1)];
      next += 1;
      if (!entry) {
        res.writeHead(500).end('{"error":{"message":"mock has no script"}}');
        return;
      }
      let step: Step;
      try {
        step = typeof entry === 'function' ? entry(seen, requests.length) : entry;
      } catch (err) {
        // A script that throws is a broken test: say so to the client, and do not let it retry.
        res
          .writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' })
          .end(JSON.stringify({ error: { message: `mock script failed: ${(err as Error).message}` } }));
        return;
      }
      if (step.kind === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (step.kind === 'status') {
        res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers }).end(JSON.stringify(step.body ?? {}));
        return;
      }
      if (seen.body.stream === true) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        for (const line of completion(step.reply, true)) res.write(line);
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(step.reply, false)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const mock: MockModel = {
    images: () => ({ status: 404, body: { error: { message: 'no image model scripted' } } }),
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    script(s) {
      steps = s;
      next = 0;
      requests.length = 0;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return mock;
}
