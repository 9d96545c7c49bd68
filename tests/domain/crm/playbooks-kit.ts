import { mutate } from '../../helpers/calls.js';
import type { CrmOrg } from './kit.js';

/* What the playbook tests share: a definition from rules, and a playbook saved (and enabled) through the API. */

export const v = (name: string) => ({ var: name });

export const task = (id: string, when: unknown, title = `do ${id}`, priority?: number, dueInDays?: number) => ({
  id,
  when,
  ...(priority === undefined ? {} : { priority }),
  then: { action: 'task', title, ...(dueInDays === undefined ? {} : { dueInDays }) },
});

export const definition = (rules: unknown[], name = 'Playbook') => ({ name, rules });

export async function playbook(
  o: CrmOrg,
  rules: unknown[],
  { enable = false, name = 'Playbook', key }: { enable?: boolean; name?: string; key?: string } = {},
) {
  const { result } = await mutate(o.s, 'crm.savePlaybook', { definition: definition(rules, name) }, 'crm.playbook.save', { key });
  if (!enable) return result.playbook;
  return (await mutate(o.s, 'crm.togglePlaybook', { playbookId: result.playbook.id, enabled: true }, 'crm.playbook.toggle', { key })).result.playbook;
}
