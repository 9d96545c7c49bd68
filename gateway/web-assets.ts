import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { fromProjectRoot } from '../db/project-root.js';
import type { BlobMeta, BlobService } from '../blobs/index.js';

/**
 * The browser pages' files (web/<page>/ at the project root: plain ES modules, no build step), read once at start,
 * and the front-end stack every page shares straight from node_modules (Preact, htm, canonicalize), so the pages
 * need no CDN and work offline.
 */

export interface Asset {
  type: string;
  body: Buffer;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

const require = createRequire(import.meta.url);
/** A package's folder, found along Node's module lookup paths (package.json is not in every package's exports). */
function packageDir(name: string): string {
  for (const base of require.resolve.paths(name) ?? []) {
    const dir = join(base, name);
    if (existsSync(join(dir, 'package.json'))) return dir;
  }
  throw new Error(`the browser pages need the npm package ${name}: run npm install`);
}

/** Bare specifier -> [package, file inside it]. A page's import map points each at <page>/vendor/<name>. */
const VENDOR: Record<string, { file: string; from: [pkg: string, path: string] }> = {
  preact: { file: 'preact.mjs', from: ['preact', 'dist/preact.mjs'] },
  'preact/hooks': { file: 'preact-hooks.mjs', from: ['preact', 'hooks/dist/hooks.mjs'] },
  htm: { file: 'htm.mjs', from: ['htm', 'dist/htm.mjs'] },
  'htm/preact': { file: 'htm-preact.mjs', from: ['htm', 'preact/index.mjs'] },
  canonicalize: { file: 'canonicalize.js', from: ['canonicalize', 'lib/canonicalize.js'] },
};

/** The folder of one page's app: web/<page>. */
export const webDir = (page: string) => fromProjectRoot('web', page);

/** A page's own files (web/<page>/*), the pages' shared files (web/shared/*: base.css) and the shared vendor modules. */
export function loadAssets(page: string): { app: Map<string, Asset>; vendor: Map<string, Asset> } {
  const app = new Map<string, Asset>();
  for (const dir of [webDir('shared'), webDir(page)]) {
    for (const name of readdirSync(dir)) {
      const type = TYPES[extname(name)];
      if (type) app.set(name, { type, body: readFileSync(join(dir, name)) });
    }
  }
  const vendor = new Map<string, Asset>();
  for (const { file, from } of Object.values(VENDOR)) {
    // Source maps are not served: a page asking for one gets a 404 and the devtools say so.
    const text = readFileSync(join(packageDir(from[0]), from[1]), 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n');
    vendor.set(file, { type: TYPES['.mjs'], body: Buffer.from(text) });
  }
  return { app, vendor };
}

/** The import map of a page served under `base` (/approvals, /join): its only inline script. */
export const importMap = (base: string) =>
  JSON.stringify({ imports: Object.fromEntries(Object.entries(VENDOR).map(([spec, v]) => [spec, `${base}/vendor/${v.file}`])) });

/**
 * The HTML every page starts as (/approvals, /join, /room): light scheme, the shared base stylesheet then the page's
 * own, its import map and app, and the `main` shown until the app renders (its noscript line included).
 */
export function pageShell(p: { base: string; title: string; css: string; map: string; meta?: string[]; icon?: string; main: string }): string {
  const head = [
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light">',
    ...(p.meta ?? []),
    `<title>${p.title}</title>`,
    ...(p.icon ? [`<link rel="icon" href="${p.icon}" type="image/svg+xml">`] : []),
    `<link rel="stylesheet" href="${p.base}/assets/base.css">`,
    `<link rel="stylesheet" href="${p.base}/assets/${p.css}">`,
    `<script type="importmap">${p.map}</script>`,
    `<script type="module" src="${p.base}/assets/app.js"></script>`,
  ];
  return `<!DOCTYPE html>
<html lang="en">
  <head>
${head.map((line) => `    ${line}`).join('\n')}
  </head>
  <body>
    <div id="app">
      ${p.main}
    </div>
  </body>
</html>
`;
}

/**
 * A page's routes: GET <base> (the shell, framed by no one, with its policy and `cache`), <base>/assets/:file and
 * <base>/vendor/:file (its files), none rate-limited. Returns the page's sender for its other URLs (/approvals/<id>).
 */
export function pageRoutes(
  app: FastifyInstance,
  p: { base: string; page: string; html: string; map: string; cache: 'no-store' | 'no-cache'; headers?: Record<string, string> },
): (reply: FastifyReply) => FastifyReply {
  const assets = loadAssets(p.page);
  const csp = pageCsp(p.map);
  const noLimit = { rateLimit: false } as const;
  const sendPage = (reply: FastifyReply) => {
    for (const [name, value] of Object.entries(p.headers ?? {})) reply.header(name, value);
    return reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('x-frame-options', 'DENY')
      .header('cache-control', p.cache)
      .send(p.html);
  };
  const sendAsset = (reply: FastifyReply, asset: Asset | undefined) => {
    if (!asset) return reply.callNotFound();
    return reply.type(asset.type).header('x-content-type-options', 'nosniff').header('cache-control', 'no-cache').send(asset.body);
  };
  app.get(p.base, { config: noLimit }, (_req, reply) => sendPage(reply));
  app.get<{ Params: { file: string } }>(`${p.base}/assets/:file`, { config: noLimit }, (req, reply) => sendAsset(reply, assets.app.get(req.params.file)));
  app.get<{ Params: { file: string } }>(`${p.base}/vendor/:file`, { config: noLimit }, (req, reply) => sendAsset(reply, assets.vendor.get(req.params.file)));
  return sendPage;
}

/** The policy of a page: its own files, and exactly its import map among inline scripts (by hash). */
export function pageCsp(map: string): string {
  const hash = createHash('sha256').update(map).digest('base64');
  return [
    "default-src 'none'",
    `script-src 'self' 'sha256-${hash}'`,
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * CSRF, first line, for a page's state-changing requests: they must come from the page's own origin. Browsers send
 * Origin on every cross-origin and same-origin POST/DELETE (and Sec-Fetch-Site where supported).
 */
export function sameOrigin(req: FastifyRequest, publicOrigin: string): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = req.headers.origin;
  if (!origin) return false;
  const host = req.headers.host;
  return origin === publicOrigin || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`));
}

/** A guest page's file download: the blob as an attachment under its name, sandboxed so it never runs as a page. */
export async function sendAttachment(reply: FastifyReply, blobs: BlobService, meta: BlobMeta, name: string): Promise<FastifyReply> {
  const stream = await blobs.open(meta);
  return reply
    .header('content-security-policy', "default-src 'none'; sandbox")
    .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(name)}`)
    .header('content-length', String(meta.size))
    .type(meta.contentType)
    .send(stream);
}
