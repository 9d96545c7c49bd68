import type { Deps } from '../../core/deps.js';
import { findOrgBySlug } from '../../people/index.js';
import { MAX_MESSAGE_BYTES } from '../../../protocol/methods/email/shapes.js';
import { cleanPath } from '../folders.js';
import { OperatorError, cleanAddress } from '../mailboxes.js';
import { receiveMessage } from '../receive.js';
import type { Into } from './place.js';

/*
 * IMAP sync (npm run cli -- mailbox-sync): an existing mailbox's mail imported through receiveMessage, as if it had
 * arrived, by imapflow. Per mailbox, account and folder, email_imap_syncs keeps the UIDVALIDITY and the highest UID
 * imported, written after each message committed: a second run fetches only what is new, a run cut short resumes
 * where it stopped, and a folder whose UIDVALIDITY changed is read again from the start (receiveMessage keeps the
 * same bytes under the same Message-ID once). INBOX goes through rules and spam checks; another folder lands in the
 * folder of the same role (Junk to Spam, Trash, Archive) or path. Sent and Drafts hold mail written there, not
 * received: refused. A message already \Seen there is imported read for the mailbox's people (a person read it);
 * its agents still find it unread. The folder is opened read-only, so the server's flags stay as they were. The
 * password is used to log in and never stored or printed.
 */

export interface ImapSource {
  secure: boolean;
  host: string;
  port: number;
  user: string;
  pass: string;
}

/** `imaps://user:pass@host:993` or `imap://…:143`; the user may be URL-encoded (ann%40acme.com). */
export function parseImapUrl(text: string): ImapSource {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new OperatorError('--imap: give imaps://user:password@host:993 (or imap://… for a server without TLS)');
  }
  if (url.protocol !== 'imap:' && url.protocol !== 'imaps:')
    throw new OperatorError(`--imap: the scheme must be imap or imaps, got ${url.protocol.replace(/:$/, '')}`);
  if (!url.username || !url.password) throw new OperatorError('--imap: give the user and password in the URL: imaps://user:password@host');
  const secure = url.protocol === 'imaps:';
  return {
    secure,
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 993 : 143,
    user: decodeURIComponent(url.username),
    pass: decodeURIComponent(url.password),
  };
}

export interface SyncOptions {
  folder?: string;
  /** Only mail the server received on or after this day (IMAP SEARCH SINCE). */
  since?: string;
  /** Progress lines (stdout in the CLI). */
  out?: (line: string) => void;
  /** Check the server's certificate (default true; tests against a self-signed server turn it off). */
  verifyTls?: boolean;
}

export interface SyncResult {
  mailboxId: string;
  folder: string;
  uidValidity: string;
  found: number;
  imported: number;
  /** Already in the mailbox (the same bytes under the same Message-ID). */
  present: number;
  tooLarge: number;
  lastUid: number;
  restarted: boolean;
}

type SyncDeps = Pick<Deps, 'db' | 'blobs' | 'clock' | 'stream' | 'jobs' | 'config'>;

const INTO: Record<string, Into | 'refuse'> = {
  '\\Junk': { role: 'spam' },
  '\\Trash': { role: 'trash' },
  '\\Archive': { role: 'archive' },
  '\\All': { role: 'archive' },
  '\\Sent': 'refuse',
  '\\Drafts': 'refuse',
};

export async function syncImap(deps: SyncDeps, slug: string, address: string, source: ImapSource, opts: SyncOptions = {}): Promise<SyncResult> {
  const out = opts.out ?? (() => undefined);
  const folder = opts.folder ?? 'INBOX';
  if (opts.since !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(opts.since)) throw new OperatorError('--since: a date YYYY-MM-DD');
  const org = await findOrgBySlug(deps.db, slug);
  if (!org) throw new OperatorError(`org ${slug} not found`);
  const [box] = await deps.db.query<{ mailbox_id: string; address: string }>(
    'SELECT mailbox_id, address FROM email_mailboxes WHERE org_id = $1 AND address = $2',
    [org.orgId, cleanAddress(address)],
  );
  if (!box) throw new OperatorError(`no mailbox ${address} in ${slug}: create it with mailbox-create`);
  const account = `${source.user}@${source.host}:${source.port}`.toLowerCase();

  const { ImapFlow } = await import('imapflow');
  const client = new ImapFlow({
    host: source.host,
    port: source.port,
    secure: source.secure,
    auth: { user: source.user, pass: source.pass },
    logger: false,
    tls: { rejectUnauthorized: opts.verifyTls !== false },
  });
  await client.connect().catch((err: Error & { authenticationFailed?: boolean }) => {
    throw new OperatorError(
      err.authenticationFailed ? `--imap: ${source.host} refused the user or password` : `--imap: cannot reach ${source.host}:${source.port}: ${err.message}`,
    );
  });
  try {
    const listed = (await client.list()).find((f) => f.path.toLowerCase() === folder.toLowerCase());
    if (!listed) throw new OperatorError(`--folder: ${source.host} has no folder ${folder}`);
    const into =
      listed.path.toUpperCase() === 'INBOX'
        ? undefined
        : (INTO[listed.specialUse ?? ''] ?? { path: cleanPath(listed.path.split(listed.delimiter).join('/'), '--folder') });
    if (into === 'refuse')
      throw new OperatorError(`--folder: ${listed.path} holds mail written there (${listed.specialUse}), not mail received: import INBOX or another folder`);
    const lock = await client.getMailboxLock(listed.path, { readOnly: true });
    try {
      const mailbox = client.mailbox;
      if (!mailbox) throw new Error(`${listed.path} did not open`);
      const uidValidity = String(mailbox.uidValidity);
      const [state] = await deps.db.query<{ uid_validity: string; last_uid: string }>(
        'SELECT uid_validity, last_uid FROM email_imap_syncs WHERE org_id = $1 AND mailbox_id = $2 AND account = $3 AND folder = $4',
        [org.orgId, box.mailbox_id, account, listed.path],
      );
      const restarted = state !== undefined && String(state.uid_validity) !== uidValidity;
      let lastUid = state && !restarted ? Number(state.last_uid) : 0;
      out(
        `${account} ${listed.path}: ${mailbox.exists} messages, UIDVALIDITY ${uidValidity}${state ? `, last run got to UID ${state.last_uid}` : ', first run'}`,
      );
      if (restarted) out(`UIDVALIDITY changed (was ${state.uid_validity}): reading the folder again from the start; mail already here is skipped`);
      const found =
        mailbox.exists === 0
          ? []
          : (await client.search({ uid: `${lastUid + 1}:*`, ...(opts.since ? { since: new Date(`${opts.since}T00:00:00Z`) } : {}) }, { uid: true })) || [];
      // `n:*` always names the last message, even when it is older than n.
      const uids = found.filter((u) => u > lastUid).sort((a, b) => a - b);
      out(`${uids.length} new since UID ${lastUid}${opts.since ? ` and on or after ${opts.since}` : ''}`);
      const result: SyncResult = {
        mailboxId: box.mailbox_id,
        folder: listed.path,
        uidValidity,
        found: uids.length,
        imported: 0,
        present: 0,
        tooLarge: 0,
        lastUid,
        restarted,
      };
      const save = async (uid: number, added: number) => {
        await deps.db.query(
          `INSERT INTO email_imap_syncs (org_id, mailbox_id, account, folder, uid_validity, last_uid, imported, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
           ON CONFLICT (org_id, mailbox_id, account, folder) DO UPDATE SET uid_validity = EXCLUDED.uid_validity, last_uid = EXCLUDED.last_uid,
             imported = email_imap_syncs.imported + $7, updated_at = EXCLUDED.updated_at`,
          [org.orgId, box.mailbox_id, account, listed.path, uidValidity, uid, added, deps.clock.now().toISOString()],
        );
      };
      for (const [i, uid] of uids.entries()) {
        const before = result.imported;
        const msg = await client.fetchOne(String(uid), { uid: true, size: true, envelope: true, flags: true }, { uid: true });
        if (msg && (msg.size ?? 0) > MAX_MESSAGE_BYTES) {
          result.tooLarge += 1;
        } else if (msg) {
          const full = await client.fetchOne(String(uid), { uid: true, source: true }, { uid: true });
          if (!full || !full.source) throw new Error(`UID ${uid} could not be fetched`);
          const got = await receiveMessage(deps, {
            orgId: org.orgId,
            raw: full.source,
            envelope: { from: msg.envelope?.from?.[0]?.address ?? '', to: [box.address] },
            into,
            via: 'imap',
            read: msg.flags?.has('\\Seen') === true,
          });
          if (got.messages.length > 0) result.imported += 1;
          else result.present += 1;
        }
        await save(uid, result.imported - before);
        lastUid = uid;
        result.lastUid = uid;
        if ((i + 1) % 25 === 0 || i + 1 === uids.length)
          out(`  ${i + 1}/${uids.length}: ${result.imported} imported, ${result.present} already here (UID ${uid})`);
      }
      if (uids.length === 0 && (!state || restarted)) await save(lastUid, 0);
      return result;
    } finally {
      lock.release();
    }
  } finally {
    await client.logout().catch(() => client.close());
  }
}
