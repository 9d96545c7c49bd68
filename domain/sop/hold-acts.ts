import { paramFacts as facts, type HoldActDescriber } from '../core/hold-acts.js';

/*
 * How sop's holds read in the approval inbox (decision 0067): an agent publishing, changing or archiving a
 * procedure others follow. The facts are the held call's; the summary beside them says the version.
 */

export const sopHoldActs: Readonly<Record<string, HoldActDescriber>> = {
  'sop.create': (_s, p) => ({
    title: "Publish a new procedure (an agent's)",
    facts: facts(p, [
      ['title', 'Title'],
      ['steps', 'Steps'],
      ['status', 'Status'],
    ]),
  }),
  'sop.update': (_s, p) => ({
    title: "Change or publish a procedure (an agent's)",
    facts: facts(p, [
      ['sopId', 'Procedure'],
      ['ifVersion', 'On version'],
      ['status', 'Status'],
      ['steps', 'Steps'],
    ]),
  }),
  'sop.delete': (_s, p) => ({ title: "Archive an active procedure (an agent's)", facts: facts(p, [['sopId', 'Procedure']]) }),
};
