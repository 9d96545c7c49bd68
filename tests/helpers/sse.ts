import { request as httpRequest, type IncomingMessage } from 'node:http';

/** An open Server-Sent Events response and the events it has delivered so far. */
export interface EventStream {
  res: IncomingMessage;
  events: { event: string; data: any }[];
  /** The first event named `event` whose data matches, within `ms` (default 5 s). */
  next(event: string, pred?: (data: any) => boolean, ms?: number): Promise<any>;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** One Server-Sent Events block: its event name, id and data lines, and its comments. */
export interface SseBlock {
  event?: string;
  id?: string;
  data?: string;
  comments: string[];
}

/** A parser fed the text as it arrives: returns the blocks each chunk completes (blocks end at a blank line). */
export function sseParser(): (chunk: string) => SseBlock[] {
  let buffer = '';
  return (chunk) => {
    buffer += chunk;
    const blocks: SseBlock[] = [];
    let cut: number;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const block: SseBlock = { comments: [] };
      for (const line of buffer.slice(0, cut).split('\n')) {
        if (line.startsWith(':')) block.comments.push(line.slice(1).trim());
        else if (line.startsWith('event: ')) block.event = line.slice(7);
        else if (line.startsWith('id: ')) block.id = line.slice(4);
        else if (line.startsWith('data: ')) block.data = line.slice(6);
      }
      buffer = buffer.slice(cut + 2);
      blocks.push(block);
    }
    return blocks;
  };
}

/** GET an event stream (the approval inbox's, with a session cookie) and collect its events as they come. */
export function openEventStream(url: string, cookie: string, label = url): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers: { cookie, accept: 'text/event-stream' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        return reject(new Error(`stream ${label}: ${res.statusCode}`));
      }
      const events: { event: string; data: any }[] = [];
      const waiters: (() => void)[] = [];
      const parse = sseParser();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        for (const { event, data } of parse(chunk)) {
          if (event) events.push({ event, data: data ? JSON.parse(data) : null });
          for (const w of waiters.splice(0)) w();
        }
      });
      const ended = new Promise<void>((done) => res.on('end', done));
      const next = (event: string, pred: (d: any) => boolean = () => true, ms = 5000) =>
        new Promise<any>((done, fail) => {
          const timer = setTimeout(() => fail(new Error(`no ${event} event on ${label} within ${ms} ms; got ${JSON.stringify(events)}`)), ms);
          const check = () => {
            const hit = events.find((e) => e.event === event && pred(e.data));
            if (hit) {
              clearTimeout(timer);
              done(hit.data);
            } else waiters.push(check);
          };
          check();
        });
      resolve({ res, events, next, ended, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}
