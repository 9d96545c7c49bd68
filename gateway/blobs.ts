import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../protocol/errors.js';
import { errorFrame, okFrame } from '../protocol/frames.js';
import { bearerFrom } from '../domain/core/auth.js';
import { toErrorFrame } from '../domain/core/errors.js';
import type { Runtime } from '../domain/deployed.js';
import { blobContentType, blobNotFound, parseSignedRecord, type BlobMeta, type ReadAccess } from '../blobs/service.js';
import { BlobMissingError, BlobTooLargeError, SHA256_HEX, type ByteRange } from '../blobs/store.js';

/*
 * PUT /api/v1/blobs: the raw bytes as the body, streamed to the store and hashed on the way (never buffered: this
 * plugin's only content-type parser hands the request stream through, so fastify's bodyLimit does not apply).
 * GET|HEAD /api/v1/blobs/<sha256>: the uploader's key while no record holds the blob, else a signed URL that the
 * record's read hands out. Range, ETag, conditional requests. Not registry methods: no ledger event (the record
 * that references a blob names its sha256 in its own event).
 */

/** A blob served from the API's own origin must never run as a page: sandboxed, never sniffed. */
const SAFE_INLINE = /^(image\/(png|jpeg|gif|webp|avif)|audio\/|video\/|application\/pdf|text\/plain)/i;

type Range = { kind: 'none' } | { kind: 'range'; range: ByteRange } | { kind: 'unsatisfiable' };

/** One `bytes=` range (RFC 9110 14.1.2); several ranges or another unit are ignored (the whole blob is sent). */
export function parseRange(header: string | undefined, size: number): Range {
  if (!header) return { kind: 'none' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'none' };
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'range', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (m[2] !== '' && Number(m[2]) < start) return { kind: 'none' }; // invalid: ignored, as RFC 9110 says
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'range', range: { start, end } };
}

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

function sendError(reply: FastifyReply, runtime: Runtime, req: FastifyRequest, err: unknown) {
  // Headers set for the bytes do not describe an error frame.
  for (const h of ['etag', 'accept-ranges', 'content-disposition', 'content-length', 'content-range', 'cache-control']) reply.removeHeader(h);
  reply.header('content-type', 'application/json; charset=utf-8');
  if (err instanceof BlobTooLargeError) {
    // The rest of the body is not read: close the connection after the answer rather than drain it.
    return reply.code(413).header('connection', 'close').send(errorFrame('BAD_REQUEST', err.message));
  }
  if (err instanceof BlobMissingError) err = blobNotFound(String((req.params as { sha256?: string }).sha256 ?? ''));
  const { status, frame } = toErrorFrame(err, runtime.deps.log, { requestId: req.id, method: `${req.method} /api/v1/blobs` });
  return reply.code(status).send(frame);
}

export async function blobRoutes(app: FastifyInstance, opts: { runtime: Runtime }) {
  const { runtime } = opts;
  const blobs = runtime.deps.blobs;

  // Every body reaches the handler as the request stream itself, whatever its Content-Type (the blob's own type).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_req, payload, done) => done(null, payload));

  app.put('/api/v1/blobs', async (req, reply) => {
    const body = (req.body as Readable | undefined) ?? Readable.from([]);
    try {
      // Who and what first, before a byte of the body is read.
      const principal = await runtime.pipeline.principalFor(bearerFrom(req.headers.authorization));
      const declared = one(req.headers['x-content-sha256'])?.trim().toLowerCase();
      if (declared !== undefined && declared !== 'unsigned-payload' && !SHA256_HEX.test(declared)) {
        throw new ApiError('BAD_REQUEST', 'x-content-sha256: the SHA-256 of the body as 64 hex digits');
      }
      const length = Number(req.headers['content-length'] ?? NaN);
      if (Number.isFinite(length) && length > blobs.config.maxBytes) throw new BlobTooLargeError(blobs.config.maxBytes);
      const result = await blobs.upload({
        orgId: principal.orgId,
        principalId: principal.id,
        body,
        contentType: blobContentType(req.headers['content-type']),
        declaredSha256: declared === 'unsigned-payload' ? undefined : declared,
      });
      return reply
        .code(result.created ? 201 : 200)
        .header('location', `/api/v1/blobs/${result.sha256}`)
        .header('etag', `"${result.sha256}"`)
        .send(okFrame({ sha256: result.sha256, size: result.size, contentType: result.contentType }));
    } catch (err) {
      // A client that went away mid-upload: nothing was kept; the answer below goes nowhere.
      if (req.raw.socket?.destroyed) req.log.info({ reason: (err as Error).message }, 'blob upload cut off by the client; nothing kept');
      // Refused before the body was read (no key, a bad header, too large): close rather than read and discard it.
      else if (!body.readableEnded) reply.header('connection', 'close');
      return sendError(reply, runtime, req, err);
    }
  });

  app.route<{ Params: { sha256: string }; Querystring: Record<string, string | undefined> }>({
    method: ['GET', 'HEAD'],
    url: '/api/v1/blobs/:sha256',
    exposeHeadRoute: false,
    handler: async (req, reply) => {
      try {
        const { sha256 } = req.params;
        if (!SHA256_HEX.test(sha256)) throw new ApiError('BAD_REQUEST', 'sha256: 64 lowercase hex digits');
        const { org, expires, sig, rec, as } = req.query;
        let access: ReadAccess;
        let maxAge = 0;
        if (sig !== undefined || org !== undefined || expires !== undefined) {
          // A signed URL stands alone: no key needed (an <img src>), bound to org + sha256, expiring; one bound to a
          // record (rec, and as: who it was issued to) is checked against that record at every download.
          if (!org || !expires || !sig || !/^\d{1,12}$/.test(expires)) throw blobNotFound(sha256);
          const record = rec === undefined && as === undefined ? undefined : parseSignedRecord(rec, as);
          if ((rec !== undefined || as !== undefined) && !record) throw blobNotFound(sha256);
          access = { kind: 'signed', orgId: org, expires: Number(expires), signature: sig, record };
          maxAge = blobs.signatureValidFor(org, sha256, Number(expires), sig, record);
        } else {
          const principal = await runtime.pipeline.principalFor(bearerFrom(req.headers.authorization));
          access = { kind: 'principal', orgId: principal.orgId, principalId: principal.id };
        }
        const meta = await blobs.authorize(sha256, access);
        return await sendBlob(req, reply, meta, maxAge);
      } catch (err) {
        return sendError(reply, runtime, req, err);
      }
    },
  });

  async function sendBlob(req: FastifyRequest, reply: FastifyReply, meta: BlobMeta, maxAge: number) {
    const etag = `"${meta.sha256}"`;
    reply
      .header('etag', etag)
      .header('accept-ranges', 'bytes')
      .header('cache-control', maxAge > 0 ? `private, max-age=${maxAge}, immutable` : 'private, no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "default-src 'none'; sandbox")
      .header('content-disposition', SAFE_INLINE.test(meta.contentType) ? 'inline' : 'attachment')
      .header('content-type', meta.contentType);
    const inm = one(req.headers['if-none-match']);
    if (inm && inm.split(',').some((t) => t.trim().replace(/^W\//, '') === etag || t.trim() === '*')) return reply.code(304).send();
    // If-Range with anything but this (immutable) ETag means: send it whole.
    const ifRange = one(req.headers['if-range']);
    const range = ifRange && ifRange.trim() !== etag ? ({ kind: 'none' } as Range) : parseRange(one(req.headers.range), meta.size);
    if (range.kind === 'unsatisfiable') {
      return reply
        .code(416)
        .header('content-range', `bytes */${meta.size}`)
        .header('content-type', 'application/json; charset=utf-8')
        .header('content-disposition', 'inline')
        .send(errorFrame('BAD_REQUEST', `range: not satisfiable for a blob of ${meta.size} bytes`));
    }
    const part = range.kind === 'range' ? range.range : undefined;
    const length = part ? part.end - part.start + 1 : meta.size;
    reply.code(part ? 206 : 200).header('content-length', String(length));
    if (part) reply.header('content-range', `bytes ${part.start}-${part.end}/${meta.size}`);
    if (req.method === 'HEAD' || length === 0) return reply.send();
    const stream = await blobs.open(meta, part);
    return reply.send(stream);
  }
}
