import { expect } from 'vitest';
import { METHOD_HANDLERS } from '../../domain/deployed.js';
import type { ErrorCode } from '../../protocol/errors.js';
import { expectError } from './frames.js';
import { TestClient, freshOrg, type CallOptions, type TestServer } from './harness.js';

/**
 * The call words every family's tests share. Each takes a test server (its admin client calls) or a client first;
 * the ledger around a call is read with that client's own key, so it sees every event of the org.
 */

export type Caller = TestServer | TestClient;

export const clientOf = (on: Caller): TestClient => ('client' in on ? on.client : on);

type Res = { status: number; body: any; raw: string; headers: Record<string, unknown> };

/** The result of a successful call, checked against the method's contract result schema. */
export function expectOk(method: string, res: Res): any {
  expect(res.status, `${method}: ${res.raw.slice(0, 500)}`).toBe(200);
  expect(res.body.ok, `${method}: ${res.raw.slice(0, 500)}`).toBe(true);
  const schema = METHOD_HANDLERS.get(method)?.contract.result;
  expect(schema, `${method} has a result schema`).toBeDefined();
  const parsed = schema!.safeParse(res.body.result);
  expect(parsed.error?.issues ?? [], `${method} result matches its contract`).toEqual([]);
  return res.body.result;
}

/** The org's head seq. */
export async function head(on: Caller, key?: string): Promise<number> {
  const snap = await clientOf(on).get('snapshot', {}, { key });
  expect(snap.status).toBe(200);
  return snap.body.head.seq as number;
}

/** Events appended after `afterSeq`. */
export async function eventsAfter(on: Caller, afterSeq: number, key?: string): Promise<any[]> {
  const page = await clientOf(on).get('events', { cursor: afterSeq, limit: 500 }, { key });
  expect(page.status).toBe(200);
  return page.body.events;
}

/** A second org with its own admin client, for another-org -> NOT_FOUND checks. */
export async function otherOrg(s: TestServer): Promise<TestClient> {
  const org = await freshOrg(s.runtime, 'other');
  return new TestClient(s.app, org.adminKey);
}

/** A call as it answers, unchecked. */
export const rpc = (on: Caller, method: string, params: unknown, key?: string, idem?: string) => clientOf(on).rpc(method, params, { key, idem });

/** A call that must succeed, checked against its contract: its result. */
export async function ok(on: Caller, method: string, params: unknown, key?: string, idem?: string): Promise<any> {
  return expectOk(method, await rpc(on, method, params, key, idem));
}

/** A read (R) call that must succeed appending nothing: its result, checked against its contract. */
export async function read(on: Caller, method: string, params: unknown, key?: string): Promise<any> {
  const before = await head(on);
  const result = await ok(on, method, params, key);
  expect(await eventsAfter(on, before), `${method} is R: it appends nothing`).toEqual([]);
  return result;
}

/** An act already done: exactly one event of `kind` with noop: true, and changed:false (created:false) answered. */
export async function noop(on: Caller, method: string, params: unknown, kind: string, key?: string): Promise<any> {
  const { result, event } = await mutate(on, method, params, kind, { key });
  expect(result.changed ?? result.created, `${method} answers changed:false`).toBe(false);
  expect(event.payload.noop, `${kind} says noop`).toBe(true);
  return result;
}

/** A call that must fail (any code): its error {code, message}. */
export async function err(on: Caller, method: string, params: unknown, key?: string): Promise<{ code: string; message: string }> {
  const res = await rpc(on, method, params, key);
  expect(res.body.ok, `${method} should fail: ${res.raw.slice(0, 300)}`).toBe(false);
  return res.body.error;
}

export interface MutateOptions extends CallOptions {
  /** The id the event must be about, read from the result. */
  entityId?: (result: any) => string;
}

/**
 * A mutation that must succeed appending exactly one event of `kind`, of the method's family (and about `entityId`
 * when given): the result checked against its contract, the event, and the response.
 */
export async function mutate(
  on: Caller,
  method: string,
  params: unknown,
  kind: string,
  opts: MutateOptions = {},
): Promise<{ result: any; event: any; res: Res }> {
  const client = clientOf(on);
  const before = await head(client);
  const res = await client.rpc(method, params, { key: opts.key, idem: opts.idem });
  const result = expectOk(method, res);
  const events = await eventsAfter(client, before);
  expect(
    events.map((e) => e.kind),
    `${method} appends exactly one ${kind}`,
  ).toEqual([kind]);
  expect(events[0].family, `${method} appends an event of its family`).toBe(method.slice(0, method.indexOf('.')));
  if (opts.entityId) expect(events[0].entity_id).toBe(opts.entityId(result));
  return { result, event: events[0], res };
}

/** A call that must fail with `code` (and, when given, a message matching), appending nothing: its message. */
export async function refused(
  on: Caller,
  method: string,
  params: unknown,
  code: ErrorCode,
  opts: CallOptions & { message?: string | RegExp } = {},
): Promise<string> {
  const client = clientOf(on);
  const before = await head(client);
  const res = await client.rpc(method, params, { key: opts.key, idem: opts.idem });
  const error = expectError(res, code, opts.message, method);
  expect(await head(client), `${method} refused with ${code} appends nothing`).toBe(before);
  return error.message;
}

/** A call that must answer a hold frame (appending only `holdKind`, when given): its approval block. */
export async function held(on: Caller, method: string, params: unknown, opts: CallOptions & { holdKind?: string } = {}): Promise<any> {
  const client = clientOf(on);
  const before = opts.holdKind ? await head(client) : 0;
  const res = await client.rpc(method, params, { key: opts.key, idem: opts.idem });
  expect(res.body.ok, `${method}: ${res.raw.slice(0, 300)}`).toBe(true);
  expect(res.body.result.status, `${method} should hold: ${res.raw.slice(0, 300)}`).toBe('approval_required');
  if (opts.holdKind) expect((await eventsAfter(client, before)).map((e) => e.kind)).toEqual([opts.holdKind]);
  return res.body.result.approval;
}

/** What approval.request files: a hold frame's approval block, or what a refusal names. */
export interface FiledApproval {
  actionClass: string;
  payloadHash: string;
  subject: { kind: string; subjectId: string; summary: string };
}

/**
 * File `approval.request` for `approval` as `requester`, and have a human decide it: `approver`, or the client's
 * own key (an org admin). Returns the approvalId (the requester retries with it).
 */
export async function fileAndApprove(
  on: Caller,
  approval: FiledApproval,
  opts: { requester: string; approver?: string; decision?: 'approve' | 'reject' },
): Promise<string> {
  const { actionClass, payloadHash, subject } = approval;
  const filed = await ok(on, 'approval.request', { actionClass, payloadHash, subject }, opts.requester);
  await ok(on, 'approval.resolve', { approvalId: filed.approvalId, decision: opts.decision ?? 'approve' }, opts.approver);
  return filed.approvalId as string;
}

/** fileAndApprove with both people named: the approvalId. */
export const approved = (on: Caller, approval: FiledApproval, requesterKey: string, deciderKey: string): Promise<string> =>
  fileAndApprove(on, approval, { requester: requesterKey, approver: deciderKey });
