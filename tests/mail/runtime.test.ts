import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simpleParser } from 'mailparser';
import type { Runtime } from '../../domain/deployed.js';
import { one } from '../../db/types.js';
import { testRuntime } from '../helpers/harness.js';
import { startSink, type Sink } from './sink.js';
import { relayConfig, tempDir } from './kit.js';

// The runtime hands every family the one mail service (Deps.mail), on PGlite and on PostgreSQL alike.
describe('the runtime gives families the mail service', () => {
  let relay: Sink;
  let withRelay: Runtime;
  let noRelay: Runtime;
  let outboxDir: string;
  beforeAll(async () => {
    relay = await startSink();
    withRelay = await testRuntime({ mail: relayConfig(relay.url) });
    outboxDir = join(tempDir(), 'outbox');
    noRelay = await testRuntime({ mail: { outboxDir } });
  });
  afterAll(async () => {
    await withRelay?.close(); // closes the pool before the sink
    await noRelay?.close();
    await relay?.close();
  });

  const invite = { from: 'people@example.test', to: ['new.hire@client.test'], subject: 'Welcome', text: 'Accept your invitation.' };

  it('sends through the configured relay, and appends nothing to any ledger', async () => {
    // Other test files share the database and append meanwhile: look for the mail in every event instead of counting.
    const mentions = async () =>
      one(
        await withRelay.db.query<{ n: string }>(
          `SELECT count(*)::text AS n FROM events WHERE payload::text LIKE '%new.hire@client.test%' OR payload::text LIKE '%Accept your invitation%'`,
        ),
      ).n;
    const d = await withRelay.deps.mail.send(invite);
    expect(d.status).toBe('sent');
    const parsed = await simpleParser(relay.received[0].raw);
    expect([parsed.subject, parsed.text?.trim(), parsed.messageId]).toEqual(['Welcome', 'Accept your invitation.', d.messageId]);
    expect(await mentions()).toBe('0');
  });

  it('without a relay writes the outbox and reports it not delivered', async () => {
    const d = await noRelay.deps.mail.send(invite);
    expect(d).toMatchObject({ status: 'outboxed', accepted: [], error: 'not delivered: no relay configured (SMTP_URL)' });
    expect(d.file!.startsWith(outboxDir)).toBe(true);
    expect((await simpleParser(readFileSync(d.file!))).subject).toBe('Welcome');
  });
});
