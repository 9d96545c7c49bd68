import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import { formatIssue, parseParams, PARSE_CONTEXT } from '../../protocol/schema.js';
import { defOf, deployedSchemas, walkSchema, type SchemaPath } from '../helpers/schema-walk.js';
import { getAt, setAt } from '../helpers/hostile.js';
import { testServer, type TestServer } from '../helpers/harness.js';

/**
 * A union's BAD_REQUEST names the shapes it accepts (zod's own words were "Invalid input": files.shareGrant
 * answered `grantee: Invalid input`), for every union of every deployed contract.
 */

const unions: { where: string; path: SchemaPath; union: z.core.$ZodType }[] = [];
for (const [where, schema] of deployedSchemas()) {
  walkSchema(schema, (node, path) => {
    if (defOf(node).type === 'union') unions.push({ where, path, union: node });
  });
}

const ACCEPTED = /: (expected one of .+ \| .+|must be one of ".+", ".+)/;

/** A value none of a union's options takes, refused at the union itself. */
const WRONG: unknown[] = [{ zzWrong: true }, 'zz-wrong', 12345.5, true, [], null];
function wrongFor(union: z.core.$ZodType): unknown {
  return WRONG.find((v) => {
    const r = (union as z.ZodType).safeParse(v, PARSE_CONTEXT);
    return !r.success && r.error.issues[0].code === 'invalid_union';
  });
}

const messageOf = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('every union of every deployed contract', () => {
  it('there are unions to check (the walk reaches them)', () => {
    expect(unions.length).toBeGreaterThan(5);
    expect(unions.map((u) => u.where)).toContain('files.shareGrant');
  });

  it.each(unions.map((u) => [`${u.where} ${u.path.join('.') || '(params)'}`, u] as const))(
    '%s: a wrong value names the accepted shapes',
    (_, { where, path, union }) => {
      const wrong = wrongFor(union);
      expect(wrong, 'no candidate value is refused by this union').not.toBeUndefined();
      const issue = (union as z.ZodType).safeParse(wrong, PARSE_CONTEXT).error!.issues[0];
      const message = formatIssue(issue);
      expect(message).not.toMatch(/Invalid input/);
      // Ours, or a contract's own words that list the options (books.onboardingAdvance: "must be one of …").
      expect(message).toMatch(ACCEPTED);
      // In place, through parseParams, when the example reaches the union's parent: the message names its path.
      const example = METHOD_HANDLERS.get(where)?.contract.example as Record<string, unknown> | undefined;
      const parent = path.slice(0, -1);
      if (example && path.length > 0 && typeof path.at(-1) === 'string' && getAt(example, parent) !== null && typeof getAt(example, parent) === 'object') {
        const full = messageOf(() => parseParams(METHOD_HANDLERS.get(where)!.contract.params, setAt(example, path, wrong)));
        expect(full.startsWith(`${path.join('.')}`), full).toBe(true);
        expect(full).toMatch(ACCEPTED);
      }
    },
  );
});

describe('files.shareGrant grantee', () => {
  const c = () => METHOD_HANDLERS.get('files.shareGrant')!.contract.params;
  const grant = (grantee: unknown) => messageOf(() => parseParams(c(), { fileId: 'fil_0123456789abcdef', grantee, role: 'editor' }));

  it.each([
    [{ kind: 'team', id: 'team_x' }, 'grantee: expected one of {principalId} | {teamId} | {org: true} | {email}'],
    ['usr_abc', 'grantee: expected one of {principalId} | {teamId} | {org: true} | {email}'],
    // The keys of one shape, a bad value inside it: that shape's own reason, by path.
    [{ principalId: 'bob' }, 'grantee.principalId: must be usr_… or agt_…'],
    [{ email: 'nope' }, 'grantee.email: must be an email address'],
  ])('%j -> %s', (grantee, expected) => {
    expect(grant(grantee)).toBe(expected);
  });

  let s: TestServer;
  beforeAll(async () => {
    s = await testServer();
  });
  afterAll(() => s.close());

  it('over HTTP, the answer agents saw as "grantee: Invalid input"', async () => {
    const res = await s.client.rpc('files.shareGrant', { fileId: 'fil_0123456789abcdef', grantee: { kind: 'member', id: 'usr_abc' }, role: 'viewer' });
    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'BAD_REQUEST', message: 'grantee: expected one of {principalId} | {teamId} | {org: true} | {email}' });
  });
});

describe('shapes in words', () => {
  const messageFor = (schema: z.ZodType, value: unknown) => formatIssue(schema.safeParse(value, PARSE_CONTEXT).error!.issues[0]);
  it('a discriminated union names its discriminator values and each shape', () => {
    const u = z.strictObject({
      g: z.discriminatedUnion('kind', [
        z.strictObject({ kind: z.literal('member'), principalId: z.string() }),
        z.strictObject({ kind: z.literal('team'), teamId: z.string(), note: z.string().optional() }),
      ]),
    });
    expect(messageFor(u, { g: { kind: 'nobody' } })).toBe('g.kind: expected one of {kind: "member", principalId} | {kind: "team", teamId, note?}');
  });
  it('a union of scalars names their types and values', () => {
    const u = z.strictObject({ v: z.union([z.string(), z.number(), z.enum(['a', 'b']), z.null()]) });
    expect(messageFor(u, { v: true })).toBe('v: expected one of a string | a number | "a"|"b" | null');
  });
});
