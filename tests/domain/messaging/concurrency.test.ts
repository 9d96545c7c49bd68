import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../db/types.js';
import { onPostgres } from '../../helpers/harness.js';
import { history, msgOrg, newChannel, type MsgOrg } from './core-kit.js';
import { ok, rpc } from '../../helpers/calls.js';

/*
 * Races that only PostgreSQL can stage: embedded PGlite has one connection, so its transactions never overlap and
 * these would pass without testing anything. On PostgreSQL they run truly concurrently (pool of 40).
 */

let o: MsgOrg;
beforeAll(async () => {
  if (onPostgres) o = await msgOrg();
}, 60_000);
afterAll(() => o?.s.close());

describe.skipIf(!onPostgres)('concurrency (PostgreSQL only: PGlite serialises every transaction on its one connection)', () => {
  it('two DM resolves of the same set at once end with one channel; one created it, the other found it', async () => {
    for (let round = 0; round < 5; round++) {
      const other = round % 2 ? o.max : o.agent;
      const [a, b] = await Promise.all([
        ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [other.id, o.viewer.id] }, o.mia.key),
        ok(o.s, 'channel.resolveOrCreateDm', { principalIds: [o.mia.id, o.viewer.id] }, other.key),
      ]);
      expect(a.channel.id).toBe(b.channel.id);
      if (round < 2) expect([a.changed, b.changed].sort()).toEqual([false, true]);
    }
    const { n } = one(await o.s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM channels WHERE org_id = $1 AND kind = 'dm'`, [o.s.org.orgId]));
    expect(n).toBe(2);
  });

  it('20 concurrent sends to one channel get distinct, gap-free seqs', async () => {
    const ch = await newChannel(o, { members: [o.mia, o.max] });
    const sent = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ok(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: `c-${i}`, text: `burst ${i}` }, i % 2 ? o.mia.key : o.max.key),
      ),
    );
    expect(sent.map((r) => r.message.seq).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const page = await history(o, { channelId: ch.id, limit: 50 });
    expect(page.lastSeq).toBe(20);
    expect(page.messages.map((m: any) => m.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 20 - i));
  });

  it('the same idempotencyId sent 5 times at once is one message; the same name created twice at once is one channel', async () => {
    const ch = await newChannel(o, { members: [o.mia] });
    const same = await Promise.all(
      Array.from({ length: 5 }, () => ok(o.s, 'messaging.send', { channelId: ch.id, idempotencyId: 'once', text: 'only once' }, o.mia.key)),
    );
    expect(new Set(same.map((r) => r.message.id)).size).toBe(1);
    expect(same.filter((r) => r.changed)).toHaveLength(1);
    const name = `race-${Date.now()}`;
    const made = await Promise.all([rpc(o.s, 'channel.create', { name }, o.mia.key), rpc(o.s, 'channel.create', { name }, o.max.key)]);
    expect(made.map((r) => (r.body.ok ? 'ok' : r.body.error.code)).sort()).toEqual(['CONFLICT', 'ok']);
  });
});
