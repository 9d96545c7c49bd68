import type { HoldActDescriber, PlainAct } from '../../domain/core/hold-acts.js';
import { MONEY } from '../../domain/core/hold-acts.js';

export type { Fact, PlainAct } from '../../domain/core/hold-acts.js';

/**
 * What an approval would do, in plain words, for the inbox: the act's family describes it (descriptors'
 * `holdActs`, domain/core/hold-acts.ts); any other act gets its name and params in words. The summary itself is
 * always shown too. Only an approval bound to a held act gets an act's title and facts; any other one is titled as
 * not a signature.
 */

interface HeldAct {
  method: string;
  params: Record<string, unknown>;
}

/** `books.some_act` -> `Some act` for an action class without its own wording. */
const humanise = (actionClass: string): string => {
  const act = actionClass.split('.').pop() ?? actionClass;
  const words = act.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** `moveTasksTo` -> `Move tasks to`. */
const humaniseParam = (name: string): string => {
  const words = name
    .replace(/([A-Z])/g, ' $1')
    .toLowerCase()
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/**
 * Any family's held act without its own wording: the act's name in words, and each held param as a fact (the
 * exact params are shown in full beside it, behind the hash).
 */
function genericAct(actionClass: string, params: Record<string, unknown>): PlainAct {
  return {
    title: humanise(actionClass),
    facts: Object.entries(params).map(([k, v]) => ({
      label: humaniseParam(k),
      value: typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v),
    })),
  };
}

/** What the inbox titles an approval bound to no held act: approving it releases nothing, whatever it says. */
export const UNBOUND_TITLE = 'Not a signature';

export function describeApproval(
  a: { actionClass: string; subject: { summary: string }; heldAct: HeldAct | null },
  acts: ReadonlyMap<string, HoldActDescriber>,
): PlainAct {
  const amounts = () => [...a.subject.summary.matchAll(new RegExp(MONEY, 'g'))].map((m) => ({ label: 'Amount', value: m[0] }));
  // Bound to no held act, the summary is the requester's own words: never dressed up as a signature act.
  if (!a.heldAct) return { title: `${UNBOUND_TITLE}: ${humanise(a.actionClass)}`, facts: amounts() };
  const params = a.heldAct.params;
  const known = acts.get(a.actionClass);
  if (known) {
    const plain = known(a.subject.summary, params);
    if (plain.facts.length > 0) return plain;
  }
  if (known) return { title: known(a.subject.summary, params).title, facts: amounts() };
  // Any other family's act: its params in plain words, and every amount the summary names.
  const generic = genericAct(a.actionClass, params);
  return { title: generic.title, facts: [...amounts(), ...generic.facts] };
}
