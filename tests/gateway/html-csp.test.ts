import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../helpers/harness.js';

/*
 * Every HTML page the server serves carries a Content-Security-Policy: the test walks every GET route the gateway
 * registers (path parameters filled in), with and without a key, and checks each answer typed text/html, the pages
 * themselves and their error pages alike. A new page without a policy fails here.
 */

/** The full paths of the app's GET routes, read from fastify's route tree. */
export function getRoutes(app: FastifyInstance): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    stack.length = m[1].length / 4;
    stack.push(m[2]);
    if (m[3]?.split(', ').includes('GET')) out.push(stack.join(''));
  }
  return out;
}

/** Pages, and the HTML answers of their routes, that must be found (so the walk cannot pass by finding none). */
const PAGES = ['/docs', '/join', '/approvals', '/approvals/:approvalId', '/share/:token', '/share/:token/f/:fileId', '/share/:token/f/:fileId/download'];

/** Well-formed values for path parameters whose routes check the form before answering. */
const SAMPLE: Record<string, string> = {
  approvalId: 'apr_0123456789abcdef',
  fileId: 'fil_0123456789abcdef',
  memberId: 'usr_0123456789abcdef',
  sha256: '0'.repeat(64),
};

let s: TestServer;
let base: string;
beforeAll(async () => {
  s = await testServer();
  await s.app.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(s.app.server.address() as { port: number }).port}`;
});
afterAll(() => s?.close());

describe('Content-Security-Policy on every HTML answer', () => {
  it('walks every GET route: each text/html answer has a policy that allows no inline script and no framing', async () => {
    const routes = getRoutes(s.app);
    expect(routes.length).toBeGreaterThan(20);
    const html: string[] = [];
    for (const route of routes) {
      const path = route.replace(/:([A-Za-z]+)/g, (_, name: string) => SAMPLE[name] ?? 'x1').replace(/\*$/, 'x1');
      for (const key of [undefined, s.org.adminKey]) {
        // Headers only: an event stream never ends, so the body is not read.
        const res = await fetch(`${base}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {}, signal: AbortSignal.timeout(10_000) });
        await res.body?.cancel();
        if (!/^text\/html/i.test(res.headers.get('content-type') ?? '')) continue;
        html.push(route);
        const csp = res.headers.get('content-security-policy') ?? '';
        expect(csp, `${route} (${res.status})`).toMatch(/default-src 'none'/);
        expect(csp, route).toMatch(/frame-ancestors 'none'/);
        const scripts = /script-src ([^;]*)/.exec(csp)?.[1] ?? "'none'";
        expect(scripts, route).not.toMatch(/'unsafe-inline'|'unsafe-eval'/);
        expect(res.headers.get('x-content-type-options'), route).toBe('nosniff');
      }
    }
    expect([...new Set(html)].sort()).toEqual(expect.arrayContaining(PAGES));
  });
});
