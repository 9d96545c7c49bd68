import { paramFacts as facts, str, type HoldActDescriber } from '../core/hold-acts.js';

/*
 * How memory's holds read in the approval inbox (decision 0067): an agent writing or merging into a block other
 * principals load. The facts are the held call's; the summary beside them says the version and who loads it.
 */

export const memoryHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'memory.author': (_s, p) => ({
    title: "Write a memory block others load (an agent's)",
    facts: [
      ...facts(p, [
        ['label', 'Block'],
        ['value', 'Value'],
      ]),
      { label: 'Loaded by', value: typeof p.audience === 'object' && p.audience !== null ? 'the agents named' : (str(p.audience) ?? 'self') },
    ],
  }),
  'memory.merge_amendment': (_s, p) => ({
    title: "Merge an amendment into a memory block others load (an agent's)",
    facts: facts(p, [
      ['amendmentId', 'Amendment'],
      ['decision', 'Decision'],
    ]),
  }),
};
