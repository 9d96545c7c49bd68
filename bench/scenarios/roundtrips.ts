import pg from 'pg';
import { createRuntime } from '../../domain/deployed.js';
import type { BenchOrg } from '../fixture.js';
import { createTaskDirect } from './mutations.js';
import { openPostgres } from '../../db/postgres.js';

/**
 * What one call costs the database, counted on the wire side of node-postgres: every statement the call
 * sends, and every round trip (a statement sent while nothing is in flight on its connection, i.e. the
 * caller had to wait for an answer before it could send it; statements pipelined behind one in flight
 * ride the same round trip). Counted in this process with the server's own pipeline (domain/core/pipeline.ts,
 * the code behind POST /api/v1/:method) on the bench database, one call at a time.
 */
export interface CallCost {
  roundTrips: number;
  statements: number;
  /** Each statement's first words, in order; `|` joins statements sent in one round trip. */
  trace: string[];
  /** Each statement as sent: its text and parameter values (bench/scenarios/pgbench.ts replays them). */
  sent: SentStatement[];
}

export interface SentStatement {
  text: string;
  values: readonly unknown[];
}

type Counting = CallCost;
let counting: Counting | null = null;

const clientProto = pg.Client.prototype as unknown as {
  query: (this: any, config: unknown, values?: unknown, cb?: unknown) => unknown;
};
const originalQuery = clientProto.query;
clientProto.query = function (this: any, config: unknown, values?: unknown, cb?: unknown) {
  if (counting) {
    const text = typeof config === 'string' ? config : String((config as { text?: string })?.text ?? '');
    const inFlight = Boolean(this._activeQuery) || this._queryQueue.length > 0 || (this._sentQueryQueue?.length ?? 0) > 0;
    const words = text.trim().replace(/\s+/g, ' ').split(' ').slice(0, 3).join(' ');
    counting.statements++;
    counting.sent.push({ text, values: (Array.isArray(values) ? values : ((config as { values?: unknown[] })?.values ?? [])) as unknown[] });
    if (!this.pipeline || !inFlight) {
      counting.roundTrips++;
      counting.trace.push(words);
    } else {
      counting.trace[counting.trace.length - 1] += ` | ${words}`;
    }
  }
  return originalQuery.call(this, config, values, cb);
};

async function measure(fn: () => Promise<void>): Promise<CallCost> {
  counting = { roundTrips: 0, statements: 0, trace: [], sent: [] };
  try {
    await fn();
    return { ...counting };
  } finally {
    counting = null;
  }
}

export interface RoundTripReport {
  firstExecution: CallCost;
  replay: CallCost;
  withoutKey: CallCost;
  directSql: CallCost;
}

/** board.createTask through the pipeline: with a fresh key, replaying that key, and with no key; and the direct-SQL baseline's transaction. */
export async function countRoundTrips(databaseUrl: string, org: BenchOrg, runId: string): Promise<RoundTripReport> {
  const runtime = await createRuntime({ databaseUrl, poolSize: 2 });
  const db = openPostgres(databaseUrl, { poolSize: 2 });
  try {
    const call = async (key: string | undefined, replayExpected: boolean) => {
      const out = await runtime.pipeline.call({
        method: 'board.createTask',
        params: { title: 'Round trip probe', priority: 'normal' },
        apiKey: org.key,
        idempotencyKey: key,
      });
      if (!out.frame.ok || out.replayed !== replayExpected) throw new Error(`round-trip probe: unexpected outcome ${out.body}`);
    };
    // Warm both pools (connection set-up is not a per-call cost).
    await call(`${runId}-rt-warm`, false);
    await createTaskDirect(db, org, `${runId}-rt-warm-direct`, 0);
    const firstExecution = await measure(() => call(`${runId}-rt-1`, false));
    const replay = await measure(() => call(`${runId}-rt-1`, true));
    const withoutKey = await measure(() => call(undefined, false));
    const directSql = await measure(() => createTaskDirect(db, org, `${runId}-rt-direct`, 1));
    return { firstExecution, replay, withoutKey, directSql };
  } finally {
    await db.close();
    await runtime.close();
  }
}
