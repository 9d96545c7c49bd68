import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { simpleParser, type ParsedMail } from 'mailparser';
import { NotificationDelivery, type DeliveryOptions } from '../../../domain/notification/delivery.js';
import type { RuntimeOptions } from '../../../domain/deployed.js';
import { DATABASE_URL, onPostgres, testServer, type TestServer } from '../../helpers/harness.js';
import { expectOk } from '../../helpers/calls.js';
import type { Person } from '../../helpers/people.js';
import { newTask } from '../../helpers/tasks.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { relayConfig } from '../../mail/kit.js';
import { startSink, type Sink, type SinkOptions } from '../../mail/sink.js';

/**
 * Delivery tests: a real SMTP listener as the relay, and on PostgreSQL a database of their own, since delivery reads
 * every org of its database and a worker process of another test file would otherwise mail this file's notifications.
 */

export interface Kit {
  s: TestServer;
  sink: Sink;
  /** The delivery's clock (tests move it). */
  clock: { now: Date };
  delivery: NotificationDelivery;
  /** Another delivery on the same runtime, with its own options and this clock. */
  newDelivery(opts?: DeliveryOptions): NotificationDelivery;
  /** A database URL other runtimes may open (PostgreSQL only). */
  url?: string;
  close(): Promise<void>;
}

export async function openKit(opts: Partial<RuntimeOptions> = {}, sinkOptions: SinkOptions = {}): Promise<Kit> {
  const fresh = onPostgres ? await freshDatabase(DATABASE_URL!, 'wops_notify') : undefined;
  const sink = await startSink(sinkOptions);
  // Delivery reads every org's notifications: a database of its own (PGlite's too, not the worker's).
  const s = await testServer({ ...(fresh ? { databaseUrl: fresh.url } : { inMemory: true }), mail: relayConfig(sink.url), ...opts });
  const clock = { now: new Date('2026-03-02T10:00:00Z') }; // a Monday
  const newDelivery = (o: DeliveryOptions = {}) => new NotificationDelivery(s.runtime.deps, { now: () => clock.now, ...o });
  return {
    s,
    sink,
    clock,
    delivery: newDelivery(),
    newDelivery,
    url: fresh?.url,
    async close() {
      await s.close();
      await sink.close();
      await fresh?.drop();
    },
  };
}

/** A member with a key and a mailbox of their own. */
export interface Human extends Person {
  email: string;
}

/**
 * A human member with a key of `tier` and a mailbox of their own. Its first mail is the security notice of the key
 * minted for it (checked here, then set aside), so tests start from an empty mailbox.
 */
export async function human(kit: Kit, label: string, tier: 'member' | 'approver' | 'admin' | 'viewer' = 'member'): Promise<Human> {
  const minted = await kit.s.client.mint({ tier }, label);
  const email = `${label}-${randomBytes(4).toString('hex')}@example.test`;
  expectOk('member.update', await kit.s.client.rpc('member.update', { memberId: minted.principal.id, email }));
  await kit.delivery.runOnce();
  const [notice, ...more] = await mailsTo(kit, email);
  expect(more).toEqual([]);
  expect(notice.subject).toBe('Security notice about your account');
  expect(notice.text).toContain(`A new API key (${minted.keyId}, tier ${tier}) was created for your account.`);
  const received = kit.sink.received; // the sink keeps pushing to this very array
  received.splice(0, received.length, ...received.filter((r) => !r.to.includes(email)));
  return { id: minted.principal.id, key: minted.apiKey, email };
}

/** The mails the relay took for one address, parsed. */
export async function mailsTo(kit: Kit, email: string): Promise<ParsedMail[]> {
  const raw = kit.sink.received.filter((r) => r.to.includes(email.toLowerCase()));
  return Promise.all(raw.map((r) => simpleParser(r.raw)));
}

/** The notification rows of one recipient, oldest first. */
export async function rowsOf(kit: Kit, recipientId: string) {
  return kit.s.runtime.db.query<{ seq: string | number; type: string; mode: string; status: string; attempts: number; not_before: string | Date }>(
    'SELECT seq, type, mode, status, attempts, not_before FROM notifications WHERE org_id = $1 AND recipient_id = $2 ORDER BY seq, type',
    [kit.s.org.orgId, recipientId],
  );
}

export const createTask = (kit: Kit, params: Record<string, unknown>, key?: string): Promise<{ id: string }> => newTask(kit.s, params, key);

export async function assign(kit: Kit, taskId: string, assignee: string | null, key?: string): Promise<void> {
  expectOk('board.assignTask', await kit.s.client.rpc('board.assignTask', { taskId, assignee }, { key }));
}
