import { expect } from 'vitest';
import { eventsAfter, head } from '../../helpers/calls.js';
import type { TestServer } from '../../helpers/harness.js';

/** A SCIM client over app.inject() with the provisioner's key, and the ledger checks every SCIM test makes. */

export const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
export const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

export interface ScimResponse {
  status: number;
  body: any;
  headers: Record<string, unknown>;
}

export class ScimClient {
  constructor(
    readonly s: TestServer,
    readonly key: string,
  ) {}

  async send(
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    opts: { key?: string | null; contentType?: string } = {},
  ): Promise<ScimResponse> {
    const key = opts.key === undefined ? this.key : opts.key;
    const res = await this.s.app.inject({
      method,
      url: `/scim/v2${path}`,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body !== undefined ? { 'content-type': opts.contentType ?? 'application/scim+json' } : {}),
      },
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    if (res.statusCode !== 204) expect(res.headers['content-type']).toBe('application/scim+json; charset=utf-8');
    return { status: res.statusCode, body: res.body ? res.json() : undefined, headers: res.headers };
  }

  get = (path: string) => this.send('GET', path);
  post = (path: string, body: unknown) => this.send('POST', path, body);
  put = (path: string, body: unknown) => this.send('PUT', path, body);
  patch = (path: string, body: unknown) => this.send('PATCH', path, body);
  delete = (path: string) => this.send('DELETE', path);

  /** Run a write; expect `status` and exactly the events `kinds` (one per registry call), none showing `secrets`. */
  async write(kinds: string[], run: () => Promise<ScimResponse>, status: number, secrets: string[] = []): Promise<ScimResponse> {
    const seq = await head(this.s.client);
    const res = await run();
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    const events = await eventsAfter(this.s.client, seq);
    expect(events.map((e) => e.kind)).toEqual(kinds);
    for (const secret of secrets) expect(JSON.stringify(events).toLowerCase()).not.toContain(secret.toLowerCase());
    return res;
  }
}

/** A SCIM error response (RFC 7644 section 3.12), with nothing appended by the call. */
export async function expectScimError(c: ScimClient, run: () => Promise<ScimResponse>, status: number, scimType?: string): Promise<string> {
  const seq = await head(c.s.client);
  const res = await run();
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ schemas: [ERROR], status: String(status) });
  if (scimType) expect(res.body.scimType).toBe(scimType);
  else expect(res.body.scimType).toBeUndefined();
  expect(await head(c.s.client)).toBe(seq);
  return res.body.detail as string;
}

export const filterQuery = (filter: string, extra = '') => `?filter=${encodeURIComponent(filter)}${extra}`;
