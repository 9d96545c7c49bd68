import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mutate, noop, read, refused } from '../../helpers/calls.js';
import { account, crmOrg, deal, type CrmOrg } from './kit.js';
import { definition, playbook, task, v } from './playbooks-kit.js';

/* Playbooks: compilePlaybook, savePlaybook (versions), togglePlaybook, deletePlaybook, listPlaybooks; and their misuse. */

let o: CrmOrg;
beforeAll(async () => {
  o = await crmOrg('2026-07-01');
});
afterAll(() => o.s.close());

const stalled = [task('stalled-call', v('risk.stalled'), 'Call the champion', 100, 2)];
const big = { id: 'big', when: { '>': [v('deal.amountCents'), 500_000] }, then: { action: 'suggest', text: 'Bring in legal early' } };

describe('crm.compilePlaybook', () => {
  it('valid: the rules as compiled and the facts they read; invalid: every diagnostic with its path', async () => {
    const ok = await read(o.s, 'crm.compilePlaybook', { definition: definition([...stalled, big]) });
    expect(ok).toEqual({
      valid: true,
      diagnostics: [],
      rules: [
        { id: 'stalled-call', priority: 100, action: 'task', facts: ['risk.stalled'] },
        { id: 'big', priority: 500, action: 'suggest', facts: ['deal.amountCents'] },
      ],
      dryRun: null,
    });
    const bad = await read(o.s, 'crm.compilePlaybook', {
      definition: definition([big, big, { ...big, id: 'c', when: { '>': [v('deal.amout'), 1] } }, { ...big, id: 'd', when: { '<': [v('deal.stage'), 1] } }]),
    });
    expect(bad.valid).toBe(false);
    expect(bad.diagnostics).toEqual([
      { path: 'rules[1].id', message: 'duplicate rule id big (rules[0] has it)' },
      { path: 'rules[2].when.>[0]', message: 'unknown fact deal.amout; did you mean deal.amountCents?' },
      { path: 'rules[3].when.<[0]', message: 'must be a number, not a stage' },
    ]);
  });

  it('a dry run on a deal: its facts at the server’s clock and the rules that fire, by priority', async () => {
    o.clock.set('2026-07-01');
    const d = await deal(o, (await account(o)).id, { stage: 'qualified', amountCents: 900_000, closeDate: '2026-08-31' });
    o.clock.set('2026-07-23');
    const r = await read(o.s, 'crm.compilePlaybook', { definition: definition([big, ...stalled]), dealId: d.id });
    expect(r.dryRun).toMatchObject({
      dealId: d.id,
      asOf: '2026-07-23T09:00:00.000Z',
      fired: [
        { ruleId: 'stalled-call', priority: 100, action: 'task', text: 'Call the champion' },
        { ruleId: 'big', priority: 500, action: 'suggest', text: 'Bring in legal early' },
      ],
    });
    expect(r.dryRun.facts).toMatchObject({
      'deal.stage': 'qualified',
      'deal.amountCents': 900_000,
      'deal.daysInStage': 22,
      'deal.daysSinceActivity': 22,
      'deal.daysToClose': 39,
      'deal.closeDatePushes': 0,
      'hasRole.champion': false,
      'offer.discountBps': null,
      'room.daysSinceGuestView': null,
      'risk.stalled': true,
      'risk.noActivity': true,
      'risk.overdue': false,
    });
    o.clock.set('2026-07-01');
  });

  it('a saved playbook by id; misuse', async () => {
    const p = await playbook(o, stalled);
    expect((await read(o.s, 'crm.compilePlaybook', { playbookId: p.id })).valid).toBe(true);
    await refused(o.s, 'crm.compilePlaybook', {}, 'BAD_REQUEST', { message: /^definition: give definition/ });
    await refused(o.s, 'crm.compilePlaybook', { definition: definition(stalled), playbookId: p.id }, 'BAD_REQUEST', { message: /^playbookId: / });
    await refused(o.s, 'crm.compilePlaybook', { playbookId: 'pbk_nosuch' }, 'NOT_FOUND', { message: 'playbook pbk_nosuch not found' });
    await refused(o.other, 'crm.compilePlaybook', { playbookId: p.id }, 'NOT_FOUND');
    await refused(o.s, 'crm.compilePlaybook', { definition: definition(stalled), dealId: 'deal_nosuch' }, 'NOT_FOUND', {
      message: 'deal deal_nosuch not found',
    });
    await refused(o.s, 'crm.compilePlaybook', { playbookId: p.id }, 'FORBIDDEN_SCOPE', { key: o.noCrm.key });
  });
});

describe('crm.savePlaybook', () => {
  it('a new playbook starts disabled at version 1; a new version keeps its state; the same again: changed:false', async () => {
    const { result, event } = await mutate(o.s, 'crm.savePlaybook', { definition: definition(stalled, 'Stalled deals') }, 'crm.playbook.save', {
      entityId: (r) => r.playbook.id,
    });
    const p = result.playbook;
    expect(p).toMatchObject({ name: 'Stalled deals', version: 1, enabled: false, status: 'active', rules: 1 });
    expect(event.payload).toEqual({ playbookId: p.id, version: 1, rules: 1, enabled: false, created: true });
    await mutate(o.s, 'crm.togglePlaybook', { playbookId: p.id, enabled: true }, 'crm.playbook.toggle');
    const v2 = await mutate(
      o.s,
      'crm.savePlaybook',
      { definition: definition([...stalled, big], 'Stalled deals'), playbookId: p.id, expectedVersion: 1 },
      'crm.playbook.save',
    );
    expect(v2.result.playbook).toMatchObject({ version: 2, enabled: true, rules: 2 });
    expect(v2.event.payload).toEqual({ playbookId: p.id, version: 2, rules: 2, enabled: true, created: false });
    // The same definition (keys in another order): nothing new.
    const same = { rules: [stalled[0], { then: big.then, when: big.when, id: big.id }], name: 'Stalled deals' };
    expect((await noop(o.s, 'crm.savePlaybook', { definition: same, playbookId: p.id }, 'crm.playbook.save')).playbook.version).toBe(2);
    const versions = await o.s.runtime.db.query<{ version: number }>(
      'SELECT version FROM crm_playbook_versions WHERE org_id = $1 AND playbook_id = $2 ORDER BY version',
      [o.s.org.orgId, p.id],
    );
    expect(versions.map((r) => r.version)).toEqual([1, 2]);
    await refused(o.s, 'crm.savePlaybook', { definition: definition(stalled), playbookId: p.id, expectedVersion: 1 }, 'CONFLICT', {
      message: /is at version 2, not 1: read it again/,
    });
  });

  it('refuses the first diagnostic as BAD_REQUEST with its path, and bad shapes by field, writing nothing', async () => {
    const bad = [big, big, { ...big, id: 'x', when: { '>': [v('deal.amout'), 100] } }];
    await refused(o.s, 'crm.savePlaybook', { definition: definition(bad.slice(1)) }, 'BAD_REQUEST', {
      message: 'definition.rules[1].when.>[0]: unknown fact deal.amout; did you mean deal.amountCents?',
    });
    await refused(o.s, 'crm.savePlaybook', { definition: definition(bad) }, 'BAD_REQUEST', {
      message: 'definition.rules[1].id: duplicate rule id big (rules[0] has it) (and 1 more: crm.compilePlaybook lists them all)',
    });
    await refused(o.s, 'crm.savePlaybook', { definition: definition([{ ...big, then: { action: 'email', text: 'x' } }]) }, 'BAD_REQUEST', {
      message: /^definition\.rules\.0\.then\.action: /,
    });
    await refused(o.s, 'crm.savePlaybook', { definition: definition([]) }, 'BAD_REQUEST', { message: /^definition\.rules: must have at least 1 rule/ });
    const many = Array.from({ length: 51 }, (_, i) => ({ ...big, id: `r${i}` }));
    await refused(o.s, 'crm.savePlaybook', { definition: definition(many) }, 'BAD_REQUEST', { message: /^definition\.rules: must have at most 50 rules/ });
    await refused(
      o.s,
      'crm.savePlaybook',
      { definition: definition([{ ...big, then: { action: 'suggest', text: 'x', call: { method: 'crm.moveStage', params: { stage: 'won' } } } }]) },
      'BAD_REQUEST',
      { message: /^definition\.rules\[0\]\.then\.call\.params\.stage: / },
    );
  });

  it('misuse: unknown or other org’s playbook, deleted, a reader', async () => {
    const p = await playbook(o, stalled);
    await refused(o.s, 'crm.savePlaybook', { definition: definition(stalled), playbookId: 'pbk_nosuch' }, 'NOT_FOUND');
    await refused(o.other, 'crm.savePlaybook', { definition: definition(stalled), playbookId: p.id }, 'NOT_FOUND');
    await refused(o.s, 'crm.savePlaybook', { definition: definition(stalled) }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    await mutate(o.s, 'crm.deletePlaybook', { playbookId: p.id }, 'crm.playbook.delete');
    await refused(o.s, 'crm.savePlaybook', { definition: definition(stalled), playbookId: p.id }, 'CONFLICT', {
      message: /is deleted; it cannot be saved \(save a new playbook without playbookId\)/,
    });
  });
});

describe('crm.togglePlaybook, deletePlaybook and listPlaybooks', () => {
  it('toggle and delete: changed, then changed:false; deleted cannot be enabled', async () => {
    const p = await playbook(o, stalled);
    const on = await mutate(o.s, 'crm.togglePlaybook', { playbookId: p.id, enabled: true }, 'crm.playbook.toggle', { entityId: () => p.id });
    expect(on.event.payload).toEqual({ playbookId: p.id, enabled: true, version: 1 });
    await noop(o.s, 'crm.togglePlaybook', { playbookId: p.id, enabled: true }, 'crm.playbook.toggle');
    const del = await mutate(o.s, 'crm.deletePlaybook', { playbookId: p.id }, 'crm.playbook.delete');
    expect(del.result.playbook).toMatchObject({ status: 'deleted', enabled: false });
    expect(del.event.payload).toEqual({ playbookId: p.id, version: 1, wasEnabled: true });
    await noop(o.s, 'crm.deletePlaybook', { playbookId: p.id }, 'crm.playbook.delete');
    await refused(o.s, 'crm.togglePlaybook', { playbookId: p.id, enabled: true }, 'CONFLICT', { message: /is deleted; it cannot be enabled/ });
    for (const m of ['crm.togglePlaybook', 'crm.deletePlaybook']) {
      const params = m === 'crm.togglePlaybook' ? { enabled: false } : {};
      await refused(o.s, m, { playbookId: 'pbk_nosuch', ...params }, 'NOT_FOUND', { message: 'playbook pbk_nosuch not found' });
      await refused(o.other, m, { playbookId: p.id, ...params }, 'NOT_FOUND');
      await refused(o.s, m, { playbookId: p.id, ...params }, 'FORBIDDEN_SCOPE', { key: o.viewer.key });
    }
    await refused(o.s, 'crm.togglePlaybook', { playbookId: p.id }, 'BAD_REQUEST', { message: /^enabled: / });
  });

  it('lists oldest first, by enabled and status, in pages', async () => {
    const mine = await crmOrg();
    const s = mine.s;
    const a = await playbook(mine, stalled, { enable: true, name: 'A' });
    mine.clock.set('2026-07-02');
    const b = await playbook(mine, stalled, { name: 'B' });
    mine.clock.set('2026-07-03');
    const c = await playbook(mine, stalled, { name: 'C' });
    await mutate(s, 'crm.deletePlaybook', { playbookId: c.id }, 'crm.playbook.delete');
    const ids = (r: any) => r.playbooks.map((p: any) => p.id);
    expect(ids(await read(s, 'crm.listPlaybooks', {}))).toEqual([a.id, b.id]);
    expect(ids(await read(s, 'crm.listPlaybooks', { enabled: true }))).toEqual([a.id]);
    expect(ids(await read(s, 'crm.listPlaybooks', { status: 'deleted' }))).toEqual([c.id]);
    const first = await read(s, 'crm.listPlaybooks', { status: 'all', limit: 2 });
    expect(ids(first)).toEqual([a.id, b.id]);
    const second = await read(s, 'crm.listPlaybooks', { status: 'all', limit: 2, cursor: first.nextCursor });
    expect([ids(second), second.nextCursor]).toEqual([[c.id], null]);
    expect(first.playbooks[0].definition.rules[0]).toMatchObject({ id: 'stalled-call', when: { var: 'risk.stalled' } });
    await refused(s, 'crm.listPlaybooks', { cursor: 'nope' }, 'BAD_REQUEST', { message: 'cursor: not a cursor this list returned' });
    const forged = Buffer.from(JSON.stringify(['0', a.id])).toString('base64url');
    await refused(s, 'crm.listPlaybooks', { cursor: forged }, 'BAD_REQUEST', { message: 'cursor: not a cursor this list returned' });
    await refused(s, 'crm.listPlaybooks', {}, 'FORBIDDEN_SCOPE', { key: mine.noCrm.key });
    await s.close();
  });
});
