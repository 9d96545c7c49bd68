import { describe, expect, it } from 'vitest';
import { ApiError } from '../../protocol/errors.js';
import { canonicalJson } from '../../protocol/hashing.js';
import { fieldPath, jsonBoundsIssue, MAX_JSON_DEPTH, MAX_JSON_SIZE } from '../../protocol/json-bounds.js';

const objects = (depth: number): unknown => JSON.parse(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
const arrays = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('jsonBoundsIssue', () => {
  it('accepts 64 levels of objects or arrays and refuses 65, naming the path', () => {
    expect(jsonBoundsIssue(objects(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonBoundsIssue(arrays(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonBoundsIssue(objects(MAX_JSON_DEPTH + 1))).toBe('a.a.a.a.a.a.a.a.…(64 levels): nested more than 64 levels deep');
    expect(jsonBoundsIssue(arrays(MAX_JSON_DEPTH + 1))).toBe('0.0.0.0.0.0.0.0.…(64 levels): nested more than 64 levels deep');
    expect(jsonBoundsIssue({ ok: 1, x: [1, { y: objects(70) }] }, { prefix: 'params' })).toMatch(
      /^params\.x\.1\.y\.a\.a\.a\.a\.a\.…\(\d+ levels\): nested more than 64/,
    );
  });

  it('walks 1,000,000 levels without recursion', () => {
    let v: unknown = 1;
    for (let i = 0; i < 1_000_000; i++) v = [v];
    expect(jsonBoundsIssue(v)).toMatch(/nested more than 64 levels deep$/);
  });

  it('refuses more than about 1 MB of JSON, naming the root', () => {
    expect(jsonBoundsIssue({ s: 'x'.repeat(MAX_JSON_SIZE) }, { root: 'query' })).toBe(`query: larger than ${MAX_JSON_SIZE} characters of JSON`);
    expect(jsonBoundsIssue(new Array(MAX_JSON_SIZE).fill(0))).toBe(`params: larger than ${MAX_JSON_SIZE} characters of JSON`);
    expect(jsonBoundsIssue({ s: 'x'.repeat(MAX_JSON_SIZE / 2) })).toBeUndefined();
  });

  it('paths cut long names and count long paths', () => {
    expect(fieldPath(['x'.repeat(100), 3])).toBe(`${'x'.repeat(40)}….3`);
    expect(fieldPath([], { root: 'arguments' })).toBe('arguments');
    expect(fieldPath(['a'], { prefix: 'params' })).toBe('params.a');
  });
});

describe('canonicalJson on hostile input', () => {
  it('refuses 10,000 levels with BAD_REQUEST instead of overflowing the stack', () => {
    let thrown: unknown;
    try {
      canonicalJson(objects(10_000));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).code).toBe('BAD_REQUEST');
    expect((thrown as ApiError).message).toMatch(/^a\.a\.a.*: nested more than 128 levels deep$/);
  });

  it('still serialises what is built around a bounded input (128 levels)', () => {
    expect(canonicalJson({ method: 'm', params: objects(2 * MAX_JSON_DEPTH - 1) })).toMatch(/^\{"method":"m","params":\{"a":/);
  });
});
