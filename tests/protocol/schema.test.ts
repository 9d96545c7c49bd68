import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { cents, limit, parseParams, text } from '../../protocol/schema.js';

const schema = z.strictObject({
  amountCents: cents('amount'),
  kind: z.enum(['a', 'b']),
  note: text({ max: 5, description: 'note' }).optional(),
  limit: limit(500, 100),
});
const messageOf = (value: unknown) => {
  try {
    parseParams(schema, value);
    return 'ok';
  } catch (err) {
    return (err as Error).message;
  }
};

describe('BAD_REQUEST messages name the field and say why', () => {
  it.each([
    [{ amountCents: 1.5, kind: 'a' }, 'amountCents: must be an integer number of cents'],
    [{ amountCents: 1 }, 'kind: required'],
    [{ kind: 'a' }, 'amountCents: required'],
    [{ amountCents: 1, kind: 'c' }, 'kind: must be one of "a", "b"'],
    [{ amountCents: 'x', kind: 'a' }, 'amountCents: expected number, got string'],
    [{ amountCents: 1, kind: 'a', limit: 'abc' }, 'limit: expected number, got a non-numeric value'],
    [{ amountCents: 1, kind: 'a', limit: 2.5 }, 'limit: must be an integer'],
    [{ amountCents: 1, kind: 'a', limit: 501 }, 'limit: must be at most 500'],
    [{ amountCents: 1, kind: 'a', note: 'toolong' }, 'note: must be at most 5 characters'],
    [{ amountCents: 1, kind: 'a', note: 'a\u0000' }, 'note: must be well-formed Unicode text without NUL characters'],
    [{ amountCents: 1, kind: 'a', note: '\ud800' }, 'note: must be well-formed Unicode text without NUL characters'],
    [{ amountCents: 1, kind: 'a', extra: 1 }, 'extra: unknown field'],
    [[1], 'params: expected object, got array'],
    [{ amountCents: 1, kind: 'a' }, 'ok'],
  ])('%j -> %s', (value, expected) => {
    expect(messageOf(value)).toBe(expected);
  });
});
