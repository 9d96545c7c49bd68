import { ApiError, notFound } from '../../protocol/errors.js';
import { emailAi as c } from '../../protocol/methods/email/ai.js';
import type { Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { describeHeldBlob, fileFromBlob, liveFile, type HeldBlobText } from '../files/index.js';

/*
 * email.fileAttachment (M): an attachment's blob becomes a workspace file, the same bytes (same SHA-256) held by the
 * file's first version beside the message that holds them, through the files family's own export (its one event is
 * this call's). The type is sniffed and the text extracted for search before the transaction, as an upload's are.
 * The attachment remembers its file: filing it again is a no-op naming that file, until the file is purged. Any member
 * of the mailbox may file (agents too: the drive's own access rules then decide who reads it); the caller needs
 * files.write, as for any upload.
 */

const FILES_WRITE = 'files.write';

interface AttachmentRow {
  attachment_id: string;
  message_id: string;
  thread_id: string;
  mailbox_id: string;
  position: number;
  sha256: string;
  filename: string;
  content_type: string;
  size_bytes: string | number;
  file_id: string | null;
}

/** The attachment, if the caller is a member of its message's mailbox; NOT_FOUND otherwise. */
async function attachmentAccess(q: Queryable, orgId: string, attachmentId: string, principalId: string, lock = false): Promise<AttachmentRow> {
  const [row] = await q.query<AttachmentRow>(
    `SELECT a.attachment_id, a.message_id, m.thread_id, m.mailbox_id, a.position, a.sha256, a.filename, a.content_type, a.size_bytes, a.file_id
       FROM email_attachments a
       JOIN email_messages m ON m.org_id = a.org_id AND m.message_id = a.message_id
       JOIN email_mailbox_members mm ON mm.org_id = m.org_id AND mm.mailbox_id = m.mailbox_id AND mm.principal_id = $3
      WHERE a.org_id = $1 AND a.attachment_id = $2${lock ? ' FOR UPDATE OF a' : ''}`,
    [orgId, attachmentId, principalId],
  );
  if (!row) throw notFound(`attachment ${attachmentId}`);
  return row;
}

/** A name the drive shows: the attachment's own, without control characters or slashes, else one from its place. */
function nameOf(a: AttachmentRow): string {
  const clean = a.filename
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/[/\\]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 255);
  return clean !== '' ? clean : `Attachment ${Number(a.position) + 1} of ${a.message_id}`;
}

type Prepared = { blob: HeldBlobText } | { filed: true };

export const fileAttachment = handler(
  c.fileAttachment,
  async (ctx, p, prepared: Prepared) => {
    const a = await attachmentAccess(ctx.q, ctx.orgId, p.attachmentId, ctx.principal.id, true);
    const base = { mailboxId: a.mailbox_id, threadId: a.thread_id, messageId: a.message_id, attachmentId: a.attachment_id, sha256: a.sha256 };
    const filed = a.file_id === null ? null : await liveFile(ctx.q, ctx.orgId, a.file_id);
    if (a.file_id !== null && filed) {
      await ctx.emit('email.attachment.file', a.attachment_id, { ...base, fileId: a.file_id, noop: true });
      return { fileId: a.file_id, sha256: a.sha256, sizeBytes: filed.sizeBytes, contentType: filed.contentType ?? a.content_type, changed: false };
    }
    // Filed meanwhile and purged since, or filed by nobody yet while prepare thought otherwise: describe now.
    const blob = 'blob' in prepared ? prepared.blob : await describeHeldBlob(ctx.deps, ctx.orgId, held(a));
    const made = await fileFromBlob(ctx.q, ctx.orgId, {
      principal: ctx.principal,
      name: nameOf(a),
      parentId: p.folderId,
      blob,
      now: ctx.deps.clock.now(),
    });
    await ctx.q.query('UPDATE email_attachments SET file_id = $3 WHERE org_id = $1 AND attachment_id = $2', [ctx.orgId, a.attachment_id, made.fileId]);
    await ctx.emit('email.attachment.file', a.attachment_id, { ...base, fileId: made.fileId, sizeBytes: made.sizeBytes });
    return { ...made, changed: true };
  },
  {
    async prepare(ctx, p): Promise<Prepared> {
      const a = await attachmentAccess(ctx.db, ctx.orgId, p.attachmentId, ctx.principal.id);
      if (!ctx.principal.scopes.has(FILES_WRITE)) {
        throw new ApiError('FORBIDDEN_SCOPE', `missing scope ${FILES_WRITE}, needed to file an attachment in the drive; read it with email.message instead`);
      }
      if (a.file_id !== null && (await liveFile(ctx.db, ctx.orgId, a.file_id))) return { filed: true };
      return { blob: await describeHeldBlob(ctx.deps, ctx.orgId, held(a)) };
    },
  },
);

const held = (a: AttachmentRow) => ({ sha256: a.sha256, size: Number(a.size_bytes), contentType: a.content_type });
