import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { ok, otherOrg, refused } from '../../helpers/calls.js';
import { person } from '../../helpers/people.js';
import { folder, upload } from '../files/drive-kit.js';
import { artOrg, draft, FORM, idem, post, postedForm, writes, type ArtOrg } from './kit.js';

/*
 * Each artifact method and its misuse: create's checks (tree, bindings, buttons, inputs, limits, record chips, images),
 * patch (author only, one kind of change, the rate, the revision cap, state), act (viewers only, values, audience,
 * expiry), send's artifactIds (own drafts, once), list's filters and paging.
 */

let o: ArtOrg;
beforeAll(async () => {
  o = await artOrg();
});
afterAll(() => o.s.close());

const base = () => ({ idempotencyId: idem('c'), title: 'T', fallbackText: 'x', actions: [] as unknown[] });

describe('artifact.create', () => {
  it('drafts with one design record naming ids and counts, and replays by idempotencyId', async () => {
    const params = { ...base(), components: FORM, actions: [{ actionId: 'approve', label: 'Approve', inputs: ['amount'] }], data: { a: 1 } };
    const { value, records } = await writes(o, 1, () => ok(o.s, 'artifact.create', params, o.agent.key));
    expect(value.artifact).toMatchObject({ state: 'draft', revision: 1, author: o.agent.id, channelId: null, responses: 0 });
    expect(records[0].record).toMatchObject({ kind: 'artifact.surface.create', method: 'artifact.create', entityId: value.artifact.id });
    expect(records[0].record.payload).toMatchObject({ artifactId: value.artifact.id, components: 4, inputs: 2, actions: 1, dataBytes: 7 });
    expect(await ok(o.s, 'artifact.create', params, o.agent.key)).toEqual(value);
    await refused(o.s, 'artifact.create', { ...params, title: 'Other' }, 'CONFLICT', { key: o.agent.key });
    // A draft is its author's alone.
    await refused(o.s, 'artifact.get', { artifactId: value.artifact.id }, 'NOT_FOUND', { key: o.mia.key });
    await refused(o.s, 'artifact.create', params, 'FORBIDDEN_SCOPE', { key: o.viewer.key, message: /^missing scope messaging.write/ });
  });

  it('refuses a broken tree, bindings that do not resolve, unknown actions and inputs, each naming the field', async () => {
    const cases: [unknown[], Record<string, unknown>, string | RegExp][] = [
      [[{ id: 'r', type: 'Stack', children: ['nope'] }], {}, 'components.0.children.0: no component nope'],
      [
        [
          { id: 'r', type: 'Stack', children: [] },
          { id: 'x', type: 'Text', markdown: 'a' },
        ],
        {},
        'components.1.id: x is not inside the root r',
      ],
      [
        [
          { id: 'r', type: 'Stack', children: ['x', 'x'] },
          { id: 'x', type: 'Text', markdown: 'a' },
        ],
        {},
        'components.0.children.1: x is already a child of r',
      ],
      [
        [
          { id: 'r', type: 'Stack', children: [] },
          { id: 'r', type: 'Text', markdown: 'a' },
        ],
        {},
        "components.1.id: r repeats an earlier component's id",
      ],
      [[{ id: 'r', type: 'Text', markdown: { path: '/missing' } }], {}, 'components.0.markdown.path: /missing does not resolve in data'],
      [
        [{ id: 'r', type: 'Table', columns: [{ key: 'a', label: 'A' }], rows: { path: '/rows' } }],
        { data: { rows: 'no' } },
        /^components\.0\.rows: data at \/rows: value: expected array/,
      ],
      [
        [{ id: 'r', type: 'Table', columns: [{ key: 'a', label: 'A' }], rows: { path: '/rows' } }],
        { data: { rows: Array.from({ length: 501 }, () => ({ a: 1 })) } },
        'components.0.rows: at most 500 rows',
      ],
      [
        [{ id: 'r', type: 'Chart', kind: 'bar', series: [{ name: 's', points: Array.from({ length: 2501 }, (_, i) => ({ x: i, y: 1 })) }] }],
        {},
        'components.0.series: at most 2500 points in all, got 2501',
      ],
      [[{ id: 'r', type: 'Button', actionId: 'go', label: 'Go' }], {}, 'components.0.actionId: no action go'],
      [
        [{ id: 'r', type: 'Text', markdown: 'a' }],
        { actions: [{ actionId: 'go', label: 'Go', inputs: ['amount'] }] },
        'actions.0.inputs.0: no input named amount',
      ],
      [[{ id: 'r', type: 'Heading', text: 'a', color: 'red' }], {}, 'components.0.color: unknown field'],
      [[{ id: 'r', type: 'RecordRef', recordId: 'task_doesnotexist' }], {}, 'components.0.recordId: task_doesnotexist is not a record you may read'],
      [[{ id: 'r', type: 'Text', markdown: 'a' }], { expiresAt: '2001-01-01T00:00:00Z' }, 'expiresAt: must be in the future'],
    ];
    for (const [components, extra, message] of cases) {
      await writes(o, 0, () => refused(o.s, 'artifact.create', { ...base(), components, ...extra }, 'BAD_REQUEST', { key: o.agent.key, message }));
    }
  });
});

describe('Image components', () => {
  const image = (imageId: string) => [
    { id: 'r', type: 'Stack', children: ['i'] },
    { id: 'i', type: 'Image', imageId, alt: 'A picture' },
  ];

  it('name a brand image or a drive file the author may read, checked at create and patch; else NOT_FOUND naming the field', async () => {
    const png = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#0000ff' } })
      .png()
      .toBuffer();
    const contentBase64 = png.toString('base64');
    const img = (await ok(o.s, 'branding.uploadImage', { contentBase64, idempotencyId: idem('img') }, o.owner.key)).asset;
    const mine = await upload(o.s, o.agent.key, 'chart.png', png);
    const closed = await folder(o.s, o.mia.key, 'Private', { restricted: true });
    const theirs = await upload(o.s, o.mia.key, 'private.png', png, { parentId: closed.id });
    const foreign = (await ok(await otherOrg(o.s), 'branding.uploadImage', { contentBase64, idempotencyId: 'foreign' })).asset;
    const chatOnly = await person(o.s, 'Chat Only', { scopes: ['org.read', 'messaging.read', 'messaging.write'], principalKind: 'agent' });
    for (const id of [img.id, mine.id]) await ok(o.s, 'artifact.create', { ...base(), components: image(id) }, o.agent.key);

    const brand = 'an image of the brand library (your key needs design.read)';
    const cases: [string, string, string][] = [
      ['img_0000000000000000', o.agent.key, brand],
      [foreign.id, o.agent.key, brand],
      [img.id, chatOnly.key, brand],
      ['fil_0000000000000000', o.agent.key, 'a drive file you may read'],
      [theirs.id, o.agent.key, 'a drive file you may read'],
    ];
    for (const [id, key, what] of cases) {
      const message = `components.1.imageId: ${id} not found: name ${what}`;
      await writes(o, 0, () => refused(o.s, 'artifact.create', { ...base(), components: image(id) }, 'NOT_FOUND', { key, message }));
    }
    const d = await draft(o);
    await writes(o, 0, () =>
      refused(o.s, 'artifact.patch', { artifactId: d.id, baseRevision: 1, idempotencyId: idem('p'), components: image(theirs.id), actions: [] }, 'NOT_FOUND', {
        key: o.agent.key,
        message: `components.1.imageId: ${theirs.id} not found: name a drive file you may read`,
      }),
    );
  });
});

describe('messaging.send artifactIds', () => {
  it("posts the sender's own drafts once; others' and posted ones are BAD_REQUEST naming the index", async () => {
    const mine = await draft(o);
    const hers = await draft(o, {}, o.mia);
    const send = (ids: string[]) => ({ channelId: o.channelId, idempotencyId: idem('s'), text: 'look', artifactIds: ids });
    await refused(o.s, 'messaging.send', send([mine.id, hers.id]), 'BAD_REQUEST', {
      key: o.agent.key,
      message: `artifactIds.1: no artifact ${hers.id} of yours`,
    });
    const message = await post(o, [mine.id]);
    expect(message.artifactIds).toEqual([mine.id]);
    await refused(o.s, 'messaging.send', send([mine.id]), 'BAD_REQUEST', { key: o.agent.key, message: /^artifactIds\.0: .* is already posted/ });
    const seen = await ok(o.s, 'artifact.get', { artifactId: mine.id }, o.viewer.key);
    expect(seen.artifact).toMatchObject({ state: 'posted', messageId: message.id });
  });
});

describe('artifact.patch', () => {
  it('author only; exactly one kind of change; 2 a second; closes and reopens; at most 1,000 revisions', async () => {
    const a = await postedForm(o);
    const p = (extra: Record<string, unknown>) => ({ artifactId: a.id, idempotencyId: idem('p'), ...extra });
    await refused(o.s, 'artifact.patch', p({ baseRevision: 1, set: [{ path: '/x', value: 1 }] }), 'CONFLICT', {
      key: o.mia.key,
      message: /only its author patches it/,
    });
    await refused(o.s, 'artifact.patch', p({ baseRevision: 1, set: [{ path: '/x', value: 1 }], state: 'closed' }), 'BAD_REQUEST', {
      key: o.agent.key,
      message: 'state: give exactly one of set, components or state',
    });
    await refused(o.s, 'artifact.patch', p({ baseRevision: 1, set: [{ path: '/a/b', value: 1 }] }), 'BAD_REQUEST', {
      key: o.agent.key,
      message: 'set.0.path: /a/b: its parent does not resolve in data',
    });
    const r1 = await ok(o.s, 'artifact.patch', p({ baseRevision: 1, set: [{ path: '/x', value: 1 }] }), o.agent.key);
    const r2 = await ok(o.s, 'artifact.patch', p({ baseRevision: 2, set: [{ path: '/x', value: 2 }] }), o.agent.key);
    expect([r1.artifact.revision, r2.artifact.revision]).toEqual([2, 3]);
    const limited = await refused(o.s, 'artifact.patch', p({ baseRevision: 3, set: [{ path: '/x', value: 3 }] }), 'RATE_LIMITED', { key: o.agent.key });
    expect(limited).toMatch(/at most 2 patches a second/);
    await new Promise((r) => setTimeout(r, 1050));
    const closed = await writes(o, 1, () => ok(o.s, 'artifact.patch', p({ baseRevision: 3, state: 'closed' }), o.agent.key));
    expect(closed.value.artifact).toMatchObject({ state: 'closed', closedBy: o.agent.id, revision: 4 });
    expect(closed.records[0].record.payload).toMatchObject({ artifactId: a.id, baseRevision: 3, revision: 4, op: 'state', state: 'closed' });
    const same = await ok(o.s, 'artifact.patch', p({ baseRevision: 4, state: 'closed' }), o.agent.key);
    expect(same).toMatchObject({ changed: false, artifact: { revision: 4 } });
    expect((await ok(o.s, 'artifact.patch', p({ baseRevision: 4, state: 'posted' }), o.agent.key)).artifact).toMatchObject({ state: 'posted', closedBy: null });
    await o.s.runtime.db.query('UPDATE artifacts SET revision = 1000 WHERE artifact_id = $1', [a.id]);
    await refused(o.s, 'artifact.patch', p({ baseRevision: 1000, set: [{ path: '/x', value: 9 }] }), 'CONFLICT', {
      key: o.agent.key,
      message: /has 1000 revisions, the most/,
    });
  });
});

describe('artifact.act', () => {
  it('NOT_FOUND for a non-viewer; values checked by input; audience ids; expiry', async () => {
    const secret = await draft(o, { actions: [{ actionId: 'approve', label: 'Approve', inputs: ['amount', 'note'], audience: [o.mia.id] }] });
    await post(o, [secret.id], o.agent, o.privateId);
    const act = (extra: Record<string, unknown>) => ({ artifactId: secret.id, actionId: 'approve', revision: 1, idempotencyId: idem('a'), ...extra });
    await refused(o.s, 'artifact.act', act({ values: { amount: 2 } }), 'NOT_FOUND', { key: o.max.key, message: `artifact ${secret.id} not found` });
    await refused(o.s, 'artifact.get', { artifactId: secret.id }, 'NOT_FOUND', { key: o.viewer.key });
    await refused(o.s, 'artifact.act', act({ values: { amount: 2 } }), 'CONFLICT', { key: o.agent.key, message: /is for usr_.*: you are not among them/ });
    for (const [values, message] of [
      [{ amount: 0 }, 'values.amount: must be >= 1'],
      [{}, 'values.amount: required'],
      [{ amount: 'x' }, 'values.amount: must be a number'],
      [{ amount: 2, extra: 1 }, 'values.extra: not an input of action approve'],
      [{ amount: 2, note: 5 }, 'values.note: must be text'],
    ] as const) {
      await refused(o.s, 'artifact.act', act({ values }), 'BAD_REQUEST', { key: o.mia.key, message });
    }
    await refused(o.s, 'artifact.act', act({ actionId: 'nope', values: {} }), 'BAD_REQUEST', {
      key: o.mia.key,
      message: `actionId: no action nope in artifact ${secret.id}`,
    });
    const done = await ok(o.s, 'artifact.act', act({ values: { amount: 2, note: 'ok' } }), o.mia.key);
    expect(done.response).toMatchObject({ actor: o.mia.id, seq: 1, revision: 1 });
    // The author and the actor see the values; nobody else does.
    expect((await ok(o.s, 'artifact.get', { artifactId: secret.id }, o.agent.key)).responses[0].values).toEqual({ amount: 2, note: 'ok' });

    const soon = await postedForm(o, { expiresAt: new Date(Date.now() + 1500).toISOString() });
    await new Promise((r) => setTimeout(r, 1600));
    await refused(o.s, 'artifact.act', { ...act({ values: { amount: 2 } }), artifactId: soon.id }, 'CONFLICT', { key: o.mia.key, message: /expired at/ });
  });
});

describe('artifact.list and get', () => {
  it('filters by channel, mine, state and pending; pages by cursor; get returns responses after a seq', async () => {
    const a = await postedForm(o);
    const b = await postedForm(o);
    await ok(o.s, 'artifact.act', { artifactId: a.id, actionId: 'approve', revision: 1, values: { amount: 1 }, idempotencyId: idem('a') }, o.mia.key);
    const pending = await ok(o.s, 'artifact.list', { pending: true, limit: 500 }, o.mia.key);
    const ids = pending.artifacts.map((x: any) => x.id);
    expect(ids).toContain(b.id);
    expect(ids).not.toContain(a.id);
    const mine = await ok(o.s, 'artifact.list', { mine: true, limit: 500 }, o.mia.key);
    expect(mine.artifacts.every((x: any) => x.author === o.mia.id)).toBe(true);
    const first = await ok(o.s, 'artifact.list', { channelId: o.channelId, state: 'posted', limit: 1 }, o.mia.key);
    expect(first.artifacts).toHaveLength(1);
    const second = await ok(o.s, 'artifact.list', { channelId: o.channelId, state: 'posted', limit: 1, cursor: first.nextCursor }, o.mia.key);
    expect(second.artifacts[0].id).not.toBe(first.artifacts[0].id);
    await refused(o.s, 'artifact.list', { cursor: 'garbage' }, 'BAD_REQUEST', { key: o.mia.key, message: /^cursor: not a cursor/ });
    const got = await ok(o.s, 'artifact.get', { artifactId: a.id, responsesAfter: 1 }, o.agent.key);
    expect(got).toMatchObject({ responses: [], responsesCursor: 1 });
    await refused(o.s, 'artifact.get', { artifactId: a.id, waitMs: 30_001 }, 'BAD_REQUEST', { key: o.agent.key, message: 'waitMs: must be at most 30000' });
  });
});
