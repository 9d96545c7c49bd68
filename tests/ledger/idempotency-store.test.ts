import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../protocol/errors.js';
import { claimKey, findReplay, paramsHash, type KeyedCall } from '../../ledger/idempotency.js';
import { openFrame, sealFrame } from '../../ledger/sealed-frame.js';
import type { Runtime } from '../../domain/deployed.js';
import { freshOrg, testRuntime, type TestOrg } from '../helpers/harness.js';

/** The idempotency store below the pipeline: the params check on every lookup, and sealed frames. */
let runtime: Runtime;
let org: TestOrg;
beforeAll(async () => {
  runtime = await testRuntime();
  org = await freshOrg(runtime, 'store');
});
afterAll(() => runtime.close());

const call = (key: string, params: unknown): KeyedCall => ({
  orgId: org.orgId,
  actor: 'usr_store',
  method: 'board.createTask',
  key,
  paramsHash: paramsHash(params),
});

/** A committed first attempt under `key` with `params`. */
async function commitFirst(key: string, params: unknown, frame: string) {
  await runtime.db.tx(async (q) => {
    expect(await claimKey(q, call(key, params))).toEqual({});
    void q.atCommit('UPDATE idempotency SET frame = $3 WHERE org_id = $1 AND key = $2', [org.orgId, key, frame]);
  });
}

describe('params hash', () => {
  it('is the SHA-256 of the canonical JSON: key order does not change it, a value does', () => {
    expect(paramsHash({ a: 1, b: [1, 2] })).toBe(paramsHash({ b: [1, 2], a: 1 }));
    expect(paramsHash({ a: 1 })).not.toBe(paramsHash({ a: 2 }));
    expect(paramsHash(undefined)).toBe(paramsHash({}));
    // Left-out fields (a signature act's proof) do not count; every other one does.
    expect(paramsHash({ a: 1, approvalId: 'apr_x' }, ['approvalId'])).toBe(paramsHash({ a: 1 }));
    expect(paramsHash({ a: 1, approvalId: 'apr_x' })).not.toBe(paramsHash({ a: 1 }));
    expect(paramsHash({ a: 2, approvalId: 'apr_x' }, ['approvalId'])).not.toBe(paramsHash({ a: 1 }));
  });

  it('a claim that finds the key committed with other params refuses (the path of a duplicate that waited for the first)', async () => {
    await commitFirst('claim-other', { title: 'first' }, '{"ok":true,"result":1}');
    const err = await runtime.db.tx((q) => claimKey(q, { ...call('claim-other', { title: 'second' }), keyName: 'idempotencyKey' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('BAD_REQUEST');
    expect((err as ApiError).message).toMatch(
      /^idempotencyKey: already used for board\.createTask with different params \(first call at \d{4}-\d\d-\d\dT[\d:.]+Z\)/,
    );
    // The same params get the stored call back.
    const same = await runtime.db.tx((q) => claimKey(q, call('claim-other', { title: 'first' })));
    expect(same.replay?.frame).toBe('{"ok":true,"result":1}');
  });

  it('findReplay refuses other params the same way, and answers undefined for a key never used', async () => {
    await commitFirst('find-other', { title: 'first' }, '{"ok":true,"result":2}');
    await expect(findReplay(runtime.db, call('find-other', { title: 'other' }))).rejects.toThrow(/^x-idempotency-key: already used/);
    expect((await findReplay(runtime.db, call('find-other', { title: 'first' })))?.frame).toBe('{"ok":true,"result":2}');
    expect(await findReplay(runtime.db, call('never-used', {}))).toBeUndefined();
  });
});

describe('sealed frames', () => {
  const scope = { orgId: 'org_a', actor: 'usr_a', method: 'settings.mintApiKey', key: 'k1' };
  const frame = '{"ok":true,"result":{"keyId":"key_x","apiKey":"wops_secretsecret"}}';

  it('open with the same bearer and row; hold nothing of the frame in clear; differ on every seal', () => {
    const sealed = sealFrame(frame, 'wops_caller', scope);
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('wops_secretsecret');
    expect(Buffer.from(sealed.split('.')[3], 'base64url').toString('latin1')).not.toContain('secretsecret');
    expect(openFrame(sealed, 'wops_caller', scope)).toBe(frame);
    expect(sealFrame(frame, 'wops_caller', scope)).not.toBe(sealed);
  });

  it('another bearer, another row, a tampered or malformed blob: nothing opens', () => {
    const sealed = sealFrame(frame, 'wops_caller', scope);
    expect(openFrame(sealed, 'wops_other', scope)).toBeUndefined();
    for (const other of [
      { ...scope, key: 'k2' },
      { ...scope, actor: 'usr_b' },
      { ...scope, orgId: 'org_b' },
      { ...scope, method: 'org.mintApiKey' },
    ]) {
      expect(openFrame(sealed, 'wops_caller', other)).toBeUndefined();
    }
    const [v, salt, iv, body] = sealed.split('.');
    const flipped = Buffer.from(body, 'base64url');
    flipped[0] ^= 1;
    expect(openFrame([v, salt, iv, flipped.toString('base64url')].join('.'), 'wops_caller', scope)).toBeUndefined();
    for (const bad of ['', 'v1', 'v2.a.b.c', `${sealed}.x`, 'v1.a.b.', 'v1.AAAA.AAAA.AAAA']) expect(openFrame(bad, 'wops_caller', scope)).toBeUndefined();
  });

  it('a key of 255 characters outside ASCII still seals (the row context is digested for HKDF)', () => {
    const long = { ...scope, key: 'ключ'.repeat(63) + 'abc' };
    expect(openFrame(sealFrame(frame, 'wops_caller', long), 'wops_caller', long)).toBe(frame);
  });
});
