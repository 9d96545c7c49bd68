import { expect } from 'vitest';
import { castServer, person, type Cast, type Person } from '../../helpers/people.js';
import { eventsAfter, head, mutate, ok, otherOrg } from '../../helpers/calls.js';
import type { TestClient } from '../../helpers/harness.js';

/*
 * The shared-memory families' org (knowledge, memory, sop): the usual cast, a second agent, a key without the
 * knowledge scopes, and another org; and the words their tests share.
 */

export interface MemOrg extends Cast {
  agent2: Person;
  /** org.read and org.write only: no knowledge scope. */
  noKnowledge: Person;
  other: TestClient;
}

export async function memOrg(): Promise<MemOrg> {
  const cast = await castServer();
  return {
    ...cast,
    agent2: await person(cast.s, 'Agent B', { tier: 'agent' }),
    noKnowledge: await person(cast.s, 'Narrow', { scopes: ['org.read', 'org.write'], principalKind: 'human' }),
    other: await otherOrg(cast.s),
  };
}

export const cite = [{ kind: 'email' as const, ref: 'eml_0123456789abcdef', quote: 'as agreed' }];

/** Append an entry as `who` (default the owner): the entry. */
export async function appendEntry(o: MemOrg, body: string, who: Person = o.owner, extra: Record<string, unknown> = {}) {
  const { result } = await mutate(o.s, 'knowledge.append', { body, sources: cite, ...extra }, 'knowledge.entry.append', { key: who.key });
  return result.entry;
}

/** A call that appends exactly one event of `kind` with noop: true, answering changed:false. */
export async function noop(o: MemOrg, method: string, params: unknown, kind: string, key?: string) {
  const { result, event } = await mutate(o.s, method, params, kind, { key });
  expect(result.changed).toBe(false);
  expect(event.payload.noop).toBe(true);
  return result;
}

/** A read (R) call: its result, and nothing appended. */
export async function read(o: MemOrg, method: string, params: unknown, key?: string) {
  const before = await head(o.s);
  const result = await ok(o.s, method, params, key);
  expect(await eventsAfter(o.s, before)).toEqual([]);
  return result;
}
