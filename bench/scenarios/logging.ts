import { perCallUs } from '../cpu.js';
import type { Row } from '../report.js';
import type { BenchContext } from '../fixture.js';
import { startServer } from '../server.js';
import { createTaskOverHttp } from './mutations.js';
import { withCpu } from './physical.js';

/**
 * What request logging costs a call: board.createTask across the orgs against servers at LOG_LEVEL=info with each
 * LOG_REQUESTS mode, in turn and twice over (modes interleaved, so the machine's other load falls on each alike),
 * each server a fresh process on the bench database with its stdout discarded. Server CPU per call from /proc.
 */
const MODES = ['full', 'line', 'off'] as const;

export interface LoggingCost {
  mode: (typeof MODES)[number];
  perSecond: number;
  serverUsPerCall: number | null;
  postgresUsPerCall: number | null;
}

export async function loggingCost(ctx: BenchContext, opts: { url: string; database: string; pool: number; rounds?: number }): Promise<LoggingCost[]> {
  const out: LoggingCost[] = [];
  for (let round = 0; round < (opts.rounds ?? 2); round++) {
    for (const mode of MODES) {
      const server = await startServer({ env: { DATABASE_URL: opts.url, PG_POOL_SIZE: String(opts.pool), LOG_LEVEL: 'info', LOG_REQUESTS: mode } });
      try {
        const target = { ...ctx, baseUrl: server.baseUrl };
        await createTaskOverHttp(target, ctx.orgs, `log-${mode}-${round}-warm`, 2);
        const r = await withCpu(server.pid, opts.database, () => createTaskOverHttp(target, ctx.orgs, `log-${mode}-${round}`));
        out.push({
          mode,
          perSecond: r.perSecond,
          serverUsPerCall: perCallUs(r.cpu.serverMs, r.total),
          postgresUsPerCall: perCallUs(r.cpu.postgresMs, r.total),
        });
      } finally {
        await server.stop();
      }
    }
  }
  return out;
}

const mean = (xs: (number | null)[]) => {
  const got = xs.filter((x): x is number => x !== null);
  return got.length ? got.reduce((a, b) => a + b, 0) / got.length : null;
};

export function loggingRows(results: LoggingCost[]): Row[] {
  const of = (mode: string) => results.filter((r) => r.mode === mode);
  const full = { cpu: mean(of('full').map((r) => r.serverUsPerCall)), rate: mean(of('full').map((r) => r.perSecond)) };
  return MODES.flatMap((mode): Row[] => {
    const cpu = mean(of(mode).map((r) => r.serverUsPerCall));
    const rate = mean(of(mode).map((r) => r.perSecond))!;
    const scenario = `1b createTask, LOG_REQUESTS=${mode}`;
    return [
      ...(cpu !== null && full.cpu !== null
        ? [
            {
              scenario,
              metric: 'server CPU/call',
              unit: 'µs',
              product: cpu,
              baseline: full.cpu,
              baselineLabel: 'full',
              ratio: cpu / full.cpu,
              target: '',
              met: null,
            },
          ]
        : []),
      { scenario, metric: 'req/s', unit: '/s', product: rate, baseline: full.rate, baselineLabel: 'full', ratio: rate / full.rate!, target: '', met: null },
    ];
  });
}
