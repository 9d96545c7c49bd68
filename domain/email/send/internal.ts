import type { Queryable, TxQueryable } from '../../../db/types.js';
import { referenceBlob } from '../../../blobs/index.js';
import { newId } from '../../core/ids.js';
import { folderByRole, refreshThreads } from '../folders.js';
import { mailboxesAt } from '../mailboxes.js';
import { domainOf, type Addr } from '../model.js';
import { joinThread } from '../threading.js';
import type { AttachmentRow } from './attachments.js';

/*
 * Mail to mailboxes of the org is delivered here, directly, in the delivery job's transaction: as receiveMessage
 * files a message (one row per mailbox over the same blobs, threaded by Message-ID, In-Reply-To and References,
 * into Inbox), without a round trip through SMTP. The raw bytes are not kept (the sender's row is the record);
 * the attachments are the sender's blobs, held again by each copy.
 */

export interface InternalCopy {
  from: Addr;
  to: Addr[];
  cc: Addr[];
  subject: string;
  text: string;
  html: string | null;
  rfcId: string;
  inReplyTo: string | null;
  references: string[];
  attachments: AttachmentRow[];
  sizeBytes: number;
}

/** Deliver `copy` to each mailbox of the org among `recipients`; the copies made. */
export async function deliverInternally(
  q: Queryable,
  orgId: string,
  recipients: readonly string[],
  copy: InternalCopy,
  at: Date,
): Promise<{ mailboxId: string; messageId: string; threadId: string }[]> {
  const boxes = await mailboxesAt(q, orgId, recipients);
  const now = at.toISOString();
  const participants = [...new Set([copy.from.address, ...copy.to.map((a) => a.address), ...copy.cc.map((a) => a.address)])].slice(0, 200);
  const made: { mailboxId: string; messageId: string; threadId: string }[] = [];
  for (const box of boxes) {
    const clues = { inReplyTo: copy.inReplyTo, references: copy.references, subject: copy.subject, from: copy.from.address, at };
    const { threadId } = await joinThread(q, orgId, box.mailbox_id, clues, participants, now);
    const inbox = await folderByRole(q, orgId, box.mailbox_id, 'inbox');
    const messageId = newId('eml');
    await q.query(
      `INSERT INTO email_messages (org_id, message_id, mailbox_id, thread_id, folder_id, state, rfc_message_id, in_reply_to, rfc_references,
         from_address, from_name, from_domain, to_addresses, cc_addresses, subject, text, html, has_attachments, size_bytes,
         received_at, sort_at, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, 'received', $6, $7, $8, $9, $10, $11, $12::jsonb, $13::jsonb, $14, $15, $16, $17, $18, $19, $19, $19, $19)`,
      [
        orgId,
        messageId,
        box.mailbox_id,
        threadId,
        inbox.folder_id,
        copy.rfcId,
        copy.inReplyTo,
        copy.references,
        copy.from.address,
        copy.from.name,
        domainOf(copy.from.address),
        JSON.stringify(copy.to),
        JSON.stringify(copy.cc),
        copy.subject,
        copy.text,
        copy.html,
        copy.attachments.length > 0,
        copy.sizeBytes,
        now,
      ],
    );
    for (const [position, a] of copy.attachments.entries()) {
      await referenceBlob(q as TxQueryable, { orgId, sha256: a.sha256, holder: messageId, by: '' });
      await q.query(
        `INSERT INTO email_attachments (org_id, attachment_id, message_id, position, sha256, filename, content_type, size_bytes, content_id, inline)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [orgId, newId('eatt'), messageId, position, a.sha256, a.filename, a.content_type, a.size_bytes, a.content_id, a.inline],
      );
    }
    await refreshThreads(q, orgId, [threadId]);
    made.push({ mailboxId: box.mailbox_id, messageId, threadId });
  }
  return made;
}
