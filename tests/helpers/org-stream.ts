import { request as httpRequest, type IncomingMessage } from 'node:http';
import { sseParser } from './sse.js';

/** One frame of GET /api/v1/org/stream: its id (the seq) and the event. */
export interface OrgFrame {
  id: number;
  data: any;
}

/** An open org stream: its frames and comment lines so far, as they come. */
export interface OrgStream {
  res: IncomingMessage;
  frames: OrgFrame[];
  comments: string[];
  /** Resolves when `pred` holds of what has arrived (checked on every block), within `ms` (default 10 s). */
  until(pred: () => boolean, what: string, ms?: number): Promise<void>;
  /** The last `id:` seen (what a client sends as Last-Event-ID), or undefined. */
  lastId(): number | undefined;
  ended: Promise<void>;
  close(): void;
}

export interface OpenOptions {
  lastEventId?: number;
  query?: Record<string, string | number>;
  /** Stop reading the socket once this many frames came (a client that stops reading); res.resume() reads on. */
  pauseAfter?: number;
}

/** GET /api/v1/org/stream with a bearer key; rejects with the status and body when it is not 200. */
export function openOrgStream(base: string, key: string, opts: OpenOptions = {}): Promise<OrgStream> {
  const qs = new URLSearchParams(Object.entries(opts.query ?? {}).map(([k, v]): [string, string] => [k, String(v)])).toString();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}`, accept: 'text/event-stream' };
    if (opts.lastEventId !== undefined) headers['last-event-id'] = String(opts.lastEventId);
    const req = httpRequest(`${base}/api/v1/org/stream${qs ? `?${qs}` : ''}`, { headers }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => reject(Object.assign(new Error(`stream: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
        return;
      }
      const frames: OrgFrame[] = [];
      const comments: string[] = [];
      const waiters = new Set<() => void>();
      let last: number | undefined;
      let paused = false;
      const parse = sseParser();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        for (const block of parse(chunk)) {
          comments.push(...block.comments);
          const id = block.id === undefined ? undefined : Number(block.id);
          if (id !== undefined) last = id;
          if (block.data !== undefined) frames.push({ id: id ?? NaN, data: JSON.parse(block.data) });
        }
        for (const w of [...waiters]) w();
        if (opts.pauseAfter !== undefined && frames.length >= opts.pauseAfter && !paused) {
          paused = true;
          res.pause();
        }
      });
      const ended = new Promise<void>((done) => {
        res.on('end', done);
        res.on('close', done);
      });
      const until = (pred: () => boolean, what: string, ms = 10_000) =>
        new Promise<void>((done, fail) => {
          const check = () => {
            if (!pred()) return;
            clearTimeout(timer);
            waiters.delete(check);
            done();
          };
          const timer = setTimeout(() => {
            waiters.delete(check);
            fail(new Error(`stream: not ${what} within ${ms} ms; ${frames.length} frames, comments ${JSON.stringify(comments.slice(-5))}`));
          }, ms);
          waiters.add(check);
          check();
        });
      resolve({ res, frames, comments, until, lastId: () => last, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
