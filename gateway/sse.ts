import type { ServerResponse } from 'node:http';

/** Open a Server-Sent Events response: no caching, no proxy buffering (nginx), kept alive. */
export function startEventStream(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    'x-accel-buffering': 'no',
    'x-content-type-options': 'nosniff',
    connection: 'keep-alive',
  });
}
