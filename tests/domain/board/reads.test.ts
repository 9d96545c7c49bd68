import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { MISSING, expectRead } from './setup.js';
import { expectError } from '../../helpers/frames.js';
import { head, otherOrg } from '../../helpers/calls.js';
import { newTask, newWorkstream } from '../../helpers/tasks.js';

let s: TestServer;
let c: TestClient;
let other: TestClient;

beforeAll(async () => {
  s = await testServer();
  c = s.client;
  other = await otherOrg(s);
});
afterAll(() => s.close());

describe('GET /board.context', () => {
  it('returns the item with its workstream, parent, children, links, comments and attachments, appending nothing', async () => {
    const ws = await newWorkstream(c);
    const parent = await newTask(c, { workstreamId: ws.id });
    const t = await c.ok('board.create', { type: 'task', title: 'focus', parentId: parent.id, workstreamId: ws.id });
    const child = await c.ok('board.create', { type: 'task', title: 'child', parentId: t.id });
    const blocker = await newTask(c);
    const link = await c.ok('board.link', { fromTaskId: blocker.id, toTaskId: t.id, relation: 'blocks' });
    const out = await c.ok('board.link', { fromTaskId: t.id, toTaskId: parent.id, relation: 'relates' });
    await c.ok('board.addTaskComment', { taskId: t.id, body: 'first' });
    await c.ok('board.comment', { taskId: t.id, body: 'second' });
    const att = await c.ok('board.addTaskAttachment', { taskId: t.id, name: 'a.pdf', url: 'https://x.example/a' });

    const before = await head(c);
    const body = expectRead('board.context', await c.get('board.context', { taskId: t.id }));
    expect(await head(c)).toBe(before);
    expect(body.task).toMatchObject({ id: t.id, title: 'focus', workstreamId: ws.id, parentId: parent.id });
    expect(body.workstream).toMatchObject({ id: ws.id, name: ws.name });
    expect(body.parent.id).toBe(parent.id);
    expect(body.children.map((x: any) => x.id)).toEqual([child.id]);
    expect(body.links).toEqual([
      { id: link.id, relation: 'blocks', direction: 'incoming', taskId: blocker.id, title: blocker.title, col: 'triage', createdAt: link.createdAt },
      { id: out.id, relation: 'relates', direction: 'outgoing', taskId: parent.id, title: parent.title, col: 'triage', createdAt: out.createdAt },
    ]);
    expect(body.comments.map((x: any) => x.body)).toEqual(['first', 'second']);
    expect(body.commentCount).toBe(2);
    expect(body.attachments.map((x: any) => x.id)).toEqual([att.id]);
    expect(body.attachmentCount).toBe(1);
    expect(body.openBlockers).toEqual([blocker.id]);

    await c.ok('board.complete', { taskId: blocker.id });
    expect((await c.get('board.context', { taskId: t.id })).body.openBlockers).toEqual([]);
  });

  it('a bare item has nulls and empty lists', async () => {
    const t = await newTask(c);
    const body = expectRead('board.context', await c.get('board.context', { taskId: t.id }));
    expect(body).toMatchObject({
      workstream: null,
      parent: null,
      children: [],
      links: [],
      comments: [],
      commentCount: 0,
      attachments: [],
      attachmentCount: 0,
      openBlockers: [],
    });
  });

  it('inlines only the latest 50 comments, with the total', async () => {
    const t = await newTask(c);
    for (let n = 0; n < 53; n++) await c.ok('board.addTaskComment', { taskId: t.id, body: `c${n}` });
    const body = expectRead('board.context', await c.get('board.context', { taskId: t.id }));
    expect(body.commentCount).toBe(53);
    expect(body.comments).toHaveLength(50);
    expect(body.comments[0].body).toBe('c3');
    expect(body.comments[49].body).toBe('c52');
  });

  it('a missing or another org’s item -> 404 NOT_FOUND; bad query -> 400 naming the field', async () => {
    const theirs = await newTask(other);
    expectError(await c.get('board.context', { taskId: theirs.id }), 'NOT_FOUND', `task ${theirs.id} not found`);
    expectError(await c.get('board.context', { taskId: MISSING.task }), 'NOT_FOUND');
    expectError(await c.get('board.context'), 'BAD_REQUEST', 'taskId: required');
    expectError(await c.get('board.context', { taskId: 'nope' }), 'BAD_REQUEST', 'taskId: must be an id of the form task_…');
    expectError(await c.get('board.context', { taskId: theirs.id, extra: 1 }), 'BAD_REQUEST', 'extra: unknown field');
  });
});

describe('GET /board.ready', () => {
  /** A workstream of its own per test, so the lists are exact. */
  const ready = async (workstreamId: string, query: Record<string, string | number> = {}) =>
    expectRead('board.ready', await c.get('board.ready', { workstreamId, ...query })).tasks.map((t: any) => t.title) as string[];

  it('lists claimable work, highest priority first then oldest, appending nothing', async () => {
    const ws = await newWorkstream(c);
    const mk = (title: string, priority = 'normal') => newTask(c, { title, priority, workstreamId: ws.id });
    await mk('normal-old');
    await mk('low', 'low');
    await mk('urgent', 'urgent');
    await mk('normal-new');
    await mk('high', 'high');
    const before = await head(c);
    expect(await ready(ws.id)).toEqual(['urgent', 'high', 'normal-old', 'normal-new', 'low']);
    expect(await ready(ws.id, { limit: 2 })).toEqual(['urgent', 'high']);
    expect(await head(c)).toBe(before);
  });

  it('leaves out claimed, blocked, done, non-work and open-blocked items; a lapsed claim is ready again', async () => {
    const ws = await newWorkstream(c);
    const mk = (title: string) => newTask(c, { title, workstreamId: ws.id });
    const claimed = await mk('claimed');
    await c.ok('board.claim', { taskId: claimed.id });
    await c.ok('board.block', { taskId: (await mk('blocked')).id, reason: 'r' });
    await c.ok('board.complete', { taskId: (await mk('done')).id });
    await c.ok('board.create', { type: 'note', title: 'note', workstreamId: ws.id });
    await c.ok('board.create', { type: 'milestone', title: 'milestone', workstreamId: ws.id });
    const bug = await c.ok('board.create', { type: 'bug', title: 'bug', workstreamId: ws.id });
    const blocker = await mk('blocker');
    const waiting = await mk('waiting');
    await c.ok('board.link', { fromTaskId: blocker.id, toTaskId: waiting.id, relation: 'blocks' });
    await c.ok('board.link', { fromTaskId: bug.id, toTaskId: blocker.id, relation: 'relates' });
    await mk('free');

    expect((await ready(ws.id)).sort()).toEqual(['blocker', 'bug', 'free']);
    expect(await ready(ws.id, { type: 'bug' })).toEqual(['bug']);

    await c.ok('board.complete', { taskId: blocker.id });
    await s.runtime.db.query(`UPDATE board_tasks SET claim_expires_at = now() - interval '1 second' WHERE task_id = $1`, [claimed.id]);
    expect((await ready(ws.id)).sort()).toEqual(['bug', 'claimed', 'free', 'waiting']);
  });

  it('without a workstream lists the whole org, never another org’s items', async () => {
    const theirs = await newTask(other, { title: 'THEIRS', priority: 'urgent' });
    const mine = await newTask(c, { priority: 'urgent' });
    const body = expectRead('board.ready', await c.get('board.ready', { limit: 100 }));
    const ids = body.tasks.map((t: any) => t.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    const theirView = expectRead('board.ready', await other.get('board.ready', { limit: 100 }));
    expect(theirView.tasks.map((t: any) => t.id)).toContain(theirs.id);
    expect(theirView.tasks.map((t: any) => t.id)).not.toContain(mine.id);
  });

  it('bad query -> 400 naming the field; a missing or another org’s workstream -> 404', async () => {
    const theirWs = await other.ok('board.createWorkstream', { name: 'w' });
    expectError(await c.get('board.ready', { limit: 0 }), 'BAD_REQUEST', 'limit: must be >= 1');
    expectError(await c.get('board.ready', { limit: 101 }), 'BAD_REQUEST', 'limit: must be at most 100');
    expectError(await c.get('board.ready', { type: 'note' }), 'BAD_REQUEST', 'type: must be one of "task", "bug"');
    expectError(await c.get('board.ready', { workstreamId: 'task_1' }), 'BAD_REQUEST', 'workstreamId: must be an id of the form ws_…');
    expectError(await c.get('board.ready', { workstreamId: theirWs.id }), 'NOT_FOUND', `workstream ${theirWs.id} not found`);
    expectError(await c.get('board.ready', { workstreamId: MISSING.ws }), 'NOT_FOUND');
  });
});
