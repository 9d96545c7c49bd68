import type { z } from 'zod';
import { crm, type PlaybookDefinition } from '../../../protocol/methods/crm/index.js';
import { checkWhen, type Diagnostic, type Node } from './rules.js';

/*
 * A playbook definition (its shape already checked by the contract) compiled: each rule's `when` to a typed tree,
 * duplicate rule ids refused, and a suggest action's call checked against that method's own contract so the
 * suggestedCall a run records is ready to run. Diagnostics name the path inside the definition.
 */

export type Definition = z.output<typeof PlaybookDefinition>;
export type Rule = Definition['rules'][number];
export type Action = Rule['then'];

export interface CompiledRule {
  id: string;
  priority: number;
  when: Node;
  then: Action;
  facts: string[];
}

export interface Compiled {
  valid: boolean;
  diagnostics: Diagnostic[];
  rules: CompiledRule[];
}

/** A placeholder id for checking a suggested call's params: the run puts the deal's id there. */
const PLACEHOLDER_DEAL = 'deal_placeholder';

function checkCall(action: Action, path: string): Diagnostic[] {
  if (action.action !== 'suggest' || !action.call) return [];
  const name = action.call.method.slice('crm.'.length);
  const contract = (crm as Record<string, { params: z.ZodType } | undefined>)[name];
  if (!contract) return [{ path: `${path}.method`, message: `${action.call.method} is not served here yet; suggest without a call` }];
  if ('dealId' in action.call.params) return [{ path: `${path}.params.dealId`, message: 'leave dealId out: the run fills in the deal’s' }];
  const parsed = contract.params.safeParse({ ...action.call.params, dealId: PLACEHOLDER_DEAL });
  if (parsed.success) return [];
  return parsed.error.issues.map((i) => ({
    path: [`${path}.params`, ...i.path.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`))].join(''),
    message: i.message,
  }));
}

export function compile(def: Definition): Compiled {
  const diagnostics: Diagnostic[] = [];
  const rules: CompiledRule[] = [];
  const seen = new Map<string, number>();
  def.rules.forEach((rule, i) => {
    const at = `rules[${i}]`;
    const first = seen.get(rule.id);
    if (first !== undefined) diagnostics.push({ path: `${at}.id`, message: `duplicate rule id ${rule.id} (rules[${first}] has it)` });
    else seen.set(rule.id, i);
    const when = checkWhen(rule.when, `${at}.when`);
    diagnostics.push(...when.diagnostics, ...checkCall(rule.then, `${at}.then.call`));
    if (when.node) rules.push({ id: rule.id, priority: rule.priority, when: when.node, then: rule.then, facts: when.facts });
  });
  return { valid: diagnostics.length === 0, diagnostics, rules };
}

/** The words a recommendation shows for an action. */
export const actionText = (a: Action): string => (a.action === 'suggest' || a.action === 'flagRisk' ? a.text : a.title);
