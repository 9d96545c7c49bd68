import pg from 'pg';
import type { ListenHandlers } from './types.js';

/** What the listening connection reports; it never throws at its user once listening. */
export interface ListenerEvents {
  /** The connection was lost (a reconnect is scheduled) or a reconnect attempt failed. */
  onError?(err: Error, what: string): void;
}

export interface PgListenerOptions extends ListenerEvents {
  /** First reconnect delay; doubles up to maxBackoffMs (default 100 ms and 5 s). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** application_name of the connection (default wops-listen): how an operator finds it in pg_stat_activity. */
  applicationName?: string;
  /**
   * The connection is checked this often with SELECT 1 (default 30 s): a connection silently gone (a network
   * partition sends no error) is noticed, replaced and resynced within this plus the 10 s it is given to answer.
   */
  checkEveryMs?: number;
}

export const LISTEN_APPLICATION_NAME = 'wops-listen';
const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * One dedicated connection per process for LISTEN (a pooled connection cannot listen: it is handed to other
 * work). Lost connections come back with exponential backoff and jitter, LISTEN again on every channel, and
 * then call each handler's resync(): a NOTIFY sent while the connection was down is gone, so whoever relies
 * on one re-reads instead of missing an update.
 */
export class PgListener {
  private readonly channels = new Map<string, Set<ListenHandlers>>();
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private check: NodeJS.Timeout | undefined;
  private failures = 0;
  /** A connection was lost: the next one to come up calls every resync(). */
  private missed = false;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly opts: PgListenerOptions = {},
  ) {}

  async listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
    if (!CHANNEL.test(channel)) throw new Error(`channel: ${JSON.stringify(channel)} is not a lowercase identifier`);
    if (this.closed) throw new Error('the listener is closed');
    let set = this.channels.get(channel);
    const fresh = !set;
    if (!set) this.channels.set(channel, (set = new Set()));
    set.add(handlers);
    try {
      // The first listen opens the connection, and its failure is the caller's (a process that cannot listen
      // should not start). A connection opened meanwhile may have LISTENed already: a second LISTEN is a no-op.
      const client = this.client ?? (await (this.connecting ??= this.connect()));
      if (fresh) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      set.delete(handlers);
      if (set.size === 0) this.channels.delete(channel);
      throw err;
    }
    return async () => {
      set.delete(handlers);
      if (set.size > 0 || this.channels.get(channel) !== set) return;
      this.channels.delete(channel);
      await this.client?.query(`UNLISTEN ${channel}`).catch(() => {});
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    clearInterval(this.check);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<pg.Client> {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: this.opts.applicationName ?? LISTEN_APPLICATION_NAME,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    client.on('notification', (msg) => {
      for (const h of [...(this.channels.get(msg.channel) ?? [])]) {
        try {
          h.notify(msg.payload ?? '');
        } catch (err) {
          this.opts.onError?.(err as Error, `a ${msg.channel} handler failed`);
        }
      }
    });
    // After connect, errors and the end of the connection arrive as events: without a listener an error would
    // crash the process.
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, new Error('the LISTEN connection ended')));
    try {
      await client.connect();
      for (const channel of this.channels.keys()) await client.query(`LISTEN ${channel}`);
    } catch (err) {
      this.connecting = undefined;
      await client.end().catch(() => {});
      throw err;
    }
    this.connecting = undefined;
    if (this.closed) {
      await client.end().catch(() => {});
      throw new Error('the listener is closed');
    }
    this.client = client;
    this.failures = 0;
    clearTimeout(this.retry);
    this.watch(client);
    if (this.missed) {
      this.missed = false;
      queueMicrotask(() => this.resyncAll());
    }
    return client;
  }

  private watch(client: pg.Client): void {
    clearInterval(this.check);
    this.check = setInterval(() => {
      if (this.client !== client) return;
      let timer: NodeJS.Timeout | undefined;
      const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the LISTEN connection did not answer SELECT 1 within 10 s')), 10_000);
      });
      Promise.race([client.query('SELECT 1'), silent]).then(
        () => clearTimeout(timer),
        (err: Error) => {
          clearTimeout(timer);
          this.lost(client, err);
        },
      );
    }, this.opts.checkEveryMs ?? 30_000);
    this.check.unref();
  }

  private lost(client: pg.Client, err: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.missed = true;
    clearInterval(this.check);
    client.end().catch(() => {});
    this.opts.onError?.(err, 'LISTEN connection lost; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const min = this.opts.minBackoffMs ?? 100;
    const max = this.opts.maxBackoffMs ?? 5000;
    const delay = Math.min(max, min * 2 ** this.failures) * (0.5 + Math.random() / 2);
    this.failures++;
    this.retry = setTimeout(() => void this.reconnect(), delay);
    this.retry.unref();
  }

  private async reconnect(): Promise<void> {
    if (this.closed || this.client) return;
    try {
      await (this.connecting ??= this.connect());
    } catch (err) {
      if (this.closed) return;
      this.opts.onError?.(err as Error, 'LISTEN reconnect failed');
      this.scheduleReconnect();
    }
  }

  private resyncAll(): void {
    for (const set of [...this.channels.values()]) {
      for (const h of [...set]) {
        try {
          h.resync();
        } catch (err) {
          this.opts.onError?.(err as Error, 'a resync handler failed');
        }
      }
    }
  }
}
