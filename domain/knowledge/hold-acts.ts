import { paramFacts as facts, type HoldActDescriber } from '../core/hold-acts.js';

/*
 * How knowledge's holds read in the approval inbox (decision 0067): an agent changing an entry a human verified.
 * The facts are the held call's; the summary beside them says the entry's revision.
 */

export const knowledgeHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'knowledge.invalidate': (_s, p) => ({
    title: "Invalidate a verified knowledge entry (an agent's)",
    facts: facts(p, [
      ['entryId', 'Entry'],
      ['reason', 'Reason'],
    ]),
  }),
  'knowledge.replace': (_s, p) => ({
    title: "Replace a verified knowledge entry (an agent's)",
    facts: facts(p, [
      ['entryId', 'Entry'],
      ['body', 'New text'],
      ['sources', 'Sources'],
      ['validFrom', 'Valid from'],
    ]),
  }),
  'knowledge.rewrite': (_s, p) => ({
    title: "Reword a verified knowledge entry (an agent's)",
    facts: facts(p, [
      ['entryId', 'Entry'],
      ['body', 'New text'],
      ['ifRevision', 'On revision'],
    ]),
  }),
};
