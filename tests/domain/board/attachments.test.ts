import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestClient, type TestServer } from '../../helpers/harness.js';
import { MISSING } from './setup.js';
import { expectOk, head, mutate, otherOrg, refused } from '../../helpers/calls.js';
import { newTask } from '../../helpers/tasks.js';

let s: TestServer;
let c: TestClient;
let other: TestClient;

beforeAll(async () => {
  s = await testServer();
  c = s.client;
  other = await otherOrg(s);
});
afterAll(() => s.close());

const SIGNED_URL = 'https://files.example.com/f/123?token=SIGNED-SECRET';
const attach = (taskId: string, extra: Record<string, unknown> = {}, client = c) =>
  client.ok('board.addTaskAttachment', { taskId, name: 'statement.pdf', url: SIGNED_URL, ...extra });

describe('board.addTaskAttachment', () => {
  it('attaches a file reference; the ledger never sees the URL', async () => {
    const t = await newTask(c);
    const { result, event } = await mutate(
      c,
      'board.addTaskAttachment',
      { taskId: t.id, name: 'statement.pdf', url: SIGNED_URL, mimeType: 'application/pdf', sizeBytes: 48_213 },
      'item.attachment.added',
      { entityId: () => t.id },
    );
    expect(result).toMatchObject({ taskId: t.id, name: 'statement.pdf', url: SIGNED_URL, mimeType: 'application/pdf', sizeBytes: 48_213 });
    expect(result.id).toMatch(/^att_[a-z0-9]{16}$/);
    expect(event.payload).toEqual({ attachmentId: result.id, name: 'statement.pdf', mimeType: 'application/pdf', sizeBytes: 48_213 });
    expect(JSON.stringify(event)).not.toContain('SIGNED-SECRET');
  });

  it('is idempotent by key', async () => {
    const t = await newTask(c);
    const params = { taskId: t.id, name: 'a.txt', url: 'https://x.example/a' };
    const first = await c.rpc('board.addTaskAttachment', params, { idem: 'att-1' });
    expectOk('board.addTaskAttachment', first);
    const before = await head(c);
    const again = await c.rpc('board.addTaskAttachment', params, { idem: 'att-1' });
    expect(again.raw).toBe(first.raw);
    expect(again.headers['idempotent-replay']).toBe('true');
    expect(await head(c)).toBe(before);
    expect((await c.ok('board.taskAttachments', { taskId: t.id })).attachments).toHaveLength(1);
  });

  it.each([
    ['url: must be an http(s) URL', { url: 'javascript:alert(1)' }],
    ['url: must be an http(s) URL', { url: 'not a url' }],
    ['url: required', { url: undefined }],
    ['name: must be at least 1 character', { name: '' }],
    ['mimeType: must be a MIME type such as application/pdf', { mimeType: 'pdf' }],
    ['sizeBytes: must be >= 0', { sizeBytes: -1 }],
    ['body: unknown field', { body: 'bytes' }],
  ])('bad params -> BAD_REQUEST %s', async (message, extra) => {
    const t = await newTask(c);
    await refused(c, 'board.addTaskAttachment', { taskId: t.id, name: 'f', url: 'https://x.example/f', ...extra }, 'BAD_REQUEST', { message });
  });

  it('a missing or another org’s item -> NOT_FOUND', async () => {
    const theirs = await newTask(other);
    await refused(c, 'board.addTaskAttachment', { taskId: theirs.id, name: 'f', url: 'https://x.example/f' }, 'NOT_FOUND');
    await refused(c, 'board.addTaskAttachment', { taskId: MISSING.task, name: 'f', url: 'https://x.example/f' }, 'NOT_FOUND');
  });
});

describe('board.updateTaskAttachment', () => {
  it('changes the given fields; null clears optional ones', async () => {
    const t = await newTask(c);
    const att = await attach(t.id, { mimeType: 'application/pdf', sizeBytes: 10 });
    const { result, event } = await mutate(
      c,
      'board.updateTaskAttachment',
      { attachmentId: att.id, name: 'renamed.pdf', mimeType: null },
      'item.attachment.updated',
      { entityId: () => t.id },
    );
    expect(result).toMatchObject({ id: att.id, taskId: t.id, name: 'renamed.pdf', mimeType: null, sizeBytes: 10, url: SIGNED_URL });
    expect(event.payload).toEqual({ attachmentId: att.id, fields: ['name', 'mimeType'], name: 'renamed.pdf' });
    const moved = await c.ok('board.updateTaskAttachment', { attachmentId: att.id, url: 'https://new.example/f' });
    expect(moved.url).toBe('https://new.example/f');
  });

  it('bad input, missing and foreign attachments', async () => {
    const t = await newTask(c);
    const att = await attach(t.id);
    const theirs = await attach((await newTask(other)).id, {}, other);
    await refused(c, 'board.updateTaskAttachment', { attachmentId: att.id }, 'BAD_REQUEST', {
      message: 'params: give at least one of name, url, mimeType, sizeBytes',
    });
    await refused(c, 'board.updateTaskAttachment', { attachmentId: att.id, url: 'ftp://x.example/f' }, 'BAD_REQUEST', {
      message: 'url: must be an http(s) URL',
    });
    await refused(c, 'board.updateTaskAttachment', { attachmentId: 'task_1', name: 'x' }, 'BAD_REQUEST', {
      message: 'attachmentId: must be an id of the form att_…',
    });
    await refused(c, 'board.updateTaskAttachment', { attachmentId: theirs.id, name: 'x' }, 'NOT_FOUND', { message: `attachment ${theirs.id} not found` });
    await refused(c, 'board.updateTaskAttachment', { attachmentId: MISSING.att, name: 'x' }, 'NOT_FOUND');
  });
});

describe('board.removeTaskAttachment', () => {
  it('removes an attachment; a second removal is NOT_FOUND', async () => {
    const t = await newTask(c);
    const att = await attach(t.id);
    const { result, event } = await mutate(c, 'board.removeTaskAttachment', { attachmentId: att.id }, 'item.attachment.removed', {
      entityId: () => t.id,
    });
    expect(result).toEqual({ attachmentId: att.id, taskId: t.id, removed: true });
    expect(event.payload).toEqual({ attachmentId: att.id, name: 'statement.pdf' });
    expect((await c.ok('board.taskAttachments', { taskId: t.id })).attachments).toEqual([]);
    await refused(c, 'board.removeTaskAttachment', { attachmentId: att.id }, 'NOT_FOUND');
  });

  it('another org’s attachment -> NOT_FOUND and stays', async () => {
    const theirTask = await newTask(other);
    const theirs = await attach(theirTask.id, {}, other);
    await refused(c, 'board.removeTaskAttachment', { attachmentId: theirs.id }, 'NOT_FOUND');
    expect((await other.ok('board.taskAttachments', { taskId: theirTask.id })).attachments).toHaveLength(1);
    await refused(c, 'board.removeTaskAttachment', {}, 'BAD_REQUEST', { message: 'attachmentId: required' });
  });
});

describe('board.taskAttachments', () => {
  it('pages oldest first, skipping removed ones, appending no event', async () => {
    const t = await newTask(c);
    const atts = [];
    for (let n = 0; n < 5; n++) atts.push(await attach(t.id, { name: `f${n}` }));
    await c.ok('board.removeTaskAttachment', { attachmentId: atts[2].id });
    const before = await head(c);
    const first = expectOk('board.taskAttachments', await c.rpc('board.taskAttachments', { taskId: t.id, limit: 3 }));
    expect(first.attachments.map((a: any) => a.name)).toEqual(['f0', 'f1', 'f3']);
    expect(first.nextCursor).toEqual(expect.any(Number));
    const second = expectOk('board.taskAttachments', await c.rpc('board.taskAttachments', { taskId: t.id, limit: 3, cursor: first.nextCursor }));
    expect(second.attachments.map((a: any) => a.name)).toEqual(['f4']);
    expect(second.nextCursor).toBeNull();
    expect(await head(c)).toBe(before);
  });

  it('bad input, missing and foreign items', async () => {
    const theirs = await newTask(other);
    await refused(c, 'board.taskAttachments', { taskId: theirs.id }, 'NOT_FOUND');
    await refused(c, 'board.taskAttachments', { taskId: MISSING.task }, 'NOT_FOUND');
    await refused(c, 'board.taskAttachments', { taskId: theirs.id, limit: 'many' }, 'BAD_REQUEST', { message: /^limit: / });
  });
});
