import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { METHOD_HANDLERS, READ_HANDLERS } from '../domain/deployed.js';
import { buildOpenApi } from '../protocol/openapi.js';

/** swagger-ui-dist's files served under /docs/assets/: the renderer runs from this server, no CDN. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Workspace operations API</title>
    <link rel="stylesheet" type="text/css" href="/docs/assets/swagger-ui.css">
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/assets/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/docs/assets/swagger-ui-standalone-preset.js" charset="UTF-8"></script>
    <script src="/docs/init.js" charset="UTF-8"></script>
  </body>
</html>
`;

// A separate script rather than an inline one, so a strict Content-Security-Policy can still allow the page.
const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    layout: 'StandaloneLayout',
    validatorUrl: null,
  });
};
`;

/**
 * The docs page's policy: scripts only from this server's files (the bundle, the preset, init.js; no eval, no inline
 * script), the document fetched from here, nothing framed or posted. The renderer (React) sets style attributes and
 * its stylesheet draws icons as data: images, so inline styles and data: images are allowed; nothing else.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** GET /api/v1/openapi.json (the contract is public: no credential) and the docs page at GET /docs. */
export async function docsRoutes(app: FastifyInstance) {
  // Built once, on first request (not at start-up, where it would cost every cold start about 0.1 s): the
  // registry and the contracts do not change while the process runs.
  let document: string | undefined;
  const openApi = () => (document ??= JSON.stringify(buildOpenApi({ serverUrl: '/', methods: METHOD_HANDLERS, reads: READ_HANDLERS })));
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(dist, name)) }]));
  const config = { rateLimit: false } as const;

  app.get('/api/v1/openapi.json', { config }, (_req, reply) => reply.type('application/json; charset=utf-8').send(openApi()));
  app.get('/docs', { config }, (_req, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .header('content-security-policy', DOCS_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('x-frame-options', 'DENY')
      .send(PAGE),
  );
  app.get('/docs/init.js', { config }, (_req, reply) => reply.type('application/javascript; charset=utf-8').send(INIT));
  app.get<{ Params: { file: string } }>('/docs/assets/:file', { config }, (req, reply) => {
    const asset = assets.get(req.params.file);
    if (!asset) return reply.callNotFound();
    return reply.type(asset.type).header('cache-control', 'public, max-age=86400').send(asset.body);
  });
}
