import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EmbedSettings } from '../../../ai-gateway/config.js';

/*
 * A loopback OpenAI-compatible embeddings endpoint (POST /v1/embeddings), the one stand-in of these tests: a real
 * model needs weights. Its vectors are a bag of concepts: each word maps to its synonym group's concept (or to
 * itself), each concept to a dimension by hashing, and the counts are normalised; so a paraphrase in other words of
 * the same groups lands near the original and unrelated text far from it. Deterministic, no weights.
 */

export const DIMS = 64;

const GROUPS = [
  ['brisbane', 'queensland'],
  ['office', 'branch', 'site'],
  ['closes', 'shut', 'shuts', 'close'],
  ['early', 'soon', 'before'],
  ['fridays', 'friday', 'weekend', 'week'],
  ['invoices', 'bills', 'invoice', 'bill'],
  ['pays', 'settle', 'settles', 'paid'],
  ['parking', 'carpark', 'garage'],
  ['badge', 'pass', 'card'],
];
const STOP = new Set(['the', 'a', 'an', 'on', 'at', 'of', 'to', 'does', 'do', 'when', 'its', 'our', 'is', 'are', 'in', 'end', 'and', 'for', 'what', 'with']);
const concept = new Map(GROUPS.flatMap((g) => g.map((w) => [w, g[0]] as const)));

/** The vector of a text: concept counts in hashed dimensions, unit length (all zero for a text of stop words). */
export function conceptVector(text: string, dims = DIMS): number[] {
  const v = new Array<number>(dims).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    if (STOP.has(word)) continue;
    const c = concept.get(word) ?? word;
    v[createHash('sha256').update(c).digest().readUInt32BE(0) % dims] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

export interface EmbedServer {
  /** What a runtime is configured with (ai.embed): the runtime keeps this object, so a test may shorten its timeout. */
  settings: EmbedSettings;
  /** Requests answered, and the texts embedded (for asserting what was sent). */
  requests: number;
  texts: string[];
  /** ok (default), down (HTTP 503), slow (answers after the client's timeout), short (vectors one number short). */
  mode: 'ok' | 'down' | 'slow' | 'short';
  close(): Promise<void>;
}

const bodyOf = async (req: IncomingMessage): Promise<string> => {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
};

export async function embedServer(): Promise<EmbedServer> {
  const state: EmbedServer = {
    settings: undefined as unknown as EmbedSettings,
    requests: 0,
    texts: [],
    mode: 'ok',
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = JSON.parse(await bodyOf(req)) as { model: string; input: string[]; dimensions: number };
      state.requests += 1;
      if (req.url !== '/v1/embeddings' || req.method !== 'POST') return res.writeHead(404).end();
      if (state.mode === 'down') return res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}');
      if (state.mode === 'slow') await new Promise((r) => setTimeout(r, state.settings.timeoutMs + 500));
      state.texts.push(...body.input);
      const data = body.input.map((text, index) => ({
        object: 'embedding',
        index,
        embedding: conceptVector(text, body.dimensions - (state.mode === 'short' ? 1 : 0)),
      }));
      const tokens = body.input.reduce((n, t) => n + Math.ceil(t.length / 4), 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', model: body.model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } }));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  state.settings = {
    baseURL: `http://127.0.0.1:${port}/v1`,
    apiKey: 'test-key',
    model: 'text-embedding-3-small',
    dimensions: DIMS,
    timeoutMs: 5000,
    minSimilarity: 0.3,
  };
  return state;
}
