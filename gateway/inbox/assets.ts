import { importMap, pageShell } from '../web-assets.js';

/** The inbox's page: web/inbox/ (plain ES modules, no build step) and the shared vendor modules. */

export const IMPORT_MAP = importMap('/approvals');

/** The one page: every inbox URL (/approvals, /approvals/<id>) serves it and the app routes in the browser. */
export const PAGE = pageShell({
  base: '/approvals',
  title: 'Approval inbox',
  css: 'inbox.css',
  map: IMPORT_MAP,
  icon: '/approvals/assets/icon.svg',
  main: `<main class="narrow"><h1>Approval inbox</h1><p id="loading">Loading…</p>
        <noscript><p>The approval inbox needs JavaScript. Approvals can also be decided over the API (approval.resolve).</p></noscript>
      </main>`,
});
