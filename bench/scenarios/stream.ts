import { request } from 'node:http';
import type { BenchOrg } from '../fixture.js';
import { rpc } from '../fixture.js';
import { percentile } from '../measure.js';

export interface StreamLatency {
  streams: number;
  events: number;
  /** Frames received in all (streams × events when nothing is lost). */
  frames: number;
  /** From the append (the event's `at`, stamped by the database in the append statement, before COMMIT) to the frame. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** Wall-clock ms with sub-ms precision, comparable with the database's `at` on the same machine. */
const wallMs = () => performance.timeOrigin + performance.now();

interface OpenStream {
  close(): void;
}

/** One GET /api/v1/org/stream on a socket of its own; calls onFrame(seq, latencyMs) per frame. */
function openStream(baseUrl: string, key: string, onFrame: (seq: number, ms: number) => void): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/api/v1/org/stream`, { agent: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream: ${res.statusCode}`));
      let buffer = '';
      let live = false;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = wallMs();
        buffer += chunk;
        let cut: number;
        while ((cut = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          if (!live && block.startsWith(': live after')) {
            live = true;
            resolve({ close: () => req.destroy() });
          }
          const id = /^id: (\d+)$/m.exec(block);
          const at = /"at":"([^"]+)"/.exec(block);
          if (id && at) onFrame(Number(id[1]), now - Date.parse(at[1]));
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Commit-to-frame latency: `streams` streams of one org open on streamUrl, then `events` createTask calls one at a
 * time (a pause between, so each is measured alone) through appendUrl, the same process or another one.
 */
export async function streamLatency(opts: {
  appendUrl: string;
  streamUrl: string;
  org: BenchOrg;
  streams: number;
  events: number;
  tag: string;
  /** The i-th appending call (default board.createTask through appendUrl). */
  append?: (i: number) => Promise<unknown>;
}): Promise<StreamLatency> {
  const latencies: number[] = [];
  const perStream = new Array<number>(opts.streams).fill(0);
  const open: OpenStream[] = [];
  try {
    for (let s = 0; s < opts.streams; s += 50) {
      const batch = Array.from({ length: Math.min(50, opts.streams - s) }, (_, j) =>
        openStream(opts.streamUrl, opts.org.key, (_seq, ms) => {
          perStream[s + j]++;
          latencies.push(ms);
        }),
      );
      open.push(...(await Promise.all(batch)));
    }
    for (let i = 0; i < opts.events; i++) {
      if (opts.append) await opts.append(i);
      else await rpc(opts.appendUrl, opts.org.key, 'board.createTask', { title: `Stream bench ${i}`, priority: 'normal' }, `${opts.tag}-${i}`);
      const target = (i + 1) * opts.streams;
      const until = performance.now() + 10_000;
      while (latencies.length < target && performance.now() < until) await new Promise((r) => setTimeout(r, 1));
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    for (const s of open) s.close();
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    streams: opts.streams,
    events: opts.events,
    frames: latencies.length,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    maxMs: sorted[sorted.length - 1] ?? 0,
  };
}
