import { z } from 'zod';
import type { MethodContract, ReadContract } from './contract.js';
import { eventsNote, methodEvents } from './events.js';
import { ERROR_STATUS, type ErrorCode } from './errors.js';
import { HoldResult } from './frames.js';
import { FAMILIES, METHODS, READS, STATIC_READS, type Flag, type MethodSpec, type ReadSpec } from './registry.js';

type Json = Record<string, unknown>;

/** What a deployed method contributes beyond its registry entry (a MethodHandler fits). */
export interface DeployedMethod {
  contract: MethodContract;
  /** The method may answer a hold frame instead of its result (signature acts). */
  mayHold?: boolean;
}

export interface DeployedRead {
  contract: ReadContract;
}

export interface OpenApiOptions {
  /** Base URL the paths hang off (`/api/v1/...` is in every path): an origin, or `/` for "where this document was served". */
  serverUrl: string;
  /** Deployed methods by name; registry methods missing here are documented as not deployed. */
  methods?: ReadonlyMap<string, DeployedMethod>;
  /** Deployed reads by path (`events`, `org/whoami`). */
  reads?: ReadonlyMap<string, DeployedRead>;
  version?: string;
  /** One family's methods only (or `reads` for the GET reads): the whole document is ~1.8 MB, too big to browse. */
  family?: string;
}

const FLAG_WORDS: Record<Flag, string> = {
  M: 'mutating (appends one ledger event)',
  I: 'idempotent (send `x-idempotency-key`; a repeat with the same key replays the first result)',
  G: 'governance-gated (answers GOVERNANCE_NOT_READY until decision rights are declared)',
  R: 'read-only',
  P: 'pre-auth (needs no credential)',
};

const METHOD_ERROR_STATUSES = [400, 401, 403, 404, 409, 423, 429, 500] as const;
const READ_ERROR_STATUSES = [400, 401, 403, 404, 429, 500] as const;

/** Status -> the error codes that answer with it (IDEMPOTENT_REPLAY is a 200 and not an error response). */
function codesByStatus(): Map<number, ErrorCode[]> {
  const out = new Map<number, ErrorCode[]>();
  for (const [code, status] of Object.entries(ERROR_STATUS) as [ErrorCode, number][]) {
    if (status < 400) continue;
    out.set(status, [...(out.get(status) ?? []), code]);
  }
  return out;
}

/**
 * zod 4's converter, made embeddable: `$schema` dropped, and any `$defs` (recursive or registered schemas)
 * hoisted into components.schemas under a per-operation prefix so `$ref`s resolve inside the document.
 */
function schemaOf(schema: z.ZodType, io: 'input' | 'output', prefix: string, defs: Json): Json {
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  delete json.$schema;
  const local = json.$defs as Record<string, Json> | undefined;
  delete json.$defs;
  if (!local) return json;
  const rename = (name: string) => `${prefix}_${name}`.replace(/[^A-Za-z0-9._-]/g, '_');
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(
      Object.entries(node).map(([k, v]) =>
        k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/') ? [k, `#/components/schemas/${rename(v.slice(8))}`] : [k, rewrite(v)],
      ),
    );
  };
  for (const [name, def] of Object.entries(local)) defs[rename(name)] = rewrite(def);
  return rewrite(json) as Json;
}

const errorResponses = (statuses: readonly number[]) => Object.fromEntries(statuses.map((s) => [String(s), { $ref: `#/components/responses/Error${s}` }]));

function describeSpec(scope: string, flags: readonly Flag[]): string {
  const scopeLine = flags.includes('P') ? 'Scope: none (pre-auth).' : `Scope: \`${scope}\`.`;
  const flagLines = flags.length ? flags.map((f) => `- ${f}: ${FLAG_WORDS[f]}`).join('\n') : '- none';
  return `${scopeLine}\n\nFlags:\n${flagLines}`;
}

function methodOperation(spec: MethodSpec, deployed: DeployedMethod | undefined, defs: Json): Json {
  const c = deployed?.contract;
  const params: Json = c ? schemaOf(c.params, 'input', `${spec.name}.params`, defs) : { type: 'object', additionalProperties: true };
  let result: Json = c?.result ? schemaOf(c.result, 'output', `${spec.name}.result`, defs) : {};
  if (deployed?.mayHold) result = { anyOf: [result, { $ref: '#/components/schemas/HoldResult' }] };

  const notes = [
    c ? c.summary : `The \`${spec.family}\` family is not deployed on this server: calls answer NOT_FOUND (404). Params are not described here.`,
    describeSpec(spec.scope, spec.flags),
    'The body is `{"params": {...}}`; a bare params object as the whole body is accepted too. An empty body means no params.',
  ];
  if (c?.writes)
    notes.push(
      "R, but it changes state: no ledger event; the call appends one record to its family's write log (a hash chain beside the ledger, read at GET /ops). It ignores `x-idempotency-key`: the `idempotencyId` param replays it (the same params answer the stored result, other params CONFLICT).",
    );
  if (deployed?.mayHold)
    notes.push('A signature act without a matching approval answers a hold frame (`result.status = "approval_required"`) instead of its result.');
  const events = c && eventsNote(spec.family, c);
  if (events) notes.push(events);

  const parameters: Json[] = [];
  if (spec.idempotent) {
    parameters.push({
      name: 'x-idempotency-key',
      in: 'header',
      required: false,
      description: 'Replays the first result of this method for the same org, actor and key.',
      schema: { type: 'string' },
    });
  }
  const okHeaders = spec.idempotent
    ? { 'idempotent-replay': { description: '`true` when the result is a replay.', schema: { type: 'string', enum: ['true'] } } }
    : undefined;

  const media: Json = {
    schema: {
      type: 'object',
      properties: { params: params },
      additionalProperties: false,
      description: 'A bare params object as the whole body is accepted too.',
    },
  };
  if (c) media.example = { params: c.example };

  return {
    operationId: spec.name,
    tags: [spec.family],
    summary: c ? firstSentence(c.summary) : `${spec.name} (not deployed)`,
    description: notes.join('\n\n'),
    'x-scope': spec.scope,
    'x-flags': [...spec.flags],
    'x-deployed': Boolean(c),
    ...(c ? { 'x-events': methodEvents(spec.family, c) } : {}),
    security: spec.preAuth ? [] : [{ bearer: [] }],
    ...(parameters.length ? { parameters } : {}),
    requestBody: { required: false, content: { 'application/json': media } },
    responses: {
      '200': {
        description: 'Call frame with the result.',
        ...(okHeaders ? { headers: okHeaders } : {}),
        content: {
          'application/json': {
            schema: {
              type: 'object',
              properties: { ok: { const: true }, result },
              required: ['ok', 'result'],
            },
          },
        },
      },
      ...errorResponses(METHOD_ERROR_STATUSES),
    },
  };
}

function readOperation(spec: ReadSpec, deployed: DeployedRead | undefined, defs: Json): Json {
  const c = deployed?.contract;
  const query = c ? schemaOf(c.query, 'input', `${spec.path}.query`, defs) : {};
  const props = (query.properties ?? {}) as Record<string, Json>;
  const required = new Set((query.required as string[] | undefined) ?? []);
  const inPath = new Set([...spec.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]));
  const parameters: Json[] = Object.entries(props).map(([name, schema]) => ({
    name,
    in: inPath.has(name) ? 'path' : 'query',
    required: inPath.has(name) || required.has(name),
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    schema,
  }));
  const result = c?.result ? schemaOf(c.result, 'output', `${spec.path}.result`, defs) : {};
  const id = spec.path.replace(/[{}]/g, '').replace(/\//g, '.');
  // The org reads answer with an ETag: If-None-Match with it gives 304 and no body.
  const etag = spec.path.startsWith('org/');
  if (etag)
    parameters.push({
      name: 'If-None-Match',
      in: 'header',
      required: false,
      description: 'The ETag of an earlier answer: 304 if unchanged.',
      schema: { type: 'string' },
    });
  const ok = c?.media
    ? { description: c.media.description, content: { [c.media.type]: { schema: { type: 'string' } } } }
    : { description: 'The bare payload.', content: { 'application/json': { schema: result } } };
  return {
    operationId: `read.${id}`,
    tags: ['reads'],
    summary: c ? firstSentence(c.summary) : `${spec.path} (not deployed)`,
    description: [
      c ? c.summary : 'Not deployed on this server: answers NOT_FOUND (404).',
      `Scope: \`${spec.scope}\`.`,
      c?.media
        ? 'Answers the file (or a redirect to it) on success and an error frame otherwise.'
        : 'Answers the bare payload on success and an error frame otherwise.',
    ].join('\n\n'),
    'x-scope': spec.scope,
    'x-flags': ['R'],
    'x-deployed': Boolean(c),
    security: [{ bearer: [] }],
    ...(parameters.length ? { parameters } : {}),
    responses: {
      '200': ok,
      ...(c?.media?.redirects ? { '302': { description: c.media.redirects, headers: { Location: { schema: { type: 'string' } } } } } : {}),
      ...(etag ? { '304': { description: 'Not modified: the If-None-Match ETag is current.' } } : {}),
      ...errorResponses(READ_ERROR_STATUSES),
    },
  };
}

function firstSentence(text: string): string {
  const m = /^(.+?[.!?])(\s|$)/s.exec(text.trim());
  return (m ? m[1] : text.trim()).slice(0, 200);
}

const bearer = [{ bearer: [] }];
const errorRef = (status: number) => ({ $ref: `#/components/responses/Error${status}` });

/** The faces beside the RPC that clients call with the same keys: the live event stream and blobs. */
function facePaths(): Record<string, Json> {
  const sha256 = { name: 'sha256', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{64}$' } };
  return {
    '/api/v1/org/stream': {
      get: {
        operationId: 'org.stream',
        tags: ['reads'],
        summary: "The org's ledger as Server-Sent Events: one frame per event the key may see (id = seq); resume with Last-Event-ID.",
        security: bearer,
        parameters: [
          { name: 'Last-Event-ID', in: 'header', schema: { type: 'string' }, description: 'Resume strictly after this seq.' },
          { name: 'after', in: 'query', schema: { type: 'integer', minimum: 0 }, description: 'Resume strictly after this seq (the header wins).' },
          { name: 'family', in: 'query', schema: { type: 'string' }, description: 'Only events of this family.' },
          { name: 'kind', in: 'query', schema: { type: 'string' }, description: 'Only events of this kind.' },
        ],
        responses: {
          '200': {
            description: 'An event stream: `id: <seq>` and `data: <the event as GET /events shows it>` per frame, heartbeats as comments.',
            content: { 'text/event-stream': { schema: { type: 'string' } } },
          },
          '400': errorRef(400),
          '401': errorRef(401),
          '403': errorRef(403),
        },
      },
    },
    '/api/v1/blobs': {
      put: {
        operationId: 'blobs.put',
        tags: ['reads'],
        summary: 'Store bytes (the raw body, streamed), addressed by SHA-256 within the org. An x-content-sha256 that does not match is refused.',
        security: bearer,
        parameters: [
          { name: 'x-content-sha256', in: 'header', schema: { type: 'string', pattern: '^[0-9a-f]{64}$' }, description: 'The SHA-256 the body must have.' },
        ],
        requestBody: { required: true, content: { '*/*': { schema: { type: 'string', format: 'binary' } } } },
        responses: {
          '200': { description: 'Uploaded before by this caller.', content: { 'application/json': { schema: { $ref: '#/components/schemas/BlobFrame' } } } },
          '201': { description: 'Stored.', content: { 'application/json': { schema: { $ref: '#/components/schemas/BlobFrame' } } } },
          '400': errorRef(400),
          '401': errorRef(401),
          '413': { description: 'Larger than BLOB_MAX_BYTES (a BAD_REQUEST frame naming the limit).' },
        },
      },
    },
    '/api/v1/blobs/{sha256}': {
      get: {
        operationId: 'blobs.get',
        tags: ['reads'],
        summary: "The bytes: for the uploader until a record holds them, then only through the signed URL that record's read issues. Range requests.",
        security: bearer,
        parameters: [sha256, { name: 'Range', in: 'header', schema: { type: 'string' }, description: 'One byte range (bytes=start-end).' }],
        responses: {
          '200': { description: 'The bytes.', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
          '206': { description: 'The range asked for.' },
          '404': errorRef(404),
          '416': { description: 'Range not satisfiable.' },
        },
      },
    },
  };
}

/** The OpenAPI 3.1 document of the v1 API, from the registry and the deployed zod contracts. Pure. */
export function buildOpenApi(opts: OpenApiOptions): Json {
  const defs: Json = {};
  const paths: Record<string, Json> = {};
  const only = opts.family;
  for (const spec of METHODS.values()) {
    if (only && spec.family !== only) continue;
    paths[`/api/v1/${spec.name}`] = { post: methodOperation(spec, opts.methods?.get(spec.name), defs) };
  }
  if (!only || only === 'reads') {
    for (const spec of [...READS.values(), ...STATIC_READS.values()]) {
      paths[`/api/v1/${spec.path}`] = { get: readOperation(spec, opts.reads?.get(spec.path), defs) };
    }
    Object.assign(paths, facePaths());
  }

  const deployedFamilies = new Set([...(opts.methods?.keys() ?? [])].map((n) => n.split('.')[0]));
  const tags = [
    ...FAMILIES.map((f) => ({
      name: f,
      description: deployedFamilies.has(f) ? `The ${f} family.` : `The ${f} family: not deployed on this server (calls answer NOT_FOUND).`,
    })),
    { name: 'reads', description: 'GET reads: bare payload on success, error frame otherwise.' },
  ].filter((t) => !only || t.name === only);

  const responses = Object.fromEntries(
    [...codesByStatus()].map(([status, codes]) => [
      `Error${status}`,
      {
        description: `Error frame: ${codes.join(', ')}.`,
        ...(status === 429 ? { headers: { 'retry-after': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } } } : {}),
        content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorFrame' } } },
      },
    ]),
  );

  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace operations API',
      version: opts.version ?? '1',
      description:
        'Generated from the protocol registry and zod contracts. Calls are `POST /api/v1/{family}.{method}` answering a call frame ' +
        '(`{"ok": true, "result"}` or `{"ok": false, "error": {"code", "message"}}`); reads are `GET /api/v1/{read}` answering the bare payload.',
    },
    servers: [{ url: opts.serverUrl }],
    tags,
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer <key>`.' } },
      schemas: {
        ErrorFrame: {
          type: 'object',
          properties: {
            ok: { const: false },
            error: {
              type: 'object',
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
                message: { type: 'string', description: 'Names the field or the scope at fault.' },
              },
              required: ['code', 'message'],
            },
          },
          required: ['ok', 'error'],
        },
        HoldResult: schemaOf(HoldResult, 'output', 'HoldResult', defs),
        BlobFrame: {
          type: 'object',
          properties: {
            ok: { const: true },
            result: {
              type: 'object',
              properties: { sha256: { type: 'string' }, size: { type: 'integer' }, contentType: { type: 'string' } },
              required: ['sha256', 'size', 'contentType'],
            },
          },
          required: ['ok', 'result'],
        },
        ...defs,
      },
      responses,
    },
  };
}
