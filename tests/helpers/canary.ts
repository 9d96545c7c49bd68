import { Writable } from 'node:stream';
import { pino } from 'pino';
import { expect } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { buildApp } from '../../gateway/app.js';
import { META_TOOL_NAMES } from '../../mcp/meta-tools.js';
import { createMcpServer } from '../../mcp/server.js';
import { parseSelection } from '../../mcp/toolsets.js';
import { DATABASE_URL, freshOrg, testRuntime, TestClient, type TestServer } from './harness.js';
import { freshDatabase } from '../multiprocess/harness.js';
import { allEvents } from './harness.js';
import type { DomainConfig } from '../../domain/core/deps.js';

/**
 * The redaction canary (docs/security.md, Free text stays out of the ledger): a test server whose every log line is
 * kept (the gateway's request log at trace level and the runtime's own logger), with MCP sessions over the same
 * pipeline, so a family's test can plant a canary in every free-text field and prove that no event, log line, stored
 * idempotency frame or MCP result of a secret-bearing call shows it.
 */
export interface CanaryServer extends TestServer {
  /** Everything logged so far, one JSON line per entry. */
  logs(): string;
  /** An MCP client for a key, over the in-memory transport, listing every deployed tool. */
  mcp(apiKey?: string): Promise<Client>;
  /** The org's whole ledger as text. */
  ledgerText(): Promise<string>;
  /** Every idempotency row of the org as text (frames as stored: sealed frames stay sealed). */
  idempotencyText(): Promise<string>;
}

/**
 * ownDatabase: a database no other test's runtime works on (a fresh one on PostgreSQL, in memory on PGlite), for a
 * canary that starts job workers: on a shared database another test's worker could take its jobs.
 */
export async function canaryServer(opts: { ownDatabase?: boolean; config?: Partial<DomainConfig> } = {}): Promise<CanaryServer> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  const fresh = opts.ownDatabase && DATABASE_URL ? await freshDatabase(DATABASE_URL, 'wops_canary') : undefined;
  const own = opts.ownDatabase ? (fresh ? { databaseUrl: fresh.url } : { inMemory: true }) : {};
  const runtime = await testRuntime({ log: pino({ level: 'trace' }, stream), ...own, ...(opts.config ? { config: opts.config } : {}) });
  const app = await buildApp({ runtime, logger: { level: 'trace', stream }, rateLimitPerMinute: 0 });
  const org = await freshOrg(runtime, 'canary');
  const client = new TestClient(app, org.adminKey);
  const clients: Client[] = [];
  return {
    runtime,
    app,
    org,
    client,
    logs: () => lines.join(''),
    async mcp(apiKey = org.adminKey) {
      const principal = await runtime.pipeline.principalFor(apiKey);
      const selection = parseSelection({ toolsets: 'all' }, META_TOOL_NAMES);
      const server = createMcpServer({ pipeline: runtime.pipeline, apiKey, principal, selection });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await server.connect(serverSide);
      const mcpClient = new Client({ name: 'canary', version: '1.0.0' });
      await mcpClient.connect(clientSide);
      clients.push(mcpClient);
      return mcpClient;
    },
    ledgerText: async () => JSON.stringify(await allEvents(client)),
    async idempotencyText() {
      const rows = await runtime.db.query('SELECT * FROM idempotency WHERE org_id = $1', [org.orgId]);
      return JSON.stringify(rows);
    },
    async close() {
      for (const c of clients) await c.close();
      await app.close();
      await runtime.close();
      await fresh?.drop();
    },
  };
}

/** Fails naming where the canary (or any of the values) showed up. */
export function expectNoCanary(canaries: string | readonly string[], where: Record<string, string>): void {
  for (const canary of typeof canaries === 'string' ? [canaries] : canaries) {
    for (const [place, text] of Object.entries(where)) {
      const at = text.toLowerCase().indexOf(canary.toLowerCase());
      expect(at, `${place} shows ${canary}: …${text.slice(Math.max(0, at - 120), at + 60)}…`).toBe(-1);
    }
  }
}
