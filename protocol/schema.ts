import { z } from 'zod';
import { ApiError } from './errors.js';
import { TEXT_RULE_MESSAGE, wellFormedText } from './input-rules.js';
import { fieldName, fieldPath, jsonBoundsIssue } from './json-bounds.js';
import { unionMessage } from './union-message.js';

/**
 * Shared field builders, so every family spells the same kind of field the same way.
 * Strings are well-formed Unicode without NUL (input-rules.ts): text() states the rule in the contract, and
 * parseParams applies it to every string and key of every params value, whatever builder its field used.
 */

export function text(opts: { min?: number; max: number; description: string }) {
  let schema = z.string();
  if (opts.min !== undefined) schema = schema.min(opts.min, `must be at least ${opts.min} character${opts.min === 1 ? '' : 's'}`);
  return schema.max(opts.max, `must be at most ${opts.max} characters`).refine(wellFormedText, TEXT_RULE_MESSAGE).describe(opts.description);
}

/** A prefixed id such as `task_3k9f...`. */
export function id(prefix: string, description: string) {
  return z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(new RegExp(`^${prefix}_[A-Za-z0-9]+$`), `must be an id of the form ${prefix}_…`)
    .describe(description);
}

export const cents = (description: string) => z.number().int('must be an integer number of cents').min(-1e13).max(1e13).describe(description);

/** A calendar date. Years before 1900 are refused: none is a real business date, and PostgreSQL has no year 0. */
export const isoDate = (description: string) =>
  z.iso
    .date({ message: 'must be a date YYYY-MM-DD' })
    .refine((d) => d >= '1900-01-01', 'must be a date from 1900 on')
    .describe(description);

export const cursor = z.coerce
  .number({ message: 'must be an integer' })
  .int('must be an integer')
  .min(0, 'must be >= 0')
  .default(0)
  .describe('Resume after this position (the nextCursor of the previous page); start with 0.');

/** The largest value an `integer` column holds: version, revision and position params stay within it (no 5xx). */
export const INT32_MAX = 2_147_483_647;

/** A version, revision or seq as an `integer` column holds it: an integer from `min` to INT32_MAX. */
export const int32 = (min: number, description: string) =>
  z
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(min, `must be >= ${min}`)
    .max(INT32_MAX, `must be at most ${INT32_MAX}`)
    .describe(description);

export const limit = (max: number, dflt: number) =>
  z.coerce
    .number({ message: 'must be an integer' })
    .int('must be an integer')
    .min(1, 'must be >= 1')
    .max(max, `must be at most ${max}`)
    .default(dflt)
    .describe(`Page size, 1 to ${max} (default ${dflt}).`);

/** Optional proof fields carried by signature acts (see the signature law). */
export const proofFields = {
  approvalId: id('apr', 'Proof: the approved approval for this exact act. Retry with a fresh idempotency key.').optional(),
  signatureToken: z.string().max(200).describe('Proof: the signatureToken minted when a human approved the approval.').optional(),
};

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** Most unknown field names one message lists. */
const MAX_LISTED = 10;

/** The first zod issue as `<field>: <reason>` (the spec's form for BAD_REQUEST). */
export function formatIssue(issue: z.core.$ZodIssue, root = 'params'): string {
  // Names come from the caller (unknown keys, record keys): each is cut and a long list is counted, not listed.
  const path = issue.path.length > 0 ? fieldPath(issue.path) : '';
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.slice(0, MAX_LISTED).map((k) => (path ? `${path}.${fieldName(k)}` : fieldName(k)));
    const more = issue.keys.length - keys.length;
    return `${keys.join(', ')}${more > 0 ? ` and ${more} more` : ''}: unknown field${issue.keys.length > 1 ? 's' : ''}`;
  }
  if (issue.code === 'invalid_union') {
    // The value has the keys of exactly one accepted shape and fails inside it: that shape's own reason, by path.
    const near = closestOption(issue.errors);
    if (near) return formatIssue({ ...near, path: [...issue.path, ...near.path] }, root);
  }
  const field = path || root;
  const input = (issue as { input?: unknown }).input;
  if ((issue.code === 'invalid_type' || issue.code === 'invalid_value') && input === undefined) return `${field}: required`;
  if (issue.code === 'invalid_type') {
    // zod 4 reports .int() on a non-integer number as invalid_type `int`: keep the builder's own words.
    if (issue.expected === 'int' && typeof input === 'number' && Number.isFinite(input)) return `${field}: ${issue.message}`;
    // A coerced query value such as `limit=abc` arrives here as NaN: say what it was, not "got number".
    if (typeof input === 'number' && Number.isNaN(input)) return `${field}: expected ${issue.expected}, got a non-numeric value`;
    return `${field}: expected ${issue.expected}, got ${describeType(input)}`;
  }
  if (issue.code === 'invalid_value' && issue.values.length <= 12) {
    return `${field}: must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
  }
  return `${field}: ${issue.message}`;
}

/**
 * Of a union's options, the one the value plainly meant: the only one whose every issue lies inside the value
 * (no unknown key, no wrong type at the top). Undefined when none or several do.
 */
function closestOption(errors: readonly (readonly z.core.$ZodIssue[])[]): z.core.$ZodIssue | undefined {
  const near = errors.filter((issues) => issues.length > 0 && issues.every((i) => i.path.length > 0 && i.code !== 'unrecognized_keys'));
  return near.length === 1 ? near[0][0] : undefined;
}

/** How parseParams runs zod: the input kept for messages, a union's issue naming the shapes it accepts. */
export const PARSE_CONTEXT = { reportInput: true, error: unionMessage } as const;

/** Parse or throw BAD_REQUEST naming the first offending field. */
export function parseParams<S extends z.ZodType>(schema: S, value: unknown, root = 'params'): z.output<S> {
  // Depth and size first: nothing after this (zod, logs, hashing) meets a value that could overflow the stack.
  const unbounded = jsonBoundsIssue(value, { root });
  if (unbounded) throw new ApiError('BAD_REQUEST', unbounded);
  const parsed = schema.safeParse(value, PARSE_CONTEXT);
  if (parsed.success) return parsed.data;
  throw new ApiError('BAD_REQUEST', formatIssue(parsed.error.issues[0], root));
}
