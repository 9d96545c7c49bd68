import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '../../../domain/core/deps.js';
import { createMailbox, emailFamily, loadEmailInboundConfig, startInbound, type InboundListener } from '../../../domain/email/index.js';
import { newId } from '../../../domain/core/ids.js';
import { freshOrg, onPostgres, TestClient } from '../../helpers/harness.js';

import { compose, dnsFor } from './inbound-kit.js';
import { folderRoles, mailOrg, type MailOrg } from './kit.js';

/*
 * The SMTP listener end to end: a nodemailer client sends to smtp-server on 127.0.0.1 (a free port), SPF, DKIM and
 * DMARC are checked by mailauth with DNS answered offline, and the reply comes only after receiveMessage committed.
 * Signed mail lands in Inbox with its verdicts; a spoof lands in Spam; unknown recipients are 550, too much mail 552,
 * a database failure 451 with nothing stored, and the retry after it is stored once.
 */

let o: MailOrg;
let listener: InboundListener;
let port: number;
const dns = dnsFor('client.example');
const lines: { level: string; obj: any; msg?: string }[] = [];
const capture: Logger = {
  info: (obj, msg) => lines.push({ level: 'info', obj, msg }),
  warn: (obj, msg) => lines.push({ level: 'warn', obj, msg }),
  error: (obj, msg) => lines.push({ level: 'error', obj, msg }),
};
const config = { ...loadEmailInboundConfig({ EMAIL_SMTP_LISTEN: '127.0.0.1:0', EMAIL_SMTP_HOSTNAME: 'mx.acme.test' }), resolver: dns.resolver };

beforeAll(async () => {
  o = await mailOrg();
  listener = startInbound({ ...o.s.runtime.deps, log: capture }, config);
  port = (await listener.ready).port;
});
afterAll(async () => {
  await listener.stop();
  await o.s.close();
});

const client = (extra: object = {}) =>
  nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'mail.client.example', ...extra } as any);

const send = async (mail: SendMailOptions, extra: object = {}) => {
  const t = client(extra);
  try {
    return await t.sendMail(mail);
  } finally {
    t.close();
  }
};

const stored = async (rfcId: string) =>
  o.s.runtime.db.query<{ message_id: string; folder_id: string; auth_spf: string; auth_dkim: string; auth_dmarc: string }>(
    'SELECT message_id, folder_id, auth_spf, auth_dkim, auth_dmarc FROM email_messages WHERE org_id = $1 AND rfc_message_id = $2',
    [o.s.org.orgId, rfcId],
  );

let folders: Record<string, string>;
beforeAll(async () => {
  folders = await folderRoles(o);
});

describe('the SMTP listener', () => {
  it('mail signed with a DKIM key made here passes and is in Inbox when 250 comes back', async () => {
    const rfcId = `${newId('x')}@client.example`;
    const info = await send({ from: 'Ann <ann@client.example>', to: o.address, subject: 'Signed', text: 'Hello', messageId: `<${rfcId}>` }, { dkim: dns.dkim });
    expect(info.response).toMatch(/^250 /);
    expect(info.accepted).toEqual([o.address]);
    // Committed before the reply: the row is there the moment sendMail resolves.
    const [row] = await stored(rfcId);
    expect(row).toMatchObject({ folder_id: folders.inbox, auth_spf: 'pass', auth_dkim: 'pass', auth_dmarc: 'pass' });
    const line = lines.find((l) => l.obj.email?.messageIds?.includes(row?.message_id));
    expect(line).toMatchObject({ level: 'info', obj: { email: { via: 'smtp', code: 250, spf: 'pass', dkim: 'pass', dmarc: 'pass', orgId: o.s.org.orgId } } });
  });

  it('a spoof of the domain fails DMARC and lands in Spam', async () => {
    const rfcId = `${newId('x')}@client.example`;
    const info = await send({
      envelope: { from: 'x@evil.example', to: [o.address] },
      from: 'CEO <ceo@client.example>',
      to: o.address,
      subject: 'Wire the money today',
      messageId: `<${rfcId}>`,
    });
    expect(info.response).toMatch(/^250 /);
    const [row] = await stored(rfcId);
    expect(row).toMatchObject({ folder_id: folders.spam, auth_spf: 'fail', auth_dmarc: 'fail' });
  });

  it('an unknown recipient is 550; the known ones still get the message', async () => {
    const refused = await send({ from: 'ann@client.example', to: 'nobody@acme.example' }).catch((e: any) => e);
    expect(refused.responseCode).toBe(550);
    expect(refused.response).toMatch(/^550 5\.1\.1 No mailbox here/);
    const rfcId = `${newId('x')}@client.example`;
    const info = await send({ from: 'ann@client.example', to: [o.address, 'nobody@acme.example'], messageId: `<${rfcId}>` });
    expect(info.accepted).toEqual([o.address]);
    expect(info.rejected).toEqual(['nobody@acme.example']);
    expect(await stored(rfcId)).toHaveLength(1);
  });

  it('over 25 MB is 552 and nothing is stored', async () => {
    const rfcId = `${newId('x')}@client.example`;
    const big = Buffer.alloc(25 * 1024 * 1024 + 1024, 'a');
    const refused = await send({
      from: 'ann@client.example',
      to: o.address,
      messageId: `<${rfcId}>`,
      attachments: [{ filename: 'big.bin', content: big }],
    }).catch((e: any) => e);
    expect(refused.responseCode).toBe(552);
    expect(await stored(rfcId)).toHaveLength(0);
  });

  it('the database failing is 451 with nothing stored; the retry is stored once, and a repeat of it is kept once', async () => {
    const rfcId = `${newId('x')}@client.example`;
    const raw = await compose({ from: 'ann@client.example', to: o.address, subject: 'Retry me', messageId: `<${rfcId}>`, sign: dns.dkim });
    const trigger = `hb_fail_${newId('x').slice(2).toLowerCase()}`;
    // A real failure inside the receiving transaction: every message row of this org is refused by the database.
    await o.s.runtime.db.query(
      `CREATE FUNCTION ${trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
         IF NEW.org_id = '${o.s.org.orgId}' THEN RAISE EXCEPTION 'storage unavailable (test)'; END IF; RETURN NEW; END $$`,
    );
    await o.s.runtime.db.query(`CREATE TRIGGER ${trigger} BEFORE INSERT ON email_messages FOR EACH ROW EXECUTE FUNCTION ${trigger}()`);
    try {
      const failed = await send({ envelope: { from: 'ann@client.example', to: [o.address] }, raw }).catch((e: any) => e);
      expect(failed.responseCode).toBe(451);
      expect(failed.response).toMatch(/^451 4\.3\.0 /);
      expect(await stored(rfcId)).toHaveLength(0);
      expect(lines.some((l) => l.level === 'warn' && l.obj.email?.code === 451)).toBe(true);
    } finally {
      await o.s.runtime.db.query(`DROP TRIGGER ${trigger} ON email_messages`);
      await o.s.runtime.db.query(`DROP FUNCTION ${trigger}()`);
    }
    const retried = await send({ envelope: { from: 'ann@client.example', to: [o.address] }, raw });
    expect(retried.response).toMatch(/^250 /);
    expect(await stored(rfcId)).toHaveLength(1);
    // The sender never saw that 250 and sends again: the same bytes are kept once, with or without a Message-ID.
    await send({ envelope: { from: 'ann@client.example', to: [o.address] }, raw });
    expect(await stored(rfcId)).toHaveLength(1);
    const subject = `No id ${newId('x')}`;
    const bare = Buffer.from((await compose({ from: 'ann@client.example', to: o.address, subject })).toString('utf8').replace(/^Message-ID:.*\r\n/im, ''));
    for (let i = 0; i < 2; i++) await send({ envelope: { from: 'ann@client.example', to: [o.address] }, raw: bare });
    const copies = await o.s.runtime.db.query('SELECT 1 FROM email_messages WHERE org_id = $1 AND subject = $2', [o.s.org.orgId, subject]);
    expect(copies).toHaveLength(1);
  });

  it('one org a message (another org’s recipient is 452, sent again in its own transaction); a recipient limit (452)', async () => {
    const other = await freshOrg(o.s.runtime, 'mx');
    const owner = (await new TestClient(o.s.app, other.adminKey).get('org/whoami')).body.principal.id as string;
    const theirs = `sales-${newId('x').slice(2).toLowerCase()}@other.example`;
    await o.s.runtime.db.tx((q) => createMailbox(q, other.orgId, { address: theirs, members: [{ principalId: owner, role: 'owner' }] }));
    const rfcId = `${newId('x')}@client.example`;
    const info = await send({ from: 'ann@client.example', to: [o.address, theirs], messageId: `<${rfcId}>` });
    expect(info.accepted).toEqual([o.address]);
    expect(info.rejected).toEqual([theirs]);
    expect(info.rejectedErrors?.[0]).toMatchObject({ responseCode: 452 });
    const theirsAlone = await send({ from: 'ann@client.example', to: theirs, messageId: `<${rfcId}>` });
    expect(theirsAlone.accepted).toEqual([theirs]);
    const rows = await o.s.runtime.db.query<{ org_id: string }>('SELECT org_id FROM email_messages WHERE rfc_message_id = $1 ORDER BY org_id', [rfcId]);
    expect(rows.map((r) => r.org_id).sort()).toEqual([o.s.org.orgId, other.orgId].sort());

    const narrow = startInbound(o.s.runtime.deps, { ...config, maxRecipients: 1 });
    try {
      const t = nodemailer.createTransport({ host: '127.0.0.1', port: (await narrow.ready).port, secure: false, ignoreTLS: true });
      const limited = await t.sendMail({ from: 'ann@client.example', to: [o.address, o.otherAddress] });
      t.close();
      expect(limited.accepted).toEqual([o.address]);
      expect(limited.rejectedErrors?.[0]).toMatchObject({ responseCode: 452 });
    } finally {
      await narrow.stop();
    }
  });

  it('no AUTH and no STARTTLS without a key (an MX); SIZE is announced', async () => {
    const net = await import('node:net');
    const ehlo = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d) => {
        text += d.toString();
        if (text.includes('220 ') && !text.includes('EHLO-SENT')) {
          text += 'EHLO-SENT';
          socket.write('EHLO probe.example\r\n');
        } else if (/\r\n250 [^\r\n]*\r\n$/.test(text)) {
          socket.end('QUIT\r\n');
          resolve(text);
        }
      });
      socket.on('error', reject);
    });
    expect(ehlo).toMatch(/^220 mx\.acme\.test /);
    expect(ehlo).toMatch(new RegExp(`250[- ]SIZE ${25 * 1024 * 1024}\\r\\n`));
    expect(ehlo).not.toMatch(/AUTH|STARTTLS/);
  });

  it('STARTTLS with a configured key and certificate (EMAIL_SMTP_TLS_KEY, _CERT): mail arrives over TLS', async () => {
    const { default: tlsOptions } = (await import('smtp-server/lib/tls-options.js')) as unknown as { default: () => { key: string; cert: string } };
    const { key, cert } = tlsOptions();
    const dir = mkdtempSync(join(tmpdir(), 'wops-smtp-tls-'));
    writeFileSync(join(dir, 'key.pem'), key);
    writeFileSync(join(dir, 'cert.pem'), cert);
    const env = { EMAIL_SMTP_LISTEN: '127.0.0.1:0', EMAIL_SMTP_TLS_KEY: join(dir, 'key.pem'), EMAIL_SMTP_TLS_CERT: join(dir, 'cert.pem') };
    expect(() => loadEmailInboundConfig({ ...env, EMAIL_SMTP_TLS_CERT: '' })).toThrow(/^EMAIL_SMTP_TLS_KEY, EMAIL_SMTP_TLS_CERT: give both files, or neither/);
    expect(() => loadEmailInboundConfig({ EMAIL_SMTP_LISTEN: 'port 25' })).toThrow(/^EMAIL_SMTP_LISTEN: give host:port/);
    const secure = startInbound(o.s.runtime.deps, { ...loadEmailInboundConfig(env), resolver: dns.resolver });
    try {
      const t = nodemailer.createTransport({
        host: '127.0.0.1',
        port: (await secure.ready).port,
        secure: false,
        requireTLS: true,
        tls: { rejectUnauthorized: false },
      });
      const rfcId = `${newId('x')}@client.example`;
      const info = await t.sendMail({ from: 'ann@client.example', to: o.address, subject: 'Over TLS', messageId: `<${rfcId}>` });
      t.close();
      expect(info.response).toMatch(/^250 /);
      expect(await stored(rfcId)).toHaveLength(1);
    } finally {
      await secure.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the family starts it as background work where EMAIL_SMTP_LISTEN is set, and no address reaches a log line', async () => {
    const bg = emailFamily.background!({ ...o.s.runtime.deps, config: { ...o.s.runtime.deps.config, emailInbound: config } }) as InboundListener;
    try {
      const t = nodemailer.createTransport({ host: '127.0.0.1', port: (await bg.ready).port, secure: false, ignoreTLS: true });
      expect((await t.sendMail({ from: 'ann@client.example', to: o.address, subject: 'Via background' })).response).toMatch(/^250 /);
      t.close();
    } finally {
      await bg.stop();
    }
    const none = emailFamily.background!(o.s.runtime.deps);
    expect('ready' in none).toBe(false);
    await none.stop();
    const logged = JSON.stringify(lines);
    expect(logged).toContain('"code":250');
    expect(logged).not.toMatch(/@client\.example|@acme\.example|@other\.example|@evil\.example|Wire the money/);
  });

  it('takes 20 messages a second and more from four connections at once, each committed before its reply', async () => {
    const t = client({ pool: true, maxConnections: 4, maxMessages: Infinity, dkim: dns.dkim });
    const mail = (i: number) => t.sendMail({ from: 'ann@client.example', to: o.address, subject: `Load ${i}`, text: 'x'.repeat(2000) });
    await Promise.all([0, 1, 2, 3].map(mail)); // the connections open and the code paths warm up
    const count = 80;
    const started = Date.now();
    const sent = await Promise.all(Array.from({ length: count }, (_, i) => mail(i + 4)));
    const rate = count / ((Date.now() - started) / 1000);
    t.close();
    expect(sent.every((s) => s.response.startsWith('250 '))).toBe(true);
    console.info(
      `email inbound: ${rate.toFixed(1)} messages/s over SMTP on ${onPostgres ? 'PostgreSQL' : 'PGlite'}, 4 connections, DKIM-signed, each committed`,
    );
    // The design's 20 a second on two cores is PostgreSQL's (measured 40 to 60 beside other test runs). PGlite has one
    // connection and shares this thread with the test's own client and server: half that is its floor here.
    expect(rate).toBeGreaterThanOrEqual(onPostgres ? 20 : 10);
  });
});
