import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../protocol/errors.js';
import type { Runtime } from '../domain/deployed.js';
import { toErrorFrame } from '../domain/core/errors.js';
import { guestDownload, guestPage, type GuestFile, type GuestPage } from '../domain/files/guest.js';
import { sendAttachment } from './web-assets.js';

/*
 * The guest page of an email share (docs/families/files.md): read-only, no account, no script.
 *   GET /share/<token>                       the shared file (a folder lists what the grant reaches)
 *   GET /share/<token>/f/<fileId>            a file below a shared folder
 *   GET /share/<token>/f/<fileId>/download   an upload's bytes (a ledger event each)
 * The token is a bearer credential in the path: request logs redact it (gateway/app.ts redactUrl), pages send no
 * Referer, and nothing is cached. Revoked, expired or unknown links answer one 404.
 */

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.4rem;word-break:break-word}ul,ol{padding-left:1.4rem}.meta{color:#555;font-size:.9rem}
pre{white-space:pre-wrap;word-break:break-word;background:#f6f6f6;padding:1rem;border-radius:6px}
article{border-top:1px solid #ddd;margin-top:1rem;overflow-wrap:anywhere}article h1{font-size:1.3rem}article h2{font-size:1.15rem}
article h3,article h4,article h5,article h6{font-size:1rem}blockquote{margin:0;padding-left:1rem;border-left:3px solid #ccc;color:#444}
code{background:#f6f6f6;padding:0 .2rem;border-radius:3px}pre code{padding:0}.image{color:#555;font-style:italic}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}`;
const CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function size(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

function html(title: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><meta name="robots" content="noindex"><title>${escape(title)}</title><style>${STYLE}</style></head>
<body><main>${body}</main></body></html>
`;
}

function render(token: string, page: GuestPage): string {
  const base = `/share/${encodeURIComponent(token)}`;
  const link = (f: GuestFile) => (f.id === page.grantFileId ? base : `${base}/f/${encodeURIComponent(f.id)}`);
  const f = page.file;
  const parts = [
    `<h1>${escape(f.name)}</h1>`,
    `<p class="meta">Shared with you, view only${page.expiresAt ? `, until ${escape(page.expiresAt.slice(0, 10))}` : ''}.</p>`,
  ];
  if (f.id !== page.grantFileId) parts.push(`<p><a href="${base}">Back to the shared item</a></p>`);
  if (f.kind === 'folder') {
    parts.push(
      page.children.length
        ? `<ul>${page.children.map((c) => `<li><a href="${link(c)}">${escape(c.name)}</a> <span class="meta">${c.kind === 'folder' ? 'folder' : c.kind === 'upload' ? size(c.sizeBytes) : c.kind}</span></li>`).join('')}</ul>`
        : '<p>This folder is empty.</p>',
    );
  } else if (f.kind === 'upload') {
    parts.push(
      `<p class="meta">${escape(f.contentType ?? 'file')}, ${size(f.sizeBytes)}</p>`,
      `<p><a href="${base}/f/${encodeURIComponent(f.id)}/download">Download</a></p>`,
    );
  } else if (page.html !== null) {
    // The kind's own rendering of its model: every text escaped when it was built (domain/files/docs/export.ts).
    parts.push(page.html.trim() ? `<article>\n${page.html}</article>` : '<p>This file is empty.</p>');
  } else {
    parts.push(page.text ? `<pre>${escape(page.text)}</pre>` : '<p>This file is empty.</p>');
  }
  return html(f.name, parts.join('\n'));
}

export async function shareRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { deps } = opts.runtime;

  const fail = (reply: FastifyReply, req: FastifyRequest, err: unknown) => {
    const { status, retryAfterSeconds } = toErrorFrame(err, deps.log, { requestId: req.id, method: 'GET /share' });
    if (retryAfterSeconds !== undefined) reply.header('retry-after', String(retryAfterSeconds));
    const message =
      status === 404
        ? 'This link is not valid: it may have expired or been revoked. Ask whoever shared the file for a new one.'
        : status === 429
          ? 'Too many requests: try again in a minute.'
          : 'Something went wrong: try again later.';
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(html('Shared file', `<h1>Shared file</h1><p>${message}</p>`));
  };

  const page = async (req: FastifyRequest, reply: FastifyReply, token: string, fileId: string | undefined) => {
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');
    reply.header('content-security-policy', CSP).header('x-frame-options', 'DENY').header('x-robots-tag', 'noindex');
    try {
      const view = await guestPage(deps, token, fileId, req.ip);
      return reply.type('text/html; charset=utf-8').send(render(token, view));
    } catch (err) {
      return fail(reply, req, err);
    }
  };

  app.get<{ Params: { token: string } }>('/share/:token', (req, reply) => page(req, reply, req.params.token, undefined));
  app.get<{ Params: { token: string; fileId: string } }>('/share/:token/f/:fileId', (req, reply) => page(req, reply, req.params.token, req.params.fileId));

  app.get<{ Params: { token: string; fileId: string } }>('/share/:token/f/:fileId/download', async (req, reply) => {
    reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-content-type-options', 'nosniff');
    try {
      if (!/^fil_[A-Za-z0-9]{1,60}$/.test(req.params.fileId)) throw new ApiError('NOT_FOUND', 'no such file');
      const { meta, name } = await guestDownload(deps, req.params.token, req.params.fileId, req.ip);
      return sendAttachment(reply, deps.blobs, meta, name);
    } catch (err) {
      reply.header('content-security-policy', CSP);
      return fail(reply, req, err);
    }
  });
}
