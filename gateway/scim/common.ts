import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../domain/core/auth.js';
import type { Runtime } from '../../domain/deployed.js';
import { RegistryCalls, renamer } from './calls.js';
import { invalid, SCIM_JSON } from './errors.js';
import { LIST_SCHEMA, MAX_PAGE } from './schemas.js';

/** What every /scim/v2 handler works with: the provisioner behind the request and where resources live. */
export interface ScimRequest {
  runtime: Runtime;
  principal: Principal;
  orgId: string;
  /** <PUBLIC_URL>/scim/v2: the base of every resource's location. */
  base: string;
  requestId: string;
}

export const callsFor = (s: ScimRequest, fieldNames: Readonly<Record<string, string>>) =>
  new RegistryCalls(s.runtime.pipeline, s.principal, s.requestId, renamer(fieldNames));

export const sendScim = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type(SCIM_JSON).send(body);

export interface ListQuery {
  filter?: string;
  startIndex: number;
  count: number;
  attributes?: string[];
  excludedAttributes?: string[];
}

function intParam(v: unknown, name: string, fallback: number): number {
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n)) throw invalid(`${name}: must be an integer`);
  return n;
}

const names = (v: unknown) =>
  typeof v === 'string' && v.trim() !== ''
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

/** RFC 7644 section 3.4.2.4: startIndex below 1 is 1, a negative count is 0, and count is capped. */
export function listQuery(req: FastifyRequest): ListQuery {
  const q = (req.query ?? {}) as Record<string, unknown>;
  const filter = typeof q.filter === 'string' && q.filter.trim() !== '' ? q.filter : undefined;
  return {
    filter,
    startIndex: Math.max(1, intParam(q.startIndex, 'startIndex', 1)),
    count: Math.min(MAX_PAGE, Math.max(0, intParam(q.count, 'count', 100))),
    attributes: names(q.attributes),
    excludedAttributes: names(q.excludedAttributes),
  };
}

export function attributeQuery(req: FastifyRequest): Pick<ListQuery, 'attributes' | 'excludedAttributes'> {
  const q = (req.query ?? {}) as Record<string, unknown>;
  return { attributes: names(q.attributes), excludedAttributes: names(q.excludedAttributes) };
}

const ALWAYS = new Set(['schemas', 'id', 'meta']);

/** attributes / excludedAttributes (RFC 7644 section 3.9), on top-level attributes; id and schemas always stay. */
export function project(resource: Record<string, unknown>, q: Pick<ListQuery, 'attributes' | 'excludedAttributes'>): Record<string, unknown> {
  // Asking for name.givenName returns name; for urn:…:User:employeeNumber, the extension's object.
  const names = (xs?: string[]) => xs?.map((x) => x.toLowerCase());
  const named = (k: string, xs: string[]) => xs.some((x) => x === k || x.startsWith(`${k}.`) || x.startsWith(`${k}:`));
  const only = names(q.attributes);
  const drop = names(q.excludedAttributes);
  if (!only && !drop) return resource;
  return Object.fromEntries(
    Object.entries(resource).filter(([k]) => ALWAYS.has(k) || (only ? named(k.toLowerCase(), only) : !drop!.includes(k.toLowerCase()))),
  );
}

export const listResponse = (total: number, startIndex: number, resources: Record<string, unknown>[]) => ({
  schemas: [LIST_SCHEMA],
  totalResults: total,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});
