import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ApiError } from '../../../protocol/errors.js';
import type { Deps } from '../../core/deps.js';
import { classify, openClient, type Target } from './remote.js';

/*
 * Open MCP client sessions to the integrations, kept between invokeTool calls: an initialize costs two round trips
 * to the remote, a call one. A session is keyed by everything it was opened with: integration, pinned toolset
 * version, URL, auth and the credential's version, so a re-sync, a rotated or re-put secret opens a new session
 * (and closes the integration's older ones) instead of reusing a stale one. Sessions idle for IDLE_MS are closed,
 * at most MAX_SESSIONS are kept, an integration's are closed when it disconnects, and all at server stop (the
 * family's background). One pool per runtime (WeakMap on its Deps): two runtimes in one process share nothing.
 */

export const IDLE_MS = 60_000;
export const MAX_SESSIONS = 256;

export interface SessionKey {
  orgId: string;
  integrationId: string;
  toolsetVersion: string;
  url: string;
  /** `<kind>:<header>:<credentialId>:<version>`: moves with a re-put or rotated secret. */
  auth: string;
}

interface Session {
  key: string;
  owner: string;
  client: Promise<Client>;
  lastUsed: number;
  inFlight: number;
}

const ownerOf = (k: SessionKey) => `${k.orgId}\n${k.integrationId}`;
const keyOf = (k: SessionKey) => [ownerOf(k), k.toolsetVersion, k.url, k.auth].join('\n');

export class ClientPool {
  private readonly sessions = new Map<string, Session>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly idleMs = IDLE_MS) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, idleMs / 2));
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /**
   * Run fn with the session for `key`, opening one when none is kept. A session the remote no longer knows (404,
   * so nothing ran) is replaced and fn retried once; any other failure drops the session and is classified.
   */
  async use<T>(key: SessionKey, target: Target, timeoutMs: number, fn: (client: Client) => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const session = this.session(key, target, timeoutMs);
      session.inFlight++;
      try {
        return await fn(await session.client);
      } catch (err) {
        if (err instanceof ApiError) throw err; // the caller's own refusal (a pin that no longer matches): the session is fine
        this.drop(session);
        if (attempt === 0 && err instanceof StreamableHTTPError && err.code === 404) continue;
        throw classify(err);
      } finally {
        session.inFlight--;
        session.lastUsed = Date.now();
      }
    }
  }

  /** Close every session of an integration (disconnect). */
  closeIntegration(orgId: string, integrationId: string): void {
    const owner = ownerOf({ orgId, integrationId } as SessionKey);
    for (const s of [...this.sessions.values()]) if (s.owner === owner) this.drop(s);
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const all = [...this.sessions.values()];
    this.sessions.clear();
    await Promise.all(all.map((s) => closeQuietly(s)));
  }

  private session(key: SessionKey, target: Target, timeoutMs: number): Session {
    const k = keyOf(key);
    const kept = this.sessions.get(k);
    if (kept) return kept;
    // Whatever the integration had under another key (an older toolset, URL or secret version) is stale now.
    const owner = ownerOf(key);
    for (const s of [...this.sessions.values()]) if (s.owner === owner) this.drop(s);
    if (this.sessions.size >= MAX_SESSIONS) this.evictOldestIdle();
    const session: Session = { key: k, owner, client: openClient(target, timeoutMs), lastUsed: Date.now(), inFlight: 0 };
    // A failed open is not kept: the next call opens again.
    session.client.catch(() => this.drop(session));
    this.sessions.set(k, session);
    return session;
  }

  private drop(session: Session): void {
    if (this.sessions.get(session.key) !== session) return;
    this.sessions.delete(session.key);
    void closeQuietly(session);
  }

  private evictOldestIdle(): void {
    let oldest: Session | undefined;
    for (const s of this.sessions.values()) if (s.inFlight === 0 && (!oldest || s.lastUsed < oldest.lastUsed)) oldest = s;
    if (oldest) this.drop(oldest);
  }

  private sweep(): void {
    const before = Date.now() - this.idleMs;
    for (const s of [...this.sessions.values()]) if (s.inFlight === 0 && s.lastUsed < before) this.drop(s);
  }
}

async function closeQuietly(s: Session): Promise<void> {
  await s.client.then((c) => c.close()).catch(() => {});
}

const pools = new WeakMap<Deps, ClientPool>();

/** The runtime's pool. */
export function clientPool(deps: Deps): ClientPool {
  let pool = pools.get(deps);
  if (!pool) pools.set(deps, (pool = new ClientPool()));
  return pool;
}

/** Close the runtime's pool (server stop); a later call opens a new one. */
export async function closeClientPool(deps: Deps): Promise<void> {
  const pool = pools.get(deps);
  pools.delete(deps);
  await pool?.close();
}
