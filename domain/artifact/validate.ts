import type { z } from 'zod';
import { ApiError, badRequest } from '../../protocol/errors.js';
import { formatIssue, PARSE_CONTEXT } from '../../protocol/schema.js';
import {
  Binding,
  CATALOG_VERSION,
  COMPONENTS,
  INPUT_TYPES,
  MAX_CHART_POINTS,
  MAX_DATA_BYTES,
  MAX_TABLE_ROWS,
  type ComponentType,
} from '../../protocol/methods/artifact/index.js';
import { canonicalJson, sha256Hex } from '../../protocol/hashing.js';
import type { HandlerCtx } from '../core/handler.js';
import { BRAND_READ_SCOPE, libraryHasImage } from '../branding/index.js';
import { canReadTarget, referenceOf } from '../refs.js';
import type { ActionDef, Doc } from './model.js';

/*
 * The checks an artifact's content passes before it is stored (create, patch): every component of catalog 1 with
 * valid props, one tree from the first component, bindings that resolve in data to values of the prop's shape, the
 * table and chart limits, inputs named once, Buttons and actions that name each other, and data within 256 KiB.
 * Each refusal is a BAD_REQUEST naming the field as it sits in params (`components.3.type: not in catalog 1`); an
 * Image naming what its author cannot read is NOT_FOUND naming the field (`components.2.imageId: img_… not found`).
 */

type Component = Record<string, unknown> & { id: string; type: ComponentType };

const isBinding = (v: unknown): v is { path: string } => Binding.safeParse(v).success;

/** RFC 6901: the pointer's reference tokens. */
export function pointerTokens(path: string): string[] {
  return path === ''
    ? []
    : path
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at the pointer in data, or undefined when it does not resolve. */
export function resolve(data: unknown, path: string): unknown {
  let at: unknown = data;
  for (const token of pointerTokens(path)) {
    if (Array.isArray(at)) at = /^(0|[1-9][0-9]*)$/.test(token) ? at[Number(token)] : undefined;
    else if (at !== null && typeof at === 'object' && Object.hasOwn(at, token)) at = (at as Record<string, unknown>)[token];
    else return undefined;
  }
  return at;
}

const refuse = (issue: z.core.$ZodIssue, prefix: (string | number)[]) =>
  new ApiError('BAD_REQUEST', formatIssue({ ...issue, path: [...prefix, ...issue.path] }));

/** The schema of a bindable prop's own value (the union's first option), to check what a binding resolves to. */
function valueSchema(type: ComponentType, key: string): z.ZodType | undefined {
  let s = (COMPONENTS[type].shape as Record<string, z.ZodType>)[key];
  while (s && 'unwrap' in s && typeof (s as { unwrap?: unknown }).unwrap === 'function') s = (s as unknown as { unwrap(): z.ZodType }).unwrap();
  const options = (s as { options?: z.ZodType[] } | undefined)?.options;
  return options?.[0];
}

function parseComponents(raw: readonly Record<string, unknown>[]): Component[] {
  const out: Component[] = [];
  const ids = new Set<string>();
  raw.forEach((c, i) => {
    const type = c.type;
    if (type === undefined) throw badRequest(`components.${i}.type`, 'required');
    if (typeof type !== 'string' || !Object.hasOwn(COMPONENTS, type)) throw badRequest(`components.${i}.type`, `not in catalog ${CATALOG_VERSION}`);
    const parsed = COMPONENTS[type as ComponentType].safeParse(c, PARSE_CONTEXT);
    if (!parsed.success) throw refuse(parsed.error.issues[0], ['components', i]);
    const component = parsed.data as Component;
    if (ids.has(component.id)) throw badRequest(`components.${i}.id`, `${component.id} repeats an earlier component's id`);
    ids.add(component.id);
    out.push(component);
  });
  return out;
}

/** One tree: every child id names a component, each component but the root is a child exactly once, all reachable. */
function checkTree(components: readonly Component[]): void {
  const index = new Map(components.map((c, i) => [c.id, i]));
  const parent = new Map<string, string>();
  components.forEach((c, i) => {
    const kids = (c.children as string[] | undefined) ?? [];
    if (c.type === 'Tabs' && kids.length !== (c.labels as string[]).length) throw badRequest(`components.${i}.children`, 'must list one child per label');
    kids.forEach((kid, k) => {
      if (!index.has(kid)) throw badRequest(`components.${i}.children.${k}`, `no component ${kid}`);
      if (kid === components[0].id) throw badRequest(`components.${i}.children.${k}`, `${kid} is the root (the first component)`);
      if (parent.has(kid)) throw badRequest(`components.${i}.children.${k}`, `${kid} is already a child of ${parent.get(kid)}`);
      parent.set(kid, c.id);
    });
  });
  const seen = new Set<string>();
  const stack = [components[0].id];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...((components[index.get(id)!].children as string[] | undefined) ?? []));
  }
  const lost = components.findIndex((c) => !seen.has(c.id));
  if (lost >= 0) throw badRequest(`components.${lost}.id`, `${components[lost].id} is not inside the root ${components[0].id}`);
}

/** Bindings resolve to values of their prop's shape; tables and charts within their limits. */
function checkBindings(components: readonly Component[], data: Record<string, unknown>): void {
  components.forEach((c, i) => {
    const values: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(c)) {
      if (!isBinding(value)) {
        values[key] = value;
        continue;
      }
      const resolved = resolve(data, value.path);
      if (resolved === undefined) throw badRequest(`components.${i}.${key}.path`, `${value.path} does not resolve in data`);
      const parsed = valueSchema(c.type, key)?.safeParse(resolved, PARSE_CONTEXT);
      if (parsed && !parsed.success) throw badRequest(`components.${i}.${key}`, `data at ${value.path}: ${formatIssue(parsed.error.issues[0], 'value')}`);
      values[key] = resolved;
    }
    if (c.type === 'Table' && (values.rows as unknown[]).length > MAX_TABLE_ROWS) throw badRequest(`components.${i}.rows`, `at most ${MAX_TABLE_ROWS} rows`);
    if (c.type === 'Chart') {
      const points = (values.series as { points: unknown[] }[]).reduce((n, s) => n + s.points.length, 0);
      if (points > MAX_CHART_POINTS) throw badRequest(`components.${i}.series`, `at most ${MAX_CHART_POINTS} points in all, got ${points}`);
    }
  });
}

/** Inputs named once, Buttons naming actions, actions naming inputs and each other once. */
function checkActions(components: readonly Component[], actions: readonly ActionDef[]): void {
  const inputs = new Set<string>();
  components.forEach((c, i) => {
    if (!(INPUT_TYPES as readonly string[]).includes(c.type)) return;
    if (inputs.has(c.name as string)) throw badRequest(`components.${i}.name`, `${c.name as string} names an earlier input`);
    inputs.add(c.name as string);
  });
  const actionIds = new Set<string>();
  actions.forEach((a, j) => {
    if (actionIds.has(a.actionId)) throw badRequest(`actions.${j}.actionId`, `${a.actionId} repeats an earlier action`);
    actionIds.add(a.actionId);
    a.inputs.forEach((name, k) => {
      if (!inputs.has(name)) throw badRequest(`actions.${j}.inputs.${k}`, `no input named ${name}`);
    });
  });
  components.forEach((c, i) => {
    if (c.type === 'Button' && !actionIds.has(c.actionId as string)) throw badRequest(`components.${i}.actionId`, `no action ${c.actionId as string}`);
  });
}

/** RecordRef chips name records their author may read (domain/refs.ts). */
async function checkRecords(ctx: HandlerCtx, components: readonly Component[]): Promise<void> {
  for (const [i, c] of components.entries()) {
    if (c.type !== 'RecordRef') continue;
    const id = c.recordId as string;
    const readable = referenceOf(ctx.deps.families, id) !== undefined && (await canReadTarget(ctx.deps.families, ctx.q, ctx.orgId, id, ctx.principal));
    if (!readable) throw badRequest(`components.${i}.recordId`, `${id} is not a record you may read`);
  }
}

/**
 * Image components name an image their author may read, at write time: a brand library image of the org (read with
 * design.read) or a drive file the author may read. Otherwise NOT_FOUND naming the field, as an unknown id is.
 */
async function checkImages(ctx: HandlerCtx, components: readonly Component[]): Promise<void> {
  for (const [i, c] of components.entries()) {
    if (c.type !== 'Image') continue;
    const id = c.imageId as string;
    const brand = id.startsWith('img_');
    const readable = brand
      ? ctx.principal.scopes.has(BRAND_READ_SCOPE) && (await libraryHasImage(ctx.q, ctx.orgId, id))
      : await canReadTarget(ctx.deps.families, ctx.q, ctx.orgId, id, ctx.principal);
    if (!readable)
      throw new ApiError(
        'NOT_FOUND',
        `components.${i}.imageId: ${id} not found: name ${brand ? `an image of the brand library (your key needs ${BRAND_READ_SCOPE})` : 'a drive file you may read'}`,
      );
  }
}

export const dataBytes = (data: unknown): number => Buffer.byteLength(JSON.stringify(data));

export function checkDataSize(data: Record<string, unknown>, field = 'data'): void {
  const bytes = dataBytes(data);
  if (bytes > MAX_DATA_BYTES) throw badRequest(field, `at most ${MAX_DATA_BYTES} bytes (256 KiB) of JSON, got ${bytes}`);
}

/** What the checks found, for the design record (counts) and inputs_revision (the inputs' hash). */
export interface Checked {
  components: number;
  inputs: number;
  inputsHash: string;
  sha256: string;
}

/** Every check of an artifact's content; the components as parsed replace the raw ones in the doc. */
export async function checkDoc(ctx: HandlerCtx, doc: Doc): Promise<Checked> {
  checkDataSize(doc.data);
  const components = parseComponents(doc.components);
  checkTree(components);
  checkBindings(components, doc.data);
  checkActions(components, doc.actions);
  await checkRecords(ctx, components);
  await checkImages(ctx, components);
  doc.components = components;
  const inputs = components.filter((c) => (INPUT_TYPES as readonly string[]).includes(c.type));
  return {
    components: components.length,
    inputs: inputs.length,
    inputsHash: sha256Hex(canonicalJson({ inputs, actions: doc.actions })),
    sha256: sha256Hex(canonicalJson(doc)),
  };
}
