import { castServer, person, type Cast, type Person } from '../../helpers/people.js';
import { mutate, otherOrg } from '../../helpers/calls.js';
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
