import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { emailReads } from '../../protocol/methods/email/reads.js';
import { MAX_RECIPIENTS } from '../../protocol/methods/email/shapes.js';
import { emailWrites as c } from '../../protocol/methods/email/writes.js';
import { decodeCursor, encodeCursor, timeAndId } from '../core/cursor.js';
import { handler, type HandlerCtx } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { callerOf, canReadFile } from '../files/index.js';
import { mailboxAccess, messageAccess, MY_MAILBOXES_SQL, requireRole, type MailboxRole } from './access.js';
import { folderByRole, refreshThreads } from './folders.js';
import { addrs, domainOf, MESSAGE_COLUMNS, messageViews, type Addr, type MessageRow } from './model.js';
import { replyReferences, replySubject, subjectKey } from './threading.js';

/*
 * Drafts: a message in state draft, in its mailbox's Drafts folder, on a thread from the start (a reply's, or a new
 * one), with a Message-ID of the mailbox's domain so that a reply to what is sent threads for outside clients. A
 * mailbox's drafts are shared by its members (Front's shared drafts): humans may save any of them, an agent only its
 * own. Each save is a version; expectedVersion refuses a save over a newer one. Nothing here sends.
 */

const ADDRESS = /^[^@\s<>()",;:]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const NAMED = /^\s*"?([^"<>]*?)"?\s*<([^<>]+)>\s*$/;

/** `ann@x.com` or `Ann Lee <ann@x.com>`; BAD_REQUEST naming `field` otherwise. */
export function parseAddress(text: string, field: string): Addr {
  const named = NAMED.exec(text);
  const address = (named ? named[2] : text).trim();
  if (!ADDRESS.test(address)) throw badRequest(field, 'must be an email address');
  return { address: address.toLowerCase(), name: named ? named[1].trim().slice(0, 200) : '' };
}

/** Addresses of a params field (`to`: params.to.0 ...), undefined when not given. */
export const list = (values: readonly string[] | undefined, field: string): Addr[] | undefined => values?.map((v, i) => parseAddress(v, `${field}.${i}`));

const sameList = (a: readonly Addr[], b: readonly Addr[]) => JSON.stringify(a) === JSON.stringify(b);

const ROLES_EDITING_ANY: readonly MailboxRole[] = ['owner', 'reviewer', 'member'];

/** Why a message cannot be saved as a draft, and what to do instead. */
function notADraft(row: MessageRow): string {
  if (row.state === 'held') {
    return `message ${row.message_id} is held for review and cannot be edited while a human decides it: undoSend withdraws it back to a draft you can edit`;
  }
  if (row.state === 'scheduled') return `message ${row.message_id} is scheduled to leave: undoSend takes it back to a draft you can edit`;
  return `message ${row.message_id} is ${row.state}, not a draft: only a draft is saved; start a new draft instead`;
}

/** An agent edits only its own drafts; humans of the mailbox edit any (shared drafts). */
function checkDrafter(role: MailboxRole, row: MessageRow, me: string, act: string): void {
  if (row.author_id !== me) requireRole(role, ROLES_EDITING_ANY, `${act} another member's draft`);
}

async function checkFiles(ctx: HandlerCtx, fileIds: readonly string[] | undefined): Promise<void> {
  for (const fileId of fileIds ?? []) {
    if (!(await canReadFile(ctx.q, ctx.orgId, fileId, callerOf(ctx.principal)))) throw notFound(`file ${fileId} (in params.fileIds)`);
  }
}

async function viewOf(ctx: HandlerCtx, messageId: string) {
  const { message } = await messageAccess(ctx.q, ctx.orgId, messageId, ctx.principal.id);
  return (await messageViews(ctx.q, ctx.orgId, [message], ctx.principal.id))[0];
}

export const draftSave = handler(c.draftSave, async (ctx, p) => {
  const me = ctx.principal.id;
  const now = ctx.deps.clock.now().toISOString();
  const to = list(p.to, 'to');
  const cc = list(p.cc, 'cc');
  const bcc = list(p.bcc, 'bcc');
  await checkFiles(ctx, p.fileIds);

  if (p.draftId !== undefined) {
    if (p.mailboxId !== undefined || p.replyToMessageId !== undefined) {
      throw badRequest('draftId', 'give draftId alone to save a draft again; mailboxId or replyToMessageId start a new one');
    }
    const { message: row, role } = await messageAccess(ctx.q, ctx.orgId, p.draftId, me, { lock: true });
    if (row.state !== 'draft') throw conflict(notADraft(row));
    checkDrafter(role, row, me, 'save');
    if (p.expectedVersion !== undefined && p.expectedVersion !== Number(row.version)) {
      throw conflict(
        `draft ${row.message_id} is at version ${row.version}, not ${p.expectedVersion}: read it again (email.message) and save your change on version ${row.version}`,
      );
    }
    const next = {
      to: to ?? addrs(row.to_addresses),
      cc: cc ?? addrs(row.cc_addresses),
      bcc: bcc ?? addrs(row.bcc_addresses),
      subject: p.subject ?? row.subject,
      text: p.text ?? row.text,
      html: p.html === undefined ? row.html : p.html,
      fileIds: p.fileIds ?? row.file_ids,
    };
    checkCount(next);
    const same =
      sameList(next.to, addrs(row.to_addresses)) &&
      sameList(next.cc, addrs(row.cc_addresses)) &&
      sameList(next.bcc, addrs(row.bcc_addresses)) &&
      next.subject === row.subject &&
      next.text === row.text &&
      next.html === row.html &&
      next.fileIds.join() === row.file_ids.join();
    if (!same) {
      await ctx.q.query(
        `UPDATE email_messages SET to_addresses = $3::jsonb, cc_addresses = $4::jsonb, bcc_addresses = $5::jsonb, subject = $6, text = $7, html = $8,
                file_ids = $9, version = version + 1, sort_at = $10, updated_at = $10
          WHERE org_id = $1 AND message_id = $2`,
        [
          ctx.orgId,
          row.message_id,
          JSON.stringify(next.to),
          JSON.stringify(next.cc),
          JSON.stringify(next.bcc),
          next.subject,
          next.text,
          next.html,
          next.fileIds,
          now,
        ],
      );
      // A thread that is this draft alone takes its subject.
      await ctx.q.query(
        `UPDATE email_threads t SET subject = $3, subject_key = $4
          WHERE t.org_id = $1 AND t.thread_id = $2 AND NOT EXISTS (SELECT 1 FROM email_messages m WHERE m.org_id = $1 AND m.thread_id = $2 AND m.message_id <> $5 AND m.state <> 'discarded')`,
        [ctx.orgId, row.thread_id, next.subject, subjectKey(next.subject), row.message_id],
      );
      await refreshThreads(ctx.q, ctx.orgId, [row.thread_id]);
    }
    const draft = await viewOf(ctx, row.message_id);
    await ctx.emit('email.draft.save', row.message_id, {
      mailboxId: row.mailbox_id,
      threadId: row.thread_id,
      messageId: row.message_id,
      version: draft.version,
      recipients: next.to.length + next.cc.length + next.bcc.length,
      files: next.fileIds.length,
      isReply: row.reply_to_message_id !== null,
      ...(same ? { noop: true } : {}),
    });
    return { draft, changed: !same };
  }

  if (p.expectedVersion !== undefined) throw badRequest('expectedVersion', 'only with draftId (saving a draft again)');
  const { messageId, mailboxId, threadId, fields, original } = await createDraft(ctx, { ...p, to, cc, bcc });
  const draft = await viewOf(ctx, messageId);
  await ctx.emit('email.draft.save', messageId, {
    mailboxId,
    threadId,
    messageId,
    version: 1,
    recipients: fields.to.length + fields.cc.length + fields.bcc.length,
    files: fields.fileIds.length,
    isReply: original !== undefined,
  });
  return { draft, changed: true };
});

/** What a new draft is made of: draftSave's fields, addresses already parsed. */
export interface NewDraft {
  mailboxId?: string;
  replyToMessageId?: string;
  to?: Addr[];
  cc?: Addr[];
  bcc?: Addr[];
  subject?: string;
  text?: string;
  html?: string | null;
  fileIds?: string[];
}

/**
 * Make a draft (draftSave's new draft; email.send's message before it is submitted): in Drafts, on the reply's
 * thread or a new one, with a Message-ID of the mailbox's domain. The caller checks the files and emits.
 */
export async function createDraft(ctx: HandlerCtx, p: NewDraft) {
  const me = ctx.principal.id;
  const now = ctx.deps.clock.now().toISOString();
  const { to, cc, bcc } = p;
  if (p.mailboxId === undefined && p.replyToMessageId === undefined) {
    throw badRequest('mailboxId', 'give mailboxId (a new draft), replyToMessageId (a reply) or draftId (a draft saved again)');
  }
  let original: MessageRow | undefined;
  if (p.replyToMessageId !== undefined) {
    original = (await messageAccess(ctx.q, ctx.orgId, p.replyToMessageId, me)).message;
    if (p.mailboxId !== undefined && original.mailbox_id !== p.mailboxId) {
      throw badRequest('replyToMessageId', `message ${original.message_id} is in another mailbox than ${p.mailboxId}`);
    }
    if (original.state === 'draft' || original.state === 'discarded') {
      throw badRequest('replyToMessageId', `message ${original.message_id} is ${original.state}: reply to mail received or sent`);
    }
  }
  const mailboxId = p.mailboxId ?? original!.mailbox_id;
  const { mailbox } = await mailboxAccess(ctx.q, ctx.orgId, mailboxId, me);
  const fields = {
    to: to ?? (original ? replyTargets(original) : []),
    cc: cc ?? [],
    bcc: bcc ?? [],
    subject: p.subject ?? (original ? replySubject(original.subject) : ''),
    text: p.text ?? '',
    html: p.html ?? null,
    fileIds: p.fileIds ?? [],
  };
  checkCount(fields);
  let threadId = original?.thread_id;
  if (threadId === undefined) {
    threadId = newId('thr');
    const participants = [...new Set([...fields.to, ...fields.cc].map((a) => a.address))].slice(0, 200);
    await ctx.q.query(
      `INSERT INTO email_threads (org_id, thread_id, mailbox_id, subject, subject_key, participants, last_message_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
      [ctx.orgId, threadId, mailboxId, fields.subject, subjectKey(fields.subject), participants, now],
    );
  }
  const drafts = await folderByRole(ctx.q, ctx.orgId, mailboxId, 'drafts');
  const messageId = newId('eml');
  await ctx.q.query(
    `INSERT INTO email_messages (org_id, message_id, mailbox_id, thread_id, folder_id, state, rfc_message_id, in_reply_to, rfc_references,
       to_addresses, cc_addresses, bcc_addresses, subject, text, html, author_id, reply_to_message_id, file_ids, sort_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'draft', $6, $7, $8, $9::jsonb, $10::jsonb, $11::jsonb, $12, $13, $14, $15, $16, $17, $18, $18, $18)`,
    [
      ctx.orgId,
      messageId,
      mailboxId,
      threadId,
      drafts.folder_id,
      `${newId('eml').slice(4)}@${domainOf(mailbox.address)}`,
      original?.rfc_message_id ?? null,
      original ? replyReferences(original) : [],
      JSON.stringify(fields.to),
      JSON.stringify(fields.cc),
      JSON.stringify(fields.bcc),
      fields.subject,
      fields.text,
      fields.html,
      me,
      original?.message_id ?? null,
      fields.fileIds,
      now,
    ],
  );
  await refreshThreads(ctx.q, ctx.orgId, [threadId]);
  return { messageId, mailboxId, threadId, fields, original };
}

/** Who a reply goes to: the original's Reply-To, else its sender (sent mail: its recipients). */
function replyTargets(original: MessageRow): Addr[] {
  if (original.state !== 'received') return addrs(original.to_addresses);
  const replyTo = addrs(original.reply_to);
  if (replyTo.length > 0) return replyTo;
  return original.from_address === '' ? [] : [{ address: original.from_address, name: original.from_name }];
}

export function checkCount(f: { to: readonly Addr[]; cc: readonly Addr[]; bcc: readonly Addr[] }): void {
  if (f.to.length + f.cc.length + f.bcc.length > MAX_RECIPIENTS) {
    throw badRequest('to', `at most ${MAX_RECIPIENTS} recipients in to, cc and bcc together`);
  }
}

export const draftDiscard = handler(c.draftDiscard, async (ctx, p) => {
  const me = ctx.principal.id;
  const { message: row, role } = await messageAccess(ctx.q, ctx.orgId, p.draftId, me, { lock: true });
  if (row.state !== 'draft' && row.state !== 'discarded') {
    throw conflict(
      `message ${row.message_id} is ${row.state}, not a draft: ${row.state === 'sent' || row.state === 'received' ? 'it stays as it is' : 'withdraw it with undoSend first'}`,
    );
  }
  checkDrafter(role, row, me, 'discard');
  const changed = row.state === 'draft';
  if (changed) {
    const now = ctx.deps.clock.now().toISOString();
    await ctx.q.query(`UPDATE email_messages SET state = 'discarded', discarded_at = $3, updated_at = $3 WHERE org_id = $1 AND message_id = $2`, [
      ctx.orgId,
      row.message_id,
      now,
    ]);
    await refreshThreads(ctx.q, ctx.orgId, [row.thread_id]);
  }
  const draft = await viewOf(ctx, row.message_id);
  await ctx.emit('email.draft.discard', row.message_id, {
    mailboxId: row.mailbox_id,
    threadId: row.thread_id,
    messageId: row.message_id,
    ...(changed ? {} : { noop: true }),
  });
  return { draft, changed };
});

export const drafts = handler(emailReads.drafts, async (ctx, p) => {
  const me = ctx.principal.id;
  if (p.mailboxId !== undefined) await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, me);
  const params: unknown[] = [ctx.orgId, me];
  const where = [`m.org_id = $1`, `m.state = 'draft'`, `m.mailbox_id IN ${MY_MAILBOXES_SQL('$1', '$2')}`];
  if (p.mailboxId !== undefined) where.push(`m.mailbox_id = $${params.push(p.mailboxId)}`);
  if (p.mine) where.push('m.author_id = $2');
  if (p.cursor !== undefined) {
    const [at, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
    where.push(`(m.sort_at, m.message_id) < ($${params.push(at)}::timestamptz, $${params.push(id)})`);
  }
  const rows = await ctx.q.query<MessageRow>(
    `SELECT ${MESSAGE_COLUMNS} FROM email_messages m WHERE ${where.join(' AND ')} ORDER BY m.sort_at DESC, m.message_id DESC LIMIT $${params.push(p.limit + 1)}`,
    params,
  );
  const page = rows.slice(0, p.limit);
  const others = await ctx.q.query<{ thread_id: string; authors: string[] }>(
    `SELECT thread_id, array_agg(DISTINCT author_id) AS authors FROM email_messages
      WHERE org_id = $1 AND state = 'draft' AND thread_id = ANY($2::text[]) GROUP BY thread_id`,
    [ctx.orgId, [...new Set(page.map((r) => r.thread_id))]],
  );
  const authors = new Map(others.map((o) => [o.thread_id, o.authors]));
  // A draft a reviewer returned carries the note, until it is sent for review again.
  const reviews = await ctx.q.query<{ message_id: string; status: string; note: string | null }>(
    `SELECT DISTINCT ON (message_id) message_id, status, note FROM email_reviews
      WHERE org_id = $1 AND message_id = ANY($2::text[]) ORDER BY message_id, created_at DESC, approval_id DESC`,
    [ctx.orgId, page.map((r) => r.message_id)],
  );
  const notes = new Map(reviews.filter((r) => r.status === 'returned').map((r) => [r.message_id, r.note]));
  const views = await messageViews(ctx.q, ctx.orgId, page, me);
  const last = page[page.length - 1];
  return {
    drafts: views.map((v, i) => ({
      ...v,
      note: notes.get(page[i].message_id) ?? null,
      collision: (authors.get(page[i].thread_id) ?? []).some((a) => a !== page[i].author_id),
    })),
    nextCursor: rows.length > p.limit && last ? encodeCursor([last.sort_at, last.message_id]) : null,
  };
});
