import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Pipeline } from '../domain/core/pipeline.js';
import { buildOpenApi } from '../protocol/openapi.js';
import { FAMILIES } from '../protocol/registry.js';

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

/** What /docs offers, one document per entry: the reads, then each family of the registry. */
const SECTIONS = ['reads', ...FAMILIES];

// A separate script rather than an inline one, so a strict Content-Security-Policy can still allow the page.
// One family at a time, with a filter box: the whole ~1.8 MB document took a browser 8 s to render and
// 6 s more to open one operation (measured in headless Chromium on 2 cores); one family's document opens at once.
const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    urls: ${JSON.stringify(SECTIONS.map((name) => ({ name, url: `/api/v1/openapi.json?family=${name}` })))},
    dom_id: '#swagger-ui',
    deepLinking: true,
    filter: true,
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

/**
 * GET /api/v1/openapi.json (the contract is public: no credential) and the docs page at GET /docs. The document
 * marks what this server's pipeline serves as deployed.
 */
export async function docsRoutes(app: FastifyInstance, opts: { pipeline: Pipeline }) {
  // Built once, on first request (not at start-up, where it would cost every cold start about 0.1 s): the
  // registry and the contracts do not change while the process runs.
  const documents = new Map<string, string>();
  const openApi = (family = '') => {
    let doc = documents.get(family);
    if (doc === undefined) {
      doc = JSON.stringify(buildOpenApi({ serverUrl: '/', methods: opts.pipeline.handlers, reads: opts.pipeline.reads, family: family || undefined }));
      documents.set(family, doc);
    }
    return doc;
  };
  const dist = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const assets = new Map(Object.entries(ASSETS).map(([name, type]) => [name, { type, body: readFileSync(join(dist, name)) }]));
  const config = { rateLimit: false } as const;

  app.get<{ Querystring: { family?: string } }>('/api/v1/openapi.json', { config }, (req, reply) => {
    const family = req.query.family;
    if (family !== undefined && !SECTIONS.includes(family)) {
      const message = `family: no family "${family}"; one of ${SECTIONS.join(', ')}, or no family for the whole API`;
      return reply.code(400).send({ ok: false, error: { code: 'BAD_REQUEST', message } });
    }
    return reply.type('application/json; charset=utf-8').send(openApi(family));
  });
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
