import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../../helpers/frames.js';
import { ok, refused } from '../../helpers/calls.js';
import { artOrg, call, designRecords, draft, FORM, idem, postedForm, writes, type ArtOrg } from './kit.js';

/*
 * The artifact acceptance scenario (docs/families/artifact.md): a form is sent in a channel, a human submits, the
 * agent's long-poll gets it in under a second; a double click is one response; a humans-only action by an agent, a
 * stale base and an act after `closes` are CONFLICT; the GET alias equals get; bad inputs write nothing.
 */

let o: ArtOrg;
beforeAll(async () => {
  o = await artOrg();
});
afterAll(() => o.s.close());

describe('artifact acceptance', () => {
  it('a form is sent, a human submits, the agent long-polling gets it in under a second; a double click is one response', async () => {
    const form = await postedForm(o, {
      actions: [{ actionId: 'approve', label: 'Approve', inputs: ['amount', 'note'], once: true, closes: true, audience: 'humans' }],
    });
    expect(form.state).toBe('draft');
    const posted = (await ok(o.s, 'artifact.get', { artifactId: form.id }, o.agent.key)).artifact;
    expect(posted).toMatchObject({ state: 'posted', messageId: form.messageId, channelId: o.channelId, revision: 1 });

    const started = performance.now();
    const poll = call(o, 'artifact.get', { artifactId: form.id, responsesAfter: 0, waitMs: 20_000 }, o.agent);
    await new Promise((r) => setTimeout(r, 150));
    const submitAt = performance.now();
    const { value: first } = await writes(o, 1, () =>
      ok(
        o.s,
        'artifact.act',
        { artifactId: form.id, actionId: 'approve', revision: 1, values: { amount: 120, note: 'fine' }, idempotencyId: idem('click') },
        o.mia.key,
      ),
    );
    const got = await poll;
    const wokeIn = performance.now() - submitAt;
    expect(got.body.ok, got.raw).toBe(true);
    expect(got.body.result.responses).toEqual([
      expect.objectContaining({ actionId: 'approve', actor: o.mia.id, actorKind: 'human', values: { amount: 120, note: 'fine' }, seq: 1 }),
    ]);
    expect(wokeIn).toBeLessThan(1000);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(first).toMatchObject({ changed: true, artifact: { state: 'closed', closedBy: o.mia.id, revision: 2, responses: 1 } });

    // The second click of a double click: the same idempotencyId answers the stored result, and writes nothing.
    const clickParams = { artifactId: form.id, actionId: 'approve', revision: 1, values: { amount: 120, note: 'fine' }, idempotencyId: 'dbl-1' };
    await refused(o.s, 'artifact.act', clickParams, 'CONFLICT', { key: o.mia.key, message: /is closed \(by usr_/ });
    const form2 = await postedForm(o, { actions: [{ actionId: 'approve', label: 'Approve', inputs: ['amount'], audience: 'humans' }] });
    const twice = { ...clickParams, artifactId: form2.id, values: { amount: 2 } };
    const { value: clicks } = await writes(o, 1, async () => [
      await ok(o.s, 'artifact.act', twice, o.mia.key),
      await ok(o.s, 'artifact.act', twice, o.mia.key),
    ]);
    expect(clicks[1]).toEqual(clicks[0]);
    expect((await ok(o.s, 'artifact.get', { artifactId: form2.id }, o.agent.key)).responses).toHaveLength(1);
    await refused(o.s, 'artifact.act', { ...twice, values: { amount: 3 } }, 'CONFLICT', { key: o.mia.key, message: /idempotencyId/ });
  });

  it('a once action double-clicked before it closes is one response; the second answers it with changed:false', async () => {
    const form = await postedForm(o, { actions: [{ actionId: 'approve', label: 'Approve', inputs: ['amount'], once: true, audience: 'anyone' }] });
    const click = (key: string, id: string) =>
      ok(o.s, 'artifact.act', { artifactId: form.id, actionId: 'approve', revision: 1, values: { amount: 5 }, idempotencyId: id }, key);
    const [a, b] = await Promise.all([click(o.mia.key, idem('c1')), click(o.mia.key, idem('c2'))]);
    expect([a.changed, b.changed].sort()).toEqual([false, true]);
    expect(a.response.id).toBe(b.response.id);
    const replay = await click(o.mia.key, 'same-id');
    expect(await click(o.mia.key, 'same-id')).toEqual(replay);
    const got = await ok(o.s, 'artifact.get', { artifactId: form.id }, o.agent.key);
    expect(got.responses).toHaveLength(1);
  });

  it('CONFLICT: a humans-only action by an agent, a stale base, an act after closes, a draft, inputs changed since the revision', async () => {
    const form = await postedForm(o, { actions: [{ actionId: 'approve', label: 'Approve', inputs: ['amount'], closes: true, audience: 'humans' }] });
    const act = (key: string, extra: Record<string, unknown> = {}) => ({
      artifactId: form.id,
      actionId: 'approve',
      revision: 1,
      values: { amount: 3 },
      idempotencyId: idem('a'),
      ...extra,
    });
    await refused(o.s, 'artifact.act', act(o.agent.key), 'CONFLICT', { key: o.agent.key, message: /is for humans: an agent may not act on it/ });
    await ok(o.s, 'artifact.patch', { artifactId: form.id, baseRevision: 1, idempotencyId: idem('p'), set: [{ path: '/status', value: 'new' }] }, o.agent.key);
    await refused(o.s, 'artifact.patch', { artifactId: form.id, baseRevision: 1, idempotencyId: idem('p'), set: [{ path: '/x', value: 1 }] }, 'CONFLICT', {
      key: o.agent.key,
      message: /baseRevision 1 is not the current revision 2/,
    });
    // A data change is not an inputs change: revision 1 still acts.
    await ok(o.s, 'artifact.act', act(o.mia.key), o.mia.key);
    await refused(o.s, 'artifact.act', act(o.max.key), 'CONFLICT', { key: o.max.key, message: /is closed \(by usr_/ });

    const d = await draft(o);
    await refused(o.s, 'artifact.act', { ...act(o.agent.key), artifactId: d.id, actionId: 'approve' }, 'CONFLICT', {
      key: o.agent.key,
      message: /is a draft: post it first/,
    });
    await refused(o.s, 'artifact.act', { ...act(o.mia.key), artifactId: d.id }, 'NOT_FOUND', { key: o.mia.key });

    const other = await postedForm(o);
    const components = FORM.map((c) => (c.id === 'amount' ? { ...c, min: 10 } : c));
    await ok(o.s, 'artifact.patch', { artifactId: other.id, baseRevision: 1, idempotencyId: idem('p'), components }, o.agent.key);
    await refused(o.s, 'artifact.act', { ...act(o.mia.key), artifactId: other.id }, 'CONFLICT', {
      key: o.mia.key,
      message: /inputs of artifact .* changed at revision 2, after revision 1/,
    });
    await refused(o.s, 'artifact.act', { ...act(o.mia.key), artifactId: other.id, revision: 2 }, 'BAD_REQUEST', {
      key: o.mia.key,
      message: 'values.amount: must be >= 10',
    });
  });

  it('the GET alias equals get and list; a foreign slug is NOT_FOUND', async () => {
    const form = await postedForm(o);
    const rpcGet = await ok(o.s, 'artifact.get', { artifactId: form.id }, o.mia.key);
    const alias = await o.s.client.get(`artifacts/${form.id}`, {}, { key: o.mia.key });
    expect(alias.status, alias.raw).toBe(200);
    expect(alias.body).toEqual(rpcGet);
    const list = await ok(o.s, 'artifact.list', { channelId: o.channelId, limit: 10 }, o.mia.key);
    expect((await o.s.client.get('artifacts', { channelId: o.channelId, limit: 10 }, { key: o.mia.key })).body).toEqual(list);
    expect((await o.s.client.get('artifacts/catalog', {}, { key: o.mia.key })).body).toEqual(await ok(o.s, 'artifact.catalog', {}, o.mia.key));
    const whoami = await o.s.client.get('org/whoami');
    expect((await o.s.client.get('artifacts', { slug: whoami.body.slug })).status).toBe(200);
    expectError(await o.s.client.get('artifacts', { slug: 'someone-else' }), 'NOT_FOUND');
    expectError(await o.s.client.get(`artifacts/${form.id}`, { slug: 'someone-else' }), 'NOT_FOUND');
  });

  it('bad inputs write nothing: 201 components, an unknown component, data too big', async () => {
    const before = (await designRecords(o)).length;
    const many = [
      { id: 'root', type: 'Stack', children: Array.from({ length: 200 }, (_, i) => `t${i}`) },
      ...Array.from({ length: 200 }, (_, i) => ({ id: `t${i}`, type: 'Text', markdown: 'x' })),
    ];
    const base = { idempotencyId: idem('bad'), title: 'Bad', fallbackText: 'x', actions: [] };
    await refused(o.s, 'artifact.create', { ...base, components: many }, 'BAD_REQUEST', { key: o.agent.key, message: 'components: must list at most 200' });
    await refused(
      o.s,
      'artifact.create',
      {
        ...base,
        components: [
          { id: 'root', type: 'Stack', children: ['x'] },
          { id: 'x', type: 'Marquee' },
        ],
      },
      'BAD_REQUEST',
      {
        key: o.agent.key,
        message: 'components.1.type: not in catalog 1',
      },
    );
    const data = { blob: 'x'.repeat(256 * 1024) };
    await refused(o.s, 'artifact.create', { ...base, components: [{ id: 't', type: 'Text', markdown: 'hi' }], data }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: /^data: at most 262144 bytes \(256 KiB\) of JSON, got 26/,
    });
    expect(await designRecords(o)).toHaveLength(before);
    const mine = await ok(o.s, 'artifact.list', { mine: true, state: 'draft', limit: 500 }, o.agent.key);
    expect(mine.artifacts.some((a: any) => a.title === 'Bad')).toBe(false);
  });

  it('a message delete erases its artifacts: content and responses gone, get NOT_FOUND, list shows it erased', async () => {
    const form = await postedForm(o);
    await ok(o.s, 'artifact.act', { artifactId: form.id, actionId: 'approve', revision: 1, values: { amount: 9 }, idempotencyId: idem('a') }, o.mia.key);
    await ok(o.s, 'messaging.delete', { messageId: form.messageId }, o.agent.key);
    await refused(o.s, 'artifact.get', { artifactId: form.id }, 'NOT_FOUND', { key: o.agent.key });
    const rows = await o.s.runtime.db.query<any>('SELECT state, title, doc FROM artifacts WHERE artifact_id = $1', [form.id]);
    expect(rows[0]).toEqual({ state: 'erased', title: null, doc: null });
    const responses = await o.s.runtime.db.query<any>('SELECT count(*)::int AS n FROM artifact_responses WHERE artifact_id = $1', [form.id]);
    expect(Number(responses[0].n)).toBe(0);
    const list = await ok(o.s, 'artifact.list', { channelId: o.channelId, updatedAfter: new Date(Date.now() - 60_000).toISOString(), limit: 500 }, o.mia.key);
    expect(list.artifacts.find((a: any) => a.id === form.id)).toMatchObject({ state: 'erased', title: null });
  });
});
