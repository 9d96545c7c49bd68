import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser, type ParsedMail } from 'mailparser';
import { createMailbox, receiveMessage, type Verdict } from '../../../domain/email/index.js';
import type { EmailSendingConfig } from '../../../domain/email/send/config.js';
import type { DkimSettings, MailConfig } from '../../../mail/config.js';
import { ok } from '../../helpers/calls.js';
import { DATABASE_URL, onPostgres, testServer, type TestServer } from '../../helpers/harness.js';
import { ownerOf, person, type Person } from '../../helpers/people.js';
import { until } from '../../jobs/kit.js';
import { freshDatabase } from '../../multiprocess/harness.js';
import { relayConfig, tempDir } from '../../mail/kit.js';
import type { Sink } from '../../mail/sink.js';
import { mime } from './kit.js';

/*
 * The sending tests' world: a server whose mail goes to a relay sink (a real smtp-server on 127.0.0.1, DKIM-signed
 * with a key made in the test) or, without one, to an outbox directory; the real pg-boss worker (on a database of
 * the world's own); a shared mailbox sales@ with the admin as owner, mia as reviewer, max as a member and an agent,
 * and ops@ (the owner and another agent) for mail inside the org. Undo windows are 1 second where a worker runs.
 */

export interface SendWorld {
  s: TestServer;
  owner: Person;
  mia: Person;
  max: Person;
  agent: Person;
  /** A second agent, not in sales@ (another mailbox's caller). */
  stranger: Person;
  mailboxId: string;
  address: string;
  opsId: string;
  opsAddress: string;
  domain: string;
  outboxDir: string;
  close(): Promise<void>;
}

let n = 0;

export async function sendWorld(
  opts: { relay?: Sink; dkim?: DkimSettings; config?: Partial<EmailSendingConfig>; workers?: boolean; domain?: string } = {},
): Promise<SendWorld> {
  const outboxDir = join(tempDir('wops-email-outbox-'), 'outbox');
  const mail: MailConfig = opts.relay ? { ...relayConfig(opts.relay.url, { timeoutMs: 5000 }, opts.dkim), outboxDir } : { outboxDir, dkim: opts.dkim };
  // A world whose worker delivers has a database of its own: on a shared one another test's runtime (its own mail
  // settings: no relay, another sink) could take its delivery jobs, and it theirs.
  const workers = opts.workers !== false;
  const fresh = workers && onPostgres ? await freshDatabase(DATABASE_URL!, 'wops_email') : undefined;
  const s = await testServer({
    ...(workers ? (fresh ? { databaseUrl: fresh.url } : { inMemory: true }) : {}),
    mail,
    config: {
      emailSending: { reviewTtlMs: 7 * 24 * 3600_000, hourlyExternalCap: 50, retryDelaySeconds: 1, retryWindowMs: 24 * 3600_000, ...opts.config },
    },
  });
  if (workers) await s.runtime.deps.jobs.startWorkers({ pollingIntervalSeconds: 0.5, maintenanceIntervalSeconds: 1 });
  const owner = await ownerOf(s);
  const mia = await person(s, 'Mia Reviewer', { tier: 'member' });
  const max = await person(s, 'Max Member', { tier: 'member' });
  const agent = await person(s, 'Agent Smith', { tier: 'agent' });
  const stranger = await person(s, 'Other Agent', { tier: 'agent' });
  const tag = `${Date.now().toString(36)}${++n}`;
  const domain = opts.domain ?? `acme-${tag}.example`;
  const address = `sales@${domain}`;
  const opsAddress = `ops@${domain}`;
  const { mailboxId, opsId } = await s.runtime.db.tx(async (q) => {
    const a = await createMailbox(q, s.org.orgId, {
      address,
      displayName: 'Acme Sales',
      // Without a worker nothing is delivered: a long window keeps its jobs from coming due while the suite runs.
      undoSeconds: workers ? 1 : 300,
      members: [
        { principalId: owner.id, role: 'owner' },
        { principalId: mia.id, role: 'reviewer' },
        { principalId: max.id, role: 'member' },
        { principalId: agent.id, role: 'agent' },
      ],
    });
    const b = await createMailbox(q, s.org.orgId, {
      address: opsAddress,
      displayName: 'Acme Ops',
      undoSeconds: workers ? 1 : 300,
      members: [
        { principalId: owner.id, role: 'owner' },
        { principalId: stranger.id, role: 'agent' },
      ],
    });
    return { mailboxId: a.mailboxId, opsId: b.mailboxId };
  });
  const close = async () => {
    await s.close();
    await fresh?.drop();
  };
  return { s, owner, mia, max, agent, stranger, mailboxId, address, opsId, opsAddress, domain, outboxDir, close };
}

/** Mail from outside arriving in sales@ (as the SMTP listener hands it over): its message and thread ids. */
export async function arrive(
  w: SendWorld,
  opts: { subject?: string; text?: string; from?: string; messageId?: string; dmarc?: Verdict; to?: string } = {},
): Promise<{ messageId: string; threadId: string; rfcId: string }> {
  const rfcId = opts.messageId ?? `${Date.now().toString(36)}.${++n}@client.example`;
  const raw = await mime({
    from: opts.from ?? 'Ann Lee <ann@client.example>',
    to: opts.to ?? w.address,
    subject: opts.subject ?? 'Pricing',
    text: opts.text ?? 'What does the plan cost?',
    messageId: `<${rfcId}>`,
  });
  const got = await receiveMessage(w.s.runtime.deps, {
    orgId: w.s.org.orgId,
    raw,
    envelope: { from: 'ann@client.example', to: [opts.to ?? w.address] },
    auth: opts.dmarc ? { spf: opts.dmarc, dkim: opts.dmarc, dmarc: opts.dmarc } : undefined,
  });
  return { messageId: got.messages[0].messageId, threadId: got.messages[0].threadId, rfcId };
}

export interface SubmissionState {
  undo_status: string;
  delivery: string | null;
  last_error: string | null;
  attempts: number;
}

/** The message's newest submission as stored. */
export async function submissionOf(w: SendWorld, messageId: string): Promise<SubmissionState | undefined> {
  const [row] = await w.s.runtime.db.query<SubmissionState>(
    'SELECT undo_status, delivery, last_error, attempts FROM email_submissions WHERE org_id = $1 AND message_id = $2 ORDER BY created_at DESC LIMIT 1',
    [w.s.org.orgId, messageId],
  );
  return row;
}

/** Wait until the message's submission has a delivery (the job ran). */
export const delivered = (w: SendWorld, messageId: string, timeoutMs = 20_000) =>
  until(
    `delivery of ${messageId}`,
    async () => {
      const sub = await submissionOf(w, messageId);
      return sub?.delivery ? sub : undefined;
    },
    timeoutMs,
  );

/** The .eml files written to the outbox, parsed. */
export async function outboxed(w: SendWorld): Promise<ParsedMail[]> {
  let names: string[] = [];
  try {
    names = readdirSync(w.outboxDir).filter((f) => f.endsWith('.eml'));
  } catch {
    return [];
  }
  return Promise.all(names.sort().map((f) => simpleParser(readFileSync(join(w.outboxDir, f)))));
}

/** The message as `by` reads it. */
export const messageAs = async (w: SendWorld, messageId: string, by: Person) => (await ok(w.s, 'email.message', { messageId }, by.key)).message;

/** Events of the org after seq, as the admin reads them. */
export async function eventsSince(w: SendWorld, seq: number): Promise<any[]> {
  const page = await w.s.client.get('events', { cursor: seq, limit: 500 });
  return page.body.events;
}
