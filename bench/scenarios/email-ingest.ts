import nodemailer from 'nodemailer';
import { one, type Db } from '../../db/types.js';
import { percentile } from '../measure.js';

/*
 * Inbound SMTP ingest for the email step: messages through a server's SMTP listener on some connections (nodemailer),
 * and, while they go, what that server's PostgreSQL backends are doing (pg_stat_activity sampled every 20 ms: running,
 * waiting on a lock and which, or idle in a transaction while the process works), so a slow figure says where its
 * time went.
 */

export interface Ingest {
  messages: number;
  connections: number;
  perSecond: number;
  p50Ms: number;
  p95Ms: number;
  /** Share of samples of the ingesting server's backends in each state (`active`, `idle in transaction`, `Lock:transactionid`, ...). */
  backends: Record<string, number>;
}

/** The application_name the ingesting server's connections carry (PGAPPNAME), for the sampler. */
export const INGEST_APP = 'wops-bench-ingest';

/** Samples pg_stat_activity until stopped: each backend's state, or its wait event when it waits on something. */
function sampleBackends(db: Db): { stop(): Promise<Record<string, number>> } {
  const counts = new Map<string, number>();
  let samples = 0;
  let running = true;
  const loop = (async () => {
    while (running) {
      const rows = await db.query<{ what: string; n: number }>(
        `SELECT CASE WHEN wait_event_type IS NOT NULL AND wait_event_type NOT IN ('Client', 'Activity') THEN wait_event_type || ':' || wait_event ELSE state END AS what,
                count(*)::int AS n
           FROM pg_stat_activity WHERE application_name = $1 AND state IS NOT NULL GROUP BY 1`,
        [INGEST_APP],
      );
      samples += 1;
      for (const r of rows) counts.set(r.what, (counts.get(r.what) ?? 0) + r.n);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      // Backends in each state on average per sample.
      return Object.fromEntries([...counts].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, Number((v / Math.max(1, samples)).toFixed(2))]));
    },
  };
}

/** `n` messages through the SMTP listener on `connections` connections: messages a second, and each one's time to 250. */
export async function ingest(db: Db, port: number, to: string, n: number, connections: number, tag: string): Promise<Ingest> {
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: connections });
  const body = 'Hello, please find the invoice for the quarterly order below; the payment is overdue since last month. '.repeat(12);
  const ms: number[] = [];
  let next = 0;
  const sampler = sampleBackends(db);
  const started = performance.now();
  try {
    const worker = async () => {
      for (let i = next++; i < n; i = next++) {
        const t = performance.now();
        // Every fourth a reply to the one before (threaded by In-Reply-To), as a customer's thread goes.
        await transport.sendMail({
          from: `Person ${i % 500} <person${i % 500}@company${i % 50}.example>`,
          to,
          subject: `Order ${tag}-${i - (i % 4)} question`,
          messageId: `<${tag}-${i}@company${i % 50}.example>`,
          ...(i % 4 ? { inReplyTo: `<${tag}-${i - 1}@company${(i - 1) % 50}.example>` } : {}),
          text: `${body}\nOrder ${i}`,
        });
        ms.push(performance.now() - t);
      }
    };
    await Promise.all(Array.from({ length: connections }, worker));
  } finally {
    transport.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const backends = await sampler.stop();
  ms.sort((a, b) => a - b);
  return { messages: n, connections, perSecond: n / seconds, p50Ms: percentile(ms, 50), p95Ms: percentile(ms, 95), backends };
}

/** The email GIN indexes a search reads: the sender trigrams and the day-windowed word and stem documents. */
export const EMAIL_GINS = ['email_messages_from', 'email_messages_search_doc', 'email_messages_search_stem'];

/** Pages and tuples in each GIN's pending list (pgstattuple's pgstatginindex), or null where the extension is missing. */
export async function pendingLists(db: Db): Promise<Record<string, { pages: number; tuples: number }> | null> {
  const [has] = await db.query(`SELECT 1 FROM pg_available_extensions WHERE name = 'pgstattuple'`);
  if (!has) return null;
  await db.query('CREATE EXTENSION IF NOT EXISTS pgstattuple');
  const out: Record<string, { pages: number; tuples: number }> = {};
  for (const index of EMAIL_GINS) {
    const r = one(
      await db.query<{ pending_pages: number; pending_tuples: string }>('SELECT pending_pages, pending_tuples FROM pgstatginindex($1::regclass)', [index]),
    );
    out[index] = { pages: Number(r.pending_pages), tuples: Number(r.pending_tuples) };
  }
  return out;
}
