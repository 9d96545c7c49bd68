import { afterAll, beforeAll, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { onPostgres } from '../../helpers/harness.js';
import { expectOk } from '../../helpers/calls.js';
import { assign, createTask, mailsTo, openKit, type Kit } from './kit.js';

/**
 * The runtime with workers (as the server runs) delivers on its own: nobody calls runOnce here. On PostgreSQL the
 * poll is set to a minute, so only the commit's wake-up (ledger.appended over LISTEN/NOTIFY) can deliver in time;
 * on PGlite (one process, nothing announced) the poll does.
 */

let kit: Kit;
beforeAll(async () => {
  kit = await openKit({ workers: { pollingIntervalSeconds: 0.5 }, config: { notifyPollMs: onPostgres ? 60_000 : 100 } });
});
afterAll(() => kit?.close());

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('a task assigned is mailed by the running runtime, once', async () => {
  const minted = await kit.s.client.mint({ tier: 'member' }, 'ivy');
  const email = `ivy-${randomBytes(4).toString('hex')}@example.test`;
  expectOk('member.update', await kit.s.client.rpc('member.update', { memberId: minted.principal.id, email }));
  const task = await createTask(kit, { title: 'Delivered by the workers' });
  await assign(kit, task.id, minted.principal.id);
  const subject = 'Assigned to you: Delivered by the workers';
  const mine = async () => (await mailsTo(kit, email)).filter((m) => m.subject === subject);
  expect(await until(mine, (m) => m.length > 0)).toHaveLength(1);
  await new Promise((r) => setTimeout(r, 500)); // a few more passes
  expect(await mine()).toHaveLength(1);
});
