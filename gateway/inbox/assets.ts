import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname, join } from 'node:path';
import { fromProjectRoot } from '../../db/project-root.js';

/**
 * The inbox's browser files, read once at start: the app (`inbox/` at the project root, plain ES modules, no
 * build step) and the vendored front-end stack straight from node_modules (Preact, htm, canonicalize), so the
 * page needs no CDN and works offline.
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
  throw new Error(`the approval inbox needs the npm package ${name}: run npm install`);
}

/** Bare specifier -> [package, file inside it]. The import map below points each at /approvals/vendor/<name>. */
const VENDOR: Record<string, { file: string; from: [pkg: string, path: string] }> = {
  preact: { file: 'preact.mjs', from: ['preact', 'dist/preact.mjs'] },
  'preact/hooks': { file: 'preact-hooks.mjs', from: ['preact', 'hooks/dist/hooks.mjs'] },
  htm: { file: 'htm.mjs', from: ['htm', 'dist/htm.mjs'] },
  'htm/preact': { file: 'htm-preact.mjs', from: ['htm', 'preact/index.mjs'] },
  canonicalize: { file: 'canonicalize.js', from: ['canonicalize', 'lib/canonicalize.js'] },
};

export const APP_DIR = fromProjectRoot('inbox');

export function loadAssets(): { app: Map<string, Asset>; vendor: Map<string, Asset> } {
  const app = new Map<string, Asset>();
  for (const name of readdirSync(APP_DIR)) {
    const type = TYPES[extname(name)];
    if (type) app.set(name, { type, body: readFileSync(join(APP_DIR, name)) });
  }
  const vendor = new Map<string, Asset>();
  for (const { file, from } of Object.values(VENDOR)) {
    // Source maps are not served: a page asking for one gets a 404 and the devtools say so.
    const text = readFileSync(join(packageDir(from[0]), from[1]), 'utf8').replace(/\n?\/\/# sourceMappingURL=\S+\s*$/, '\n');
    vendor.set(file, { type: TYPES['.mjs'], body: Buffer.from(text) });
  }
  return { app, vendor };
}

const IMPORT_MAP = JSON.stringify({ imports: Object.fromEntries(Object.entries(VENDOR).map(([spec, v]) => [spec, `/approvals/vendor/${v.file}`])) });

/** The one page: every inbox URL (/approvals, /approvals/<id>) serves it and the app routes in the browser. */
export const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <meta name="color-scheme" content="light">
    <title>Approval inbox</title>
    <link rel="icon" href="/approvals/assets/icon.svg" type="image/svg+xml">
    <link rel="stylesheet" href="/approvals/assets/inbox.css">
    <script type="importmap">${IMPORT_MAP}</script>
    <script type="module" src="/approvals/assets/app.js"></script>
  </head>
  <body>
    <div id="app">
      <main class="narrow"><h1>Approval inbox</h1><p id="loading">Loading…</p>
        <noscript><p>The approval inbox needs JavaScript. Approvals can also be decided over the API (approval.resolve).</p></noscript>
      </main>
    </div>
  </body>
</html>
`;

/** The import map is the page's only inline script: the policy allows exactly it, by hash. */
const importMapHash = createHash('sha256').update(IMPORT_MAP).digest('base64');

export const CSP = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${importMapHash}'`,
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');
