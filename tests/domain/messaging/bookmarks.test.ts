import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import { channel, inSeconds, post } from './lifecycle-kit.js';

/* messaging.bookmark / unbookmark: one target each (message of the channel, http(s) URL, file), limits, no-ops. */

describe('messaging.bookmark', () => {
  it('bookmarks a URL, a message of the channel and a file; the events name the target kind, never the title or URL', async ({ team: t }) => {
    const url = await mutate(
      t.s,
      'messaging.bookmark',
      { channelId: t.channelId, title: 'Runbook', url: 'https://example.com/runbook?x=1' },
      'messaging.bookmark.add',
      { key: t.alice.key },
    );
    expect(url.result).toMatchObject({
      changed: true,
      bookmark: { channelId: t.channelId, title: 'Runbook', url: 'https://example.com/runbook?x=1', messageId: null, fileId: null, createdBy: t.alice.id },
    });
    expect(url.result.bookmark.id).toMatch(/^bkm_/);
    expect(url.event.payload).toEqual({ channelId: t.channelId, target: 'url', bookmarkId: url.result.bookmark.id, bookmarks: 1 });
    expect(JSON.stringify(url.event)).not.toMatch(/Runbook|example\.com/);

    const m = await post(t, 'the decision');
    const msg = await mutate(t.s, 'messaging.bookmark', { channelId: t.channelId, title: 'Decision', messageId: m.id }, 'messaging.bookmark.add', {
      key: t.bob.key,
    });
    expect(msg.event.payload).toMatchObject({ target: 'message', messageId: m.id, bookmarks: 2 });
    const spec = (await ok(t.s, 'files.create', { kind: 'doc', name: 'Spec' }, t.bob.key)).file.id;
    const file = await mutate(t.s, 'messaging.bookmark', { channelId: t.channelId, title: 'Spec', fileId: spec }, 'messaging.bookmark.add', { key: t.bob.key });
    expect(file.event.payload).toMatchObject({ target: 'file', fileId: spec, bookmarks: 3 });
    expect(
      await refused(t.s, 'messaging.bookmark', { channelId: t.channelId, title: 'Gone', fileId: 'fil_unknown1' }, 'NOT_FOUND', { key: t.bob.key }),
    ).toContain('fil_unknown1');

    const listed = await ok(t.s, 'messaging.history', { channelId: t.channelId, bookmarks: true }, t.watcher.key);
    expect(listed.bookmarks.map((b: any) => b.id)).toEqual([url.result.bookmark.id, msg.result.bookmark.id, file.result.bookmark.id]);

    // The same target again: that bookmark, changed:false (even under another title).
    const again = await mutate(
      t.s,
      'messaging.bookmark',
      { channelId: t.channelId, title: 'Runbook v2', url: 'https://example.com/runbook?x=1' },
      'messaging.bookmark.add',
      { key: t.bob.key },
    );
    expect(again.result).toMatchObject({ changed: false, bookmark: { id: url.result.bookmark.id, title: 'Runbook' } });
    expect(again.event.payload).toMatchObject({ noop: true });

    const removed = await mutate(t.s, 'messaging.unbookmark', { bookmarkId: url.result.bookmark.id }, 'messaging.bookmark.remove', { key: t.bob.key });
    expect(removed.result).toMatchObject({ changed: true, bookmark: { id: url.result.bookmark.id } });
    expect(removed.event.payload).toEqual({ channelId: t.channelId, bookmarkId: url.result.bookmark.id, bookmarks: 2 });
    const twice = await mutate(t.s, 'messaging.unbookmark', { bookmarkId: url.result.bookmark.id }, 'messaging.bookmark.remove', { key: t.bob.key });
    expect(twice.result.changed).toBe(false);
    expect(twice.event.payload.noop).toBe(true);
    // Removed: bookmarking the URL again makes a new one.
    expect((await ok(t.s, 'messaging.bookmark', { channelId: t.channelId, title: 'Runbook', url: 'https://example.com/runbook?x=1' }, t.bob.key)).changed).toBe(
      true,
    );
  });

  it('exactly one target: none or two is BAD_REQUEST; only http(s) URLs; a message of another channel is BAD_REQUEST', async ({ team: t }) => {
    const base = { channelId: t.channelId, title: 'T' };
    expect(await refused(t.s, 'messaging.bookmark', base, 'BAD_REQUEST', { key: t.alice.key })).toMatch(/^messageId: give exactly one target/);
    expect(
      await refused(t.s, 'messaging.bookmark', { ...base, url: 'https://a.example', fileId: 'fil_0123456789abcdef' }, 'BAD_REQUEST', { key: t.alice.key }),
    ).toMatch(/^fileId: /);
    for (const url of [
      'javascript:alert(1)',
      'ftp://example.com/x',
      'mailto:a@example.com',
      'file:///etc/passwd',
      'https://',
      'not a url',
      `https://example.com/${'a'.repeat(2000)}`,
      'https://example.com/\u0000x',
      'https://example.com/a b',
      'https://example.com/\ud800',
    ]) {
      expect(await refused(t.s, 'messaging.bookmark', { ...base, url }, 'BAD_REQUEST', { key: t.alice.key }), url).toMatch(/^url: /);
    }
    expect(await refused(t.s, 'messaging.bookmark', { ...base, title: '', url: 'https://ok.example' }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(
      /^title: /,
    );
    expect(
      await refused(t.s, 'messaging.bookmark', { ...base, title: 'x'.repeat(201), url: 'https://ok.example' }, 'BAD_REQUEST', { key: t.alice.key }),
    ).toMatch(/^title: /);
    const elsewhere = await channel(t, 'elsewhere', [t.alice.id]);
    const m = await post(t, 'over there', t.alice.key, elsewhere);
    expect(await refused(t.s, 'messaging.bookmark', { ...base, messageId: m.id }, 'BAD_REQUEST', { key: t.alice.key })).toMatch(
      /^messageId: must be a message of/,
    );
    await refused(t.s, 'messaging.bookmark', { ...base, messageId: 'msg_unknown00000000' }, 'NOT_FOUND', { key: t.alice.key });
    const sched = (
      await ok(t.s, 'messaging.schedule', { channelId: t.channelId, idempotencyId: 'bk-s', text: 'later', postAt: inSeconds(t, 600) }, t.alice.key)
    ).message;
    await refused(t.s, 'messaging.bookmark', { ...base, messageId: sched.id }, 'NOT_FOUND', { key: t.bob.key });
    expect(await refused(t.s, 'messaging.bookmark', { ...base, messageId: sched.id }, 'CONFLICT', { key: t.alice.key })).toMatch(/scheduled/);
  });

  it('observers, outsiders, read-only keys and other orgs are refused', async ({ team: t }) => {
    const p = { channelId: t.channelId, title: 'Nope', url: 'https://nope.example' };
    expect(await refused(t.s, 'messaging.bookmark', p, 'CONFLICT', { key: t.watcher.key })).toMatch(/observer/);
    expect(await refused(t.s, 'messaging.bookmark', p, 'CONFLICT', { key: t.outsider.key })).toMatch(/not a member/);
    await refused(t.s, 'messaging.bookmark', p, 'FORBIDDEN_SCOPE', { key: t.viewer.key });
    const priv = await channel(t, 'priv-bk', [t.alice.id], { private: true });
    await refused(t.s, 'messaging.bookmark', { ...p, channelId: priv }, 'NOT_FOUND', { key: t.bob.key });
    const b = (await ok(t.s, 'messaging.bookmark', { ...p, channelId: priv }, t.alice.key)).bookmark;
    await refused(t.s, 'messaging.unbookmark', { bookmarkId: b.id }, 'NOT_FOUND', { key: t.bob.key });
    await refused(t.s, 'messaging.unbookmark', { bookmarkId: 'bkm_unknown0000000' }, 'NOT_FOUND', { key: t.bob.key });
    const other = await otherOrg(t.s);
    expect((await other.rpc('messaging.unbookmark', { bookmarkId: b.id })).body.error.code).toBe('NOT_FOUND');
    expect((await other.rpc('messaging.bookmark', p)).body.error.code).toBe('NOT_FOUND');
  });

  it('at most 100 live bookmarks per channel', async ({ team: t }) => {
    const ch = await channel(t, 'bookmarks', [t.alice.id]);
    let first = '';
    for (let i = 0; i < 100; i++) {
      const b = (await ok(t.s, 'messaging.bookmark', { channelId: ch, title: `b${i}`, url: `https://example.com/${i}` }, t.alice.key)).bookmark;
      first ||= b.id;
    }
    expect(
      await refused(t.s, 'messaging.bookmark', { channelId: ch, title: 'b100', url: 'https://example.com/100' }, 'CONFLICT', { key: t.alice.key }),
    ).toMatch(/100 bookmarks/);
    await ok(t.s, 'messaging.unbookmark', { bookmarkId: first }, t.alice.key);
    expect((await ok(t.s, 'messaging.bookmark', { channelId: ch, title: 'b100', url: 'https://example.com/100' }, t.alice.key)).changed).toBe(true);
  }, 60_000);
});
