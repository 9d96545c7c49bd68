import { expect } from 'vitest';
import { READ_HANDLERS } from '../../../domain/deployed.js';
import { setRights } from '../../helpers/people.js';
import type { TestClient } from '../../helpers/harness.js';

/** The board family's own test words; the shared ones (mutate, refused, newTask...) are in tests/helpers. */

type Res = { status: number; body: any; raw: string };

/** A GET read's payload, checked against the read's contract result schema. */
export function expectRead(path: string, res: Res): any {
  expect(res.status, `/${path}: ${res.raw.slice(0, 400)}`).toBe(200);
  const parsed = READ_HANDLERS.get(path)!.contract.result!.safeParse(res.body);
  expect(parsed.error?.issues ?? [], `/${path} payload matches its contract`).toEqual([]);
  return res.body;
}

/** Humans decide the board's governed acts. */
export async function declareGovernance(client: TestClient): Promise<void> {
  await setRights(client, [{ area: 'board', decidedBy: 'humans' }]);
}

/** Ids that are well-formed but exist nowhere. */
export const MISSING = { task: 'task_doesnotexist00', ws: 'ws_doesnotexist000', att: 'att_doesnotexist00' };
