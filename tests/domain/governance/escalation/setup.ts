import { expect } from 'vitest';
import { testServer, type TestServer } from '../../../helpers/harness.js';
import { ok } from '../../../helpers/calls.js';
import { TestClock } from '../../../helpers/clock.js';
import { ownerOf, person, type Person } from '../../../helpers/people.js';
import { newTask } from '../../../helpers/tasks.js';

/*
 * The escalation and handoff test kit: a server on a test clock (levels and offer expiry are read from it), people
 * of known standing, and tasks to hand off.
 */

/**
 * A human who decides approvals and works (org.write, handoff.send, board): role admin by its scopes (roleCovering),
 * so it sits among the org's admin humans, but without the admin scope (never an override).
 */
export const LEAD_SCOPES = ['org.read', 'org.write', 'handoff.send', 'board.read', 'board.write', 'board.work', 'approval.request', 'approval.decide'];

export interface GovOrg {
  s: TestServer;
  clock: TestClock;
  /** The org's creator: a human with the admin scope. */
  owner: Person;
  lead: Person;
  /** Humans of the member tier: write, hand off, never decide approvals. */
  mia: Person;
  max: Person;
  agentA: Person;
  agentB: Person;
  reader: Person;
  /** The org's admin humans (owner and lead), by id: the end of every escalation chain. */
  admins: string[];
}

export async function govOrg(date = '2026-11-20'): Promise<GovOrg> {
  const clock = new TestClock(date);
  const s = await testServer({ clock });
  const owner = await ownerOf(s);
  const lead = await person(s, 'Lena Lead', { scopes: LEAD_SCOPES, principalKind: 'human' });
  return {
    s,
    clock,
    owner,
    lead,
    mia: await person(s, 'Mia Member', { tier: 'member' }),
    max: await person(s, 'Max Member', { tier: 'member' }),
    agentA: await person(s, 'agent A', { tier: 'agent' }),
    agentB: await person(s, 'agent B', { tier: 'agent' }),
    reader: await person(s, 'reader', { tier: 'reader' }),
    admins: [owner.id, lead.id].sort(),
  };
}

/** Move the test clock on by whole days (it keeps 09:00). */
export function daysLater(clock: TestClock, days: number): void {
  const next = new Date(clock.now().getTime() + days * 86_400_000);
  clock.set(next.toISOString().slice(0, 10));
}

/** A new task, assigned to `assignee` and claimed by `claimKey` when given. */
export async function task(s: TestServer, claimKey?: string, assignee?: string): Promise<any> {
  const t = await newTask(s);
  if (assignee) await ok(s, 'board.assignTask', { taskId: t.id, assignee });
  if (claimKey) await ok(s, 'board.claim', { taskId: t.id, leaseSeconds: 3600 }, claimKey);
  return t;
}

/** GET /board.context for a task. */
export async function context(s: TestServer, taskId: string): Promise<any> {
  const res = await s.client.get('board.context', { taskId });
  expect(res.status, res.raw.slice(0, 300)).toBe(200);
  return res.body;
}
