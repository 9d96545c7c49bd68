import { importMap, loadAssets as loadPage, pageCsp, type Asset } from '../web-assets.js';

/** The inbox's browser files: web/inbox/ (plain ES modules, no build step) and the shared vendor modules. */

export type { Asset };

export const loadAssets = () => loadPage('inbox');

const IMPORT_MAP = importMap('/approvals');

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

export const CSP = pageCsp(IMPORT_MAP);
