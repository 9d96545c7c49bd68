import autocannon from 'autocannon';

/** One throughput measurement: requests (or transactions) per second and latency percentiles in ms. */
export interface Throughput {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  failed: number;
}

export interface HttpRequestSpec {
  method: 'GET' | 'POST';
  path: string;
  /** Called for every request: i counts requests across all connections. */
  build(i: number): { headers: Record<string, string>; body?: string; path?: string };
  /** A 2xx answer that is still a failure (an MCP tool error travels in a 200): return false to count it failed. */
  check?(body: string): boolean;
}

/** autocannon against a running server; non-2xx answers, errors and timeouts are counted as failed. */
export async function httpLoad(baseUrl: string, spec: HttpRequestSpec, opts: { connections: number; seconds: number }): Promise<Throughput> {
  let i = 0;
  let refused = 0;
  let firstRefused = '';
  const check = spec.check;
  const result = await autocannon({
    url: baseUrl,
    connections: opts.connections,
    duration: opts.seconds,
    requests: [
      {
        method: spec.method,
        path: spec.path,
        setupRequest: (req) => {
          const built = spec.build(i++);
          return { ...req, headers: built.headers, body: built.body, path: built.path ?? spec.path };
        },
        ...(check
          ? {
              onResponse: (status: number, body: string) => {
                if (status >= 200 && status < 300 && !check(body) && refused++ === 0) firstRefused = body.slice(0, 300);
              },
            }
          : {}),
      },
    ],
  });
  const total = result.requests.total;
  const failed = result.non2xx + result.errors + result.timeouts + refused;
  // A figure made of error answers would be meaningless: stop the run instead.
  if (failed > 0) {
    throw new Error(
      `${spec.method} ${spec.path}: ${failed} of ${total} requests failed (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}, refused by check ${refused}${firstRefused ? `: ${firstRefused}` : ''})`,
    );
  }
  return {
    perSecond: total / (result.duration || opts.seconds),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    total,
    failed,
  };
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

/** A closed loop of `workers` concurrent callers of `op` for `seconds`: the in-process baseline. */
export async function closedLoop(op: (i: number) => Promise<void>, opts: { workers: number; seconds: number }): Promise<Throughput> {
  const latencies: number[] = [];
  let i = 0;
  let failed = 0;
  const started = performance.now();
  const end = started + opts.seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t = performance.now();
      try {
        await op(i++);
        latencies.push(performance.now() - t);
      } catch (err) {
        if (failed++ === 0) process.stderr.write(`baseline error: ${(err as Error).message}\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: opts.workers }, worker));
  const elapsed = (performance.now() - started) / 1000;
  if (failed > 0) throw new Error(`baseline: ${failed} of ${failed + latencies.length} operations failed`);
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    total: latencies.length,
    failed,
  };
}

export interface Latencies {
  p50Ms: number;
  p95Ms: number;
  samples: number;
}

/** `n` calls of `op`, one at a time (no load beside it): p50 and p95 of their wall times. */
export async function latencies(n: number, op: (i: number) => Promise<void>): Promise<Latencies> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op(i);
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50Ms: percentile(ms, 50), p95Ms: percentile(ms, 95), samples: n };
}
