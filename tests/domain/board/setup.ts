import { expect } from 'vitest';
import { ERROR_STATUS, type ErrorCode } from '../../../protocol/errors.js';
import { READ_HANDLERS } from '../../../domain/deployed.js';
import type { TestClient } from '../../helpers/harness.js';

/** Shared helpers for the board family's tests. */

export { eventsAfter, expectOk, head, otherOrg } from '../../helpers/calls.js';
import { eventsAfter, expectOk, head } from '../../helpers/calls.js';

type Res = { status: number; body: any; raw: string; headers: Record<string, unknown> };

/** Assert an error frame with this code and its status, and (when given) a message matching. */
export function expectError(res: Res, code: ErrorCode, message?: string | RegExp): string {
  expect(res.body, `expected ${code}, got ${res.raw.slice(0, 400)}`).toMatchObject({ ok: false, error: { code } });
  expect(Object.keys(res.body).sort()).toEqual(['error', 'ok']);
  expect(res.status).toBe(ERROR_STATUS[code]);
  if (typeof message === 'string') expect(res.body.error.message).toBe(message);
  else if (message) expect(res.body.error.message).toMatch(message);
  return res.body.error.message;
}


/** A GET read's payload, checked against the read's contract result schema. */
export function expectRead(path: string, res: Res): any {
  expect(res.status, `/${path}: ${res.raw.slice(0, 400)}`).toBe(200);
  const parsed = READ_HANDLERS.get(path)!.contract.result!.safeParse(res.body);
  expect(parsed.error?.issues ?? [], `/${path} payload matches its contract`).toEqual([]);
  return res.body;
}



/**
 * Call a mutating method that must succeed and append exactly one event of `kind` (about `entityId` when
 * given). Returns the checked result and the event.
 */
export async function mutate(
  client: TestClient,
  method: string,
  params: unknown,
  kind: string,
  opts: { key?: string; idem?: string; entityId?: (result: any) => string } = {},
): Promise<{ result: any; event: any; res: Res }> {
  const before = await head(client, opts.key);
  const res = await client.rpc(method, params, { key: opts.key, idem: opts.idem });
  const result = expectOk(method, res);
  const events = await eventsAfter(client, before, opts.key);
  expect(events.map((e) => e.kind), `${method} appends exactly one ${kind}`).toEqual([kind]);
  expect(events[0].family).toBe('board');
  if (opts.entityId) expect(events[0].entity_id).toBe(opts.entityId(result));
  return { result, event: events[0], res };
}

/** Call that must fail with `code` and append nothing. */
export async function refused(
  client: TestClient,
  method: string,
  params: unknown,
  code: ErrorCode,
  message?: string | RegExp,
  opts: { key?: string } = {},
): Promise<string> {
  const before = await head(client, opts.key);
  const res = await client.rpc(method, params, { key: opts.key });
  const text = expectError(res, code, message);
  expect(await head(client, opts.key), `${method} refused with ${code} appends nothing`).toBe(before);
  return text;
}


export async function declareGovernance(client: TestClient): Promise<void> {
  await client.ok('governance.set_decision_rights', { rights: [{ area: 'board', decidedBy: 'humans' }] });
}

let counter = 0;
export async function newTask(client: TestClient, extra: Record<string, unknown> = {}, key?: string): Promise<any> {
  return client.ok('board.createTask', { title: `task ${++counter}`, ...extra }, { key });
}

export async function newWorkstream(client: TestClient, extra: Record<string, unknown> = {}): Promise<any> {
  return client.ok('board.createWorkstream', { name: `stream ${++counter}`, ...extra });
}

/** Ids that are well-formed but exist nowhere. */
export const MISSING = { task: 'task_doesnotexist00', ws: 'ws_doesnotexist000', att: 'att_doesnotexist00' };
