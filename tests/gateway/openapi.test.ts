import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import { buildOpenApi } from '../../protocol/openapi.js';
import { METHODS, STATIC_READS } from '../../protocol/registry.js';
import { testServer, type TestServer } from '../helpers/harness.js';

const REGISTRY_JSON = fileURLToPath(new URL('../../docs/spec/registry.json', import.meta.url));
const spec = JSON.parse(readFileSync(REGISTRY_JSON, 'utf8')) as {
  methods: { name: string; family: string; scope: string; flags: string[] }[];
  reads: { path: string; scope: string }[];
};

type Doc = any;

let s: TestServer;
let doc: Doc;
beforeAll(async () => {
  s = await testServer();
  const res = await s.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  doc = res.json();
});
afterAll(() => s.close());

const op = (name: string) => doc.paths[`/api/v1/${name}`]?.post;

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('needs no credential', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/v1/openapi.json', headers: { authorization: 'Bearer nonsense' } });
    expect(res.statusCode).toBe(200);
  });

  it('names all 424 methods and 13 reads with their scopes and flags', () => {
    expect(spec.methods).toHaveLength(424);
    expect(spec.reads).toHaveLength(13);
    for (const m of spec.methods) {
      const o = op(m.name);
      expect(o, m.name).toBeDefined();
      expect(o.operationId).toBe(m.name);
      expect(o.tags).toEqual([m.family]);
      expect(o['x-scope']).toBe(m.scope);
      expect([...o['x-flags']].sort()).toEqual([...m.flags].sort());
      expect(o.description).toContain(m.flags.includes('P') ? 'pre-auth' : `\`${m.scope}\``);
      expect(Object.keys(o.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '423', '429', '500']);
    }
    for (const r of spec.reads) {
      const o = doc.paths[`/api/v1${r.path}`]?.get;
      expect(o, r.path).toBeDefined();
      expect(o['x-scope']).toBe(r.scope);
    }
    expect(doc.paths['/api/v1/org/whoami'].get['x-scope']).toBe('org.read');
    // Beside the registry: the org reads (/api/v1/org/*), the live event stream and blobs (upload, download).
    expect(Object.keys(doc.paths)).toHaveLength(424 + 13 + STATIC_READS.size + 3);
    for (const path of STATIC_READS.keys()) expect(doc.paths[`/api/v1/${path}`]?.get, path).toBeDefined();
    expect(doc.paths['/api/v1/org/stream'].get.responses['200'].content).toHaveProperty('text/event-stream');
    expect(doc.paths['/api/v1/blobs'].put.parameters[0].name).toBe('x-content-sha256');
    expect(doc.paths['/api/v1/blobs/{sha256}'].get.responses).toHaveProperty('206');
  });

  it('error responses share the ErrorFrame component', () => {
    expect(doc.components.securitySchemes.bearer).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(doc.components.schemas.ErrorFrame.properties.error.properties.code.enum).toContain('GOVERNANCE_NOT_READY');
    expect(op('board.createTask').responses['423']).toEqual({ $ref: '#/components/responses/Error423' });
    expect(doc.components.responses.Error401.description).toContain('WEAK_SECRET');
    expect(doc.components.responses.Error401.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorFrame' });
  });

  it('deployed methods carry their real params and result schemas', () => {
    const create = op('board.createTask');
    expect(create['x-deployed']).toBe(true);
    const params = create.requestBody.content['application/json'].schema.properties.params;
    expect(params.required).toContain('title');
    expect(params.properties.title.type).toBe('string');
    expect(create.requestBody.content['application/json'].example.params.title).toBeTypeOf('string');
    expect(create.security).toEqual([{ bearer: [] }]);
    const ready = doc.paths['/api/v1/board.ready'].get;
    expect(ready.parameters.length).toBeGreaterThan(0);
    expect(ready.parameters.every((p: { in: string }) => p.in === 'query')).toBe(true);
  });

  it('I-methods declare x-idempotency-key; others do not', () => {
    for (const m of METHODS.values()) {
      const names = (op(m.name).parameters ?? []).map((p: { name: string }) => p.name);
      expect(names.includes('x-idempotency-key'), m.name).toBe(m.idempotent);
    }
  });

  it('pre-auth methods need no credential; undeployed families say they answer NOT_FOUND', () => {
    const pre = [...METHODS.values()].find((m) => m.preAuth)!;
    expect(op(pre.name).security).toEqual([]);
    // Every registry method is deployed here: a server without one says so in its document.
    expect([...METHODS.keys()].filter((m) => !METHOD_HANDLERS.has(m))).toEqual([]);
    const without = new Map([...METHOD_HANDLERS].filter(([name]) => name !== 'board.createTask'));
    const built = buildOpenApi({ serverUrl: '/', methods: without }) as Doc;
    const missing = built.paths['/api/v1/board.createTask'].post;
    expect(missing['x-deployed']).toBe(false);
    expect(missing.description).toContain('not deployed on this server');
  });

  it('a method that may hold offers the hold frame as its result', async () => {
    // No deployed handler holds yet: build the document with one that does.
    const create = METHOD_HANDLERS.get('board.createTask')!;
    const built = buildOpenApi({ serverUrl: '/', methods: new Map([['board.createTask', { ...create, mayHold: true }]]) }) as Doc;
    const o = built.paths['/api/v1/board.createTask'].post;
    expect(o.responses['200'].content['application/json'].schema.properties.result.anyOf[1]).toEqual({ $ref: '#/components/schemas/HoldResult' });
    expect(o.description).toContain('approval_required');
    expect((await new Validator().validate(built)).valid).toBe(true);
    expect(JSON.stringify(op('board.createTask').responses['200'])).not.toContain('HoldResult');
  });
});

describe('GET /docs', () => {
  it('renders the document with locally served assets', async () => {
    const page = await s.app.inject({ method: 'GET', url: '/docs' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const urls = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(urls.length).toBeGreaterThanOrEqual(3);
    for (const url of urls) {
      expect(url.startsWith('/'), url).toBe(true);
      const res = await s.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body.length, url).toBeGreaterThan(0);
    }
    const init = await s.app.inject({ method: 'GET', url: '/docs/init.js' });
    expect(init.body).toContain('/api/v1/openapi.json');
  });

  it('offers one family at a time: ?family= narrows the document, an unknown family is BAD_REQUEST naming it', async () => {
    const init = await s.app.inject({ method: 'GET', url: '/docs/init.js' });
    expect(init.body).toContain('/api/v1/openapi.json?family=books');
    const books: Doc = (await s.app.inject({ method: 'GET', url: '/api/v1/openapi.json?family=books' })).json();
    const names = Object.keys(books.paths);
    expect(names.length).toBe([...METHODS.values()].filter((m) => m.family === 'books').length);
    expect(names.every((p) => p.startsWith('/api/v1/books.'))).toBe(true);
    expect(books.tags.map((t: { name: string }) => t.name)).toEqual(['books']);
    await new Validator().validate(books).then((r) => expect(r.valid, JSON.stringify(r.errors)).toBe(true));
    const reads: Doc = (await s.app.inject({ method: 'GET', url: '/api/v1/openapi.json?family=reads' })).json();
    expect(Object.values(reads.paths).flatMap((p: any) => Object.values(p).map((o: any) => o.tags[0]))).toSatisfy(
      (t: string[]) => t.length > 13 && t.every((x) => x === 'reads'),
    );
    const bad = await s.app.inject({ method: 'GET', url: '/api/v1/openapi.json?family=bookz' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatchObject({ code: 'BAD_REQUEST', message: expect.stringMatching(/^family: no family "bookz"/) });
  });

  it('serves only the renderer files it names', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/docs/assets/package.json' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
  });
});
