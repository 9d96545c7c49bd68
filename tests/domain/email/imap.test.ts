import { existsSync } from 'node:fs';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperatorError, parseImapUrl, syncImap, type ImapSource } from '../../../domain/email/index.js';
import { eventsAfter, head, ok } from '../../helpers/calls.js';
import { compose, DOVECOT, startDovecot, type Dovecot } from './inbound-kit.js';
import { folderRoles, mailOrg, type MailOrg } from './kit.js';

/*
 * IMAP sync against a real Debian dovecot-imapd the test starts on a free port, with a temporary configuration and
 * a passwd-file user: mail appended there is imported through receiveMessage; a second run imports nothing; new
 * mail, a --since day, Junk and other folders, a changed UIDVALIDITY, a wrong password and a \Seen flag each do what
 * they say.
 */

const present = existsSync(DOVECOT);
if (!present) console.info(`imap.test.ts: skipped: ${DOVECOT} is not installed (apt-get install dovecot-imapd)`);

const USER = 'ann@acme.example';
const PASS = 'imap-secret-7731';

describe.skipIf(!present)('IMAP sync against dovecot', () => {
  let o: MailOrg;
  let dc: Dovecot;
  let imap: ImapFlow;
  let folders: Record<string, string>;
  const lines: string[] = [];
  const sync = (opts: { folder?: string; since?: string; source?: ImapSource } = {}) =>
    syncImap(o.s.runtime.deps, o.s.org.slug, o.address, opts.source ?? dc.source, { ...opts, out: (l) => lines.push(l) });
  const put = async (folder: string, subject: string, extra: object = {}) =>
    imap.append(
      folder,
      await compose({
        from: 'Bob <bob@client.example>',
        to: USER,
        subject,
        messageId: `<${subject.replace(/\W+/g, '-')}-${Date.now()}@client.example>`,
        ...extra,
      }),
    );
  const inFolder = async (folderId: string) =>
    (
      await o.s.runtime.db.query<{ subject: string }>('SELECT subject FROM email_messages WHERE org_id = $1 AND folder_id = $2 ORDER BY subject', [
        o.s.org.orgId,
        folderId,
      ])
    ).map((r) => r.subject);

  beforeAll(async () => {
    o = await mailOrg();
    dc = await startDovecot(USER, PASS);
    imap = new ImapFlow({ ...dc.source, auth: { user: USER, pass: PASS }, logger: false });
    await imap.connect();
    await imap.mailboxCreate('Junk').catch(() => undefined);
    await imap.mailboxCreate('Sent').catch(() => undefined);
    await imap.mailboxCreate('Clients/Acme');
    for (const subject of ['Old one', 'Old two', 'Old three']) await put('INBOX', subject);
    folders = await folderRoles(o);
  }, 60_000);
  afterAll(async () => {
    await imap?.logout().catch(() => undefined);
    await dc?.stop();
    await o?.s.close();
  });

  it('imports INBOX through the receive path, with progress; a second run imports nothing new', async () => {
    const before = await head(o.s);
    const first = await sync();
    expect(first).toMatchObject({ mailboxId: o.mailboxId, folder: 'INBOX', found: 3, imported: 3, present: 0, restarted: false });
    expect(await inFolder(folders.inbox)).toEqual(['Old one', 'Old three', 'Old two']);
    const events = await eventsAfter(o.s, before);
    expect(events.map((e) => [e.kind, e.actor, e.payload.via])).toEqual(Array(3).fill(['email.message.receive', '', 'imap']));
    expect(lines.join('\n')).toMatch(/INBOX: 3 messages, UIDVALIDITY \d+, first run/);
    expect(lines.join('\n')).toContain('3/3: 3 imported, 0 already here');
    expect(lines.join('\n')).not.toContain(PASS);

    const at = await head(o.s);
    const second = await sync();
    expect(second).toMatchObject({ found: 0, imported: 0, lastUid: first.lastUid });
    expect(await head(o.s)).toBe(at);

    await put('INBOX', 'New one');
    expect(await sync()).toMatchObject({ found: 1, imported: 1, lastUid: first.lastUid + 1 });
    expect(await inFolder(folders.inbox)).toContain('New one');
  });

  it('--since leaves out older mail; Junk lands in Spam, another folder in its path; Sent is refused', async () => {
    await put('INBOX', 'Tomorrow only');
    expect(await sync({ since: '2999-01-01' })).toMatchObject({ found: 0, imported: 0 });
    // That run moved nothing on: without --since the message still comes.
    expect((await sync()).imported).toBe(1);

    await put('Junk', 'Cheap pills');
    expect(await sync({ folder: 'Junk' })).toMatchObject({ folder: 'Junk', imported: 1 });
    expect(await inFolder(folders.spam)).toContain('Cheap pills');

    await put('Clients/Acme', 'Acme contract');
    const filed = await sync({ folder: 'Clients/Acme' });
    expect(filed.imported).toBe(1);
    const { mailboxes } = await ok(o.s, 'email.mailboxes', {});
    const acme = mailboxes.find((m: any) => m.id === o.mailboxId).folders.find((f: any) => f.path === 'Clients/Acme');
    expect(await inFolder(acme.id)).toEqual(['Acme contract']);

    const refused = await sync({ folder: 'Sent' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OperatorError);
    expect((refused as Error).message).toMatch(/^--folder: Sent holds mail written there/);
    expect(await sync({ folder: 'Nowhere' }).catch((e: Error) => e.message)).toMatch(/^--folder: 127\.0\.0\.1 has no folder Nowhere/);
  });

  it('a changed UIDVALIDITY reads the folder again and keeps what is here once; a wrong password is refused', async () => {
    await put('Clients/Acme', 'Acme renewal');
    expect((await sync({ folder: 'Clients/Acme' })).imported).toBe(1);
    // Recreate the folder with the same mail: the server gives it a new UIDVALIDITY.
    const lock = await imap.getMailboxLock('Clients/Acme');
    const sources: Buffer[] = [];
    try {
      for await (const m of imap.fetch('1:*', { source: true })) if (m.source) sources.push(m.source);
    } finally {
      lock.release();
    }
    await imap.mailboxDelete('Clients/Acme');
    await imap.mailboxCreate('Clients/Acme');
    for (const raw of sources) await imap.append('Clients/Acme', raw);
    const again = await sync({ folder: 'Clients/Acme' });
    expect(again).toMatchObject({ restarted: true, found: 2, imported: 0, present: 2 });
    expect(lines.some((l) => l.startsWith('UIDVALIDITY changed'))).toBe(true);

    const wrong = await sync({ source: { ...dc.source, pass: 'wrong' } }).catch((e: Error) => e);
    expect(wrong).toBeInstanceOf(OperatorError);
    expect((wrong as Error).message).toBe('--imap: 127.0.0.1 refused the user or password');
    expect(() => parseImapUrl('http://a:b@host')).toThrow(/^--imap: the scheme must be imap or imaps/);
    expect(() => parseImapUrl('imaps://host')).toThrow(/^--imap: give the user and password/);
    expect(parseImapUrl('imaps://ann%40acme.example:p%40ss@mail.example')).toEqual({
      secure: true,
      host: 'mail.example',
      port: 993,
      user: 'ann@acme.example',
      pass: 'p@ss',
    });
  });

  it("a message read on the server (\\Seen) is imported read for the mailbox's people, its agent still finds it unread", async () => {
    const seen = await put('INBOX', 'Read there');
    if (!seen) throw new Error('dovecot did not take the message');
    await put('INBOX', 'Not read there');
    const opened = await imap.getMailboxLock('INBOX');
    try {
      expect(await imap.messageFlagsAdd(String(seen.uid), ['\\Seen'], { uid: true })).toBe(true);
    } finally {
      opened.release();
    }
    const before = await head(o.s);
    expect(await sync()).toMatchObject({ found: 2, imported: 2 });
    const idOf = async (subject: string) =>
      (
        await o.s.runtime.db.query<{ message_id: string }>('SELECT message_id FROM email_messages WHERE org_id = $1 AND subject = $2', [o.s.org.orgId, subject])
      )[0]!.message_id;
    const unread = async (subject: string, key?: string) => (await ok(o.s, 'email.message', { messageId: await idOf(subject) }, key)).message.unread;
    expect([await unread('Read there'), await unread('Read there', o.mia.key), await unread('Read there', o.agent.key)]).toEqual([false, false, true]);
    expect([await unread('Not read there'), await unread('Not read there', o.mia.key)]).toEqual([true, true]);
    const events = await eventsAfter(o.s, before);
    expect(events.map((e) => [e.payload.via, e.payload.read ?? false])).toEqual([
      ['imap', true],
      ['imap', false],
    ]);
    // Read-only: the server's flags are as they were.
    const lock = await imap.getMailboxLock('INBOX');
    try {
      const flags: Record<string, boolean> = {};
      for await (const m of imap.fetch('1:*', { envelope: true, flags: true })) flags[m.envelope?.subject ?? ''] = m.flags?.has('\\Seen') ?? false;
      expect([flags['Read there'], flags['Not read there']]).toEqual([true, false]);
    } finally {
      lock.release();
    }
  });
});
