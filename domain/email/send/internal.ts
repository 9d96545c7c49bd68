import type { Queryable } from '../../../db/types.js';
import { fileArrival, prepareArrival, type Arrival, type Filed } from '../inbound/arrive.js';
import { triaging } from '../ai/background.js';
import { mailboxesAt } from '../mailboxes.js';
import type { AttachmentRow } from './attachments.js';

/*
 * Mail to mailboxes of the org is delivered here, directly, in the delivery job's transaction, without a round
 * trip through SMTP, and filed as mail from outside is (inbound/arrive.ts): threaded, through the receiving
 * mailbox's rules, blocks and spam checks, with an `email.message.receive` event per copy (`via: "internal"`, no
 * SPF/DKIM/DMARC verdicts: it never crossed SMTP). The attachments are the sender's blobs, held again by each copy;
 * a copy keeps no raw bytes of its own. The sending mailbox gets no copy: its Sent row is the record.
 */

/** What a copy is made of: the arrival's fields a sent message has, its attachments as the sender's rows. */
export type InternalCopy = Pick<Arrival, 'from' | 'to' | 'cc' | 'subject' | 'text' | 'html' | 'rfcId' | 'inReplyTo' | 'references' | 'sizeBytes'> & {
  attachments: AttachmentRow[];
};

export interface Delivering {
  at: Date;
  /** The mailbox that sent it: never given a copy. */
  senderMailboxId: string;
  submissionId: string;
  /** The ledger seq of the call that scheduled the delivery. */
  causeSeq: number;
}

/** Deliver `copy` to each mailbox of the org among `recipients` but the sender's; the copies made, and which of their mailboxes triage in the background. */
export async function deliverInternally(
  q: Queryable,
  orgId: string,
  recipients: readonly string[],
  copy: InternalCopy,
  d: Delivering,
): Promise<{ copies: Pick<Filed, 'mailboxId' | 'messageId' | 'threadId' | 'folderId' | 'folderRole' | 'seq'>[]; triaging: ReadonlySet<string> }> {
  const boxes = (await mailboxesAt(q, orgId, recipients)).filter((b) => b.mailbox_id !== d.senderMailboxId);
  const arrival = prepareArrival({
    ...copy,
    replyTo: [],
    listId: null,
    raw: null,
    attachments: copy.attachments.map((a) => ({
      sha256: a.sha256,
      size: Number(a.size_bytes),
      contentType: a.content_type,
      filename: a.filename,
      contentId: a.content_id,
      inline: a.inline,
    })),
    auth: null,
    via: 'internal',
  });
  const made: Pick<Filed, 'mailboxId' | 'messageId' | 'threadId' | 'folderId' | 'folderRole' | 'seq'>[] = [];
  for (const box of boxes) {
    const filed = await fileArrival(q, orgId, box.mailbox_id, arrival, { at: d.at, event: { submissionId: d.submissionId, causeSeq: d.causeSeq } });
    if (filed) made.push(filed);
  }
  return { copies: made, triaging: triaging(boxes) };
}
