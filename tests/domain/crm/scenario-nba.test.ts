import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, read, refused } from '../../helpers/calls.js';
import { account, contact, crmOrg, deal, type CrmOrg } from './kit.js';
import { definition, task, v } from './playbooks-kit.js';

/*
 * Design scenario 4 (families/crm.md): a playbook with an unknown fact is refused with its path; fixed, saved and
 * enabled; the clock moves 22 days and next best action recommends the stalled deal's rule, twice identically; the
 * recommendation followed is a board task on the deal. An agent does it all with its own key.
 */

let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg('2026-07-01');
});
afterAll(() => o.s.close());

describe('scenario 4: playbook to next best action to a board task', () => {
  it('unknown fact -> BAD_REQUEST path; enable; +22 d -> stalled, twice identical; followed -> board task', async () => {
    const key = o.agent.key;
    const d = await deal(o, (await account(o)).id, { stage: 'proposal', amountCents: 4_800_000, closeDate: '2026-09-30' });
    await mutate(o.s, 'crm.linkContact', { dealId: d.id, contactId: (await contact(o)).id, role: 'champion' }, 'crm.contact.link');
    const { version } = (await read(o.s, 'crm.getDeal', { dealId: d.id })).deal;
    const rules = [
      { id: 'early', when: { '<': [v('deal.daysInStage'), 3] }, then: { action: 'suggest', text: 'Send the recap' } },
      { id: 'no-eb', when: { '!': v('hasRole.economic_buyer') }, priority: 400, then: { action: 'suggest', text: 'Find the economic buyer' } },
      task('stalled-big', { and: [v('risk.stalled'), { '>': [v('deal.amout'), 1_000_000] }] }, 'Call the champion about timing', 100, 2),
    ];
    await refused(o.s, 'crm.savePlaybook', { definition: definition(rules, 'Stalled big deals') }, 'BAD_REQUEST', {
      key,
      message: 'definition.rules[2].when.and[1].>[0]: unknown fact deal.amout; did you mean deal.amountCents?',
    });
    // The design's exact path, for a rule whose condition is the comparison itself.
    const flat = [...rules.slice(0, 2), task('stalled-big', { '>': [v('deal.amout'), 1_000_000] })];
    const check = await read(o.s, 'crm.compilePlaybook', { definition: definition(flat) }, key);
    expect(check.diagnostics[0]).toEqual({ path: 'rules[2].when.>[0]', message: 'unknown fact deal.amout; did you mean deal.amountCents?' });
    await refused(o.s, 'crm.savePlaybook', { definition: definition(flat) }, 'BAD_REQUEST', {
      key,
      message: /^definition\.rules\[2\]\.when\.>\[0\]: unknown fact deal\.amout/,
    });

    rules[2] = task('stalled-big', { and: [v('risk.stalled'), { '>': [v('deal.amountCents'), 1_000_000] }] }, 'Call the champion about timing', 100, 2);
    const saved = (await mutate(o.s, 'crm.savePlaybook', { definition: definition(rules, 'Stalled big deals') }, 'crm.playbook.save', { key })).result.playbook;
    expect(saved.enabled).toBe(false);
    const disabled = (await mutate(o.s, 'crm.runNextBestAction', { dealId: d.id }, 'crm.nba.run', { key })).result.recommendations;
    expect(disabled.map((r: any) => r.ruleId)).toEqual(['risk.noPower', 'risk.singleThreaded']);
    await mutate(o.s, 'crm.togglePlaybook', { playbookId: saved.id, enabled: true }, 'crm.playbook.toggle', { key });

    // Day 0: only the early rule and the missing economic buyer.
    const day0 = (await mutate(o.s, 'crm.runNextBestAction', { dealId: d.id }, 'crm.nba.run', { key })).result.recommendations;
    expect(day0.map((r: any) => r.ruleId)).toEqual(['risk.noPower', 'no-eb', 'risk.singleThreaded', 'early']);

    // +22 days: proposal rots after 21.
    o.clock.set('2026-07-23');
    const run = async () => (await mutate(o.s, 'crm.runNextBestAction', { dealId: d.id }, 'crm.nba.run', { key })).result;
    const first = await run();
    const second = await run();
    const shape = (r: any) => r.recommendations.map(({ id: _i, suggestedCall: _c, ...rest }: any) => rest);
    expect(shape(second)).toEqual(shape(first));
    expect(first.recommendations.map((r: any) => r.ruleId)).toEqual([
      'stalled-big',
      'risk.stalled',
      'risk.noPower',
      'risk.noActivity',
      'no-eb',
      'risk.singleThreaded',
    ]);
    const rec = first.recommendations[0];
    expect(rec).toMatchObject({ rank: 1, priority: 100, playbookId: saved.id, playbookVersion: 1, action: 'task', text: 'Call the champion about timing' });
    expect(rec.suggestedCall).toEqual({ method: 'crm.taskFollowThrough', params: { dealId: d.id, recommendationId: rec.id } });

    const followed = await mutate(o.s, rec.suggestedCall.method, rec.suggestedCall.params, 'crm.task.create', { key });
    expect(followed.result).toMatchObject({ title: 'Call the champion about timing', dueDate: '2026-07-25', assignee: o.owner.id, created: true });
    const got = await read(o.s, 'crm.getDeal', { dealId: d.id }, key);
    expect(got.tasks).toEqual([{ taskId: followed.result.taskId, recommendationId: rec.id, createdAt: '2026-07-23T09:00:00.000Z' }]);
    expect(got.deal).toMatchObject({ stage: 'proposal', version });
  });
});
