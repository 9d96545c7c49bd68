import type { Queryable } from '../../../db/types.js';
import { ensureFolder, folderByRole, type FolderRow } from '../folders.js';
import type { Decision } from '../rules/apply.js';
import { isBlocked } from '../spam.js';

/*
 * Where an arriving message lands in one mailbox. A folder an import names (IMAP sync of a folder other than
 * INBOX) is kept. Otherwise Spam when DMARC failed (the sender's domain says this mail is not its own) or the
 * mailbox blocked the sender or its domain, whatever a rule says; then the first rule that chose a folder; then
 * Inbox.
 */

export type SpamReason = 'dmarc' | 'blocked' | 'rule';

/** A folder an import names: a system folder by role, or a path of the mailbox (made when new). */
export type Into = { role: 'inbox' | 'archive' | 'spam' | 'trash' } | { path: string };

export async function landing(
  q: Queryable,
  orgId: string,
  mailboxId: string,
  m: { into?: Into; dmarc: string | null; from: string; fromDomain: string; decision: Decision; now: string },
): Promise<{ folder: FolderRow; spam: SpamReason | null }> {
  if (m.into) {
    const folder =
      'role' in m.into ? await folderByRole(q, orgId, mailboxId, m.into.role) : (await ensureFolder(q, orgId, mailboxId, m.into.path, '', m.now)).folder;
    return { folder, spam: null };
  }
  const spam: SpamReason | null =
    m.dmarc === 'fail' ? 'dmarc' : (await isBlocked(q, orgId, mailboxId, m.from, m.fromDomain)) ? 'blocked' : m.decision.folder === 'spam' ? 'rule' : null;
  if (spam) return { folder: await folderByRole(q, orgId, mailboxId, 'spam'), spam };
  const chosen = m.decision.folder;
  if (chosen && chosen !== 'spam') return { folder: (await ensureFolder(q, orgId, mailboxId, chosen.path, chosen.by, m.now)).folder, spam: null };
  return { folder: await folderByRole(q, orgId, mailboxId, 'inbox'), spam: null };
}
