import { badRequest, notFound } from '../../protocol/errors.js';
import { emailReads } from '../../protocol/methods/email/reads.js';
import { emailWrites as c } from '../../protocol/methods/email/writes.js';
import { one, type Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import { mailboxAccess, MY_MAILBOXES_SQL, requireRole, roleIn, type MailboxRole } from './access.js';

/*
 * Signatures: each member's own in a mailbox (one default at a time), and the mailbox's shared ones, which its
 * owners keep. Another member's own signature is not found. A deleted signature stays as a row (deleted_at), so
 * deleting it again is a no-op and an unknown id is NOT_FOUND. Events carry ids only, never the text or a name.
 */

interface SignatureRow {
  signature_id: string;
  mailbox_id: string;
  principal_id: string | null;
  name: string;
  text: string;
  html: string | null;
  is_default: boolean;
  updated_at: string;
  deleted_at: string | null;
}

const COLUMNS = 's.signature_id, s.mailbox_id, s.principal_id, s.name, s.text, s.html, s.is_default, s.updated_at, s.deleted_at';

const view = (r: SignatureRow) => ({
  id: r.signature_id,
  mailboxId: r.mailbox_id,
  principalId: r.principal_id,
  name: r.name,
  text: r.text,
  html: r.html,
  isDefault: r.is_default,
  updatedAt: r.updated_at,
});

/** A signature the caller may see (its own, or a shared one of its mailbox) and its role there; NOT_FOUND otherwise. */
async function signatureAccess(q: Queryable, orgId: string, signatureId: string, me: string): Promise<{ row: SignatureRow; role: MailboxRole }> {
  const [row] = await q.query<SignatureRow>(`SELECT ${COLUMNS} FROM email_signatures s WHERE s.org_id = $1 AND s.signature_id = $2 FOR UPDATE`, [
    orgId,
    signatureId,
  ]);
  const role = row ? await roleIn(q, orgId, row.mailbox_id, me) : null;
  if (!row || !role || (row.principal_id !== null && row.principal_id !== me)) throw notFound(`signature ${signatureId}`);
  return { row, role };
}

/** The mailbox a signature is in (it never moves), unlocked; undefined for an unknown id. */
async function mailboxOf(q: Queryable, orgId: string, signatureId: string): Promise<string | undefined> {
  const [row] = await q.query<{ mailbox_id: string }>('SELECT mailbox_id FROM email_signatures WHERE org_id = $1 AND signature_id = $2', [orgId, signatureId]);
  return row?.mailbox_id;
}

/**
 * Before a save makes a default: the mailbox row, locked to commit, so two saves making defaults in it queue, and the
 * second unsets the first's (each unsetting only what it could see, both stayed default). Taken before any signature
 * row is locked: the unsetting touches the others' rows. NO KEY UPDATE: rows referencing the mailbox need not wait.
 */
async function lockDefaults(q: Queryable, orgId: string, mailboxId: string): Promise<void> {
  await q.query('SELECT 1 FROM email_mailboxes WHERE org_id = $1 AND mailbox_id = $2 FOR NO KEY UPDATE', [orgId, mailboxId]);
}

export const signatureSave = handler(c.signatureSave, async (ctx, p) => {
  const me = ctx.principal.id;
  const now = ctx.deps.clock.now().toISOString();
  const html = p.html ?? null;
  let row: SignatureRow;
  let changed: boolean;
  if (p.signatureId !== undefined) {
    if (p.mailboxId !== undefined) throw badRequest('mailboxId', 'only with a new signature; a signature stays in its mailbox');
    const box = p.isDefault ? await mailboxOf(ctx.q, ctx.orgId, p.signatureId) : undefined;
    if (box) await lockDefaults(ctx.q, ctx.orgId, box);
    const found = await signatureAccess(ctx.q, ctx.orgId, p.signatureId, me);
    if (found.row.deleted_at !== null) throw notFound(`signature ${p.signatureId} (deleted)`);
    if (found.row.principal_id === null) requireRole(found.role, ['owner'], "change the mailbox's shared signature");
    const before = found.row;
    changed = before.name !== p.name || before.text !== p.text || before.html !== html || before.is_default !== p.isDefault;
    row = before;
    if (changed) {
      row = one(
        await ctx.q.query<SignatureRow>(
          `UPDATE email_signatures s SET name = $3, text = $4, html = $5, is_default = $6, updated_at = $7 WHERE s.org_id = $1 AND s.signature_id = $2 RETURNING ${COLUMNS}`,
          [ctx.orgId, p.signatureId, p.name, p.text, html, p.isDefault, now],
        ),
      );
    }
  } else {
    if (p.mailboxId === undefined) throw badRequest('mailboxId', 'required for a new signature (or give signatureId to change one)');
    const { role } = await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, me);
    if (p.shared) requireRole(role, ['owner'], "keep the mailbox's shared signatures");
    if (p.isDefault) await lockDefaults(ctx.q, ctx.orgId, p.mailboxId);
    row = one(
      await ctx.q.query<SignatureRow>(
        `INSERT INTO email_signatures AS s (org_id, signature_id, mailbox_id, principal_id, name, text, html, is_default, created_by, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING ${COLUMNS}`,
        [ctx.orgId, newId('sig'), p.mailboxId, p.shared ? null : me, p.name, p.text, html, p.isDefault, me, now],
      ),
    );
    changed = true;
  }
  // One default per owner of signatures in a mailbox: the new default unsets the others.
  if (changed && row.is_default) {
    await ctx.q.query(
      `UPDATE email_signatures SET is_default = false, updated_at = $5
        WHERE org_id = $1 AND mailbox_id = $2 AND principal_id IS NOT DISTINCT FROM $3 AND signature_id <> $4 AND is_default AND deleted_at IS NULL`,
      [ctx.orgId, row.mailbox_id, row.principal_id, row.signature_id, now],
    );
  }
  await ctx.emit('email.signature.save', row.signature_id, {
    mailboxId: row.mailbox_id,
    signatureId: row.signature_id,
    shared: row.principal_id === null,
    isDefault: row.is_default,
    ...(changed ? {} : { noop: true }),
  });
  return { signature: view(row), changed };
});

export const signatureDelete = handler(c.signatureDelete, async (ctx, p) => {
  const me = ctx.principal.id;
  const { row, role } = await signatureAccess(ctx.q, ctx.orgId, p.signatureId, me);
  if (row.principal_id === null) requireRole(role, ['owner'], "delete the mailbox's shared signature");
  const changed = row.deleted_at === null;
  if (changed) {
    await ctx.q.query('UPDATE email_signatures SET deleted_at = $3, is_default = false WHERE org_id = $1 AND signature_id = $2', [
      ctx.orgId,
      p.signatureId,
      ctx.deps.clock.now().toISOString(),
    ]);
  }
  await ctx.emit('email.signature.delete', p.signatureId, {
    mailboxId: row.mailbox_id,
    signatureId: p.signatureId,
    ...(changed ? {} : { noop: true }),
  });
  return { changed };
});

export const signatures = handler(emailReads.signatures, async (ctx, p) => {
  const me = ctx.principal.id;
  if (p.mailboxId !== undefined) await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, me);
  const params: unknown[] = [ctx.orgId, me];
  const only = p.mailboxId !== undefined ? ` AND s.mailbox_id = $${params.push(p.mailboxId)}` : '';
  const rows = await ctx.q.query<SignatureRow>(
    `SELECT ${COLUMNS} FROM email_signatures s
      WHERE s.org_id = $1 AND s.deleted_at IS NULL AND s.mailbox_id IN ${MY_MAILBOXES_SQL('$1', '$2')} AND (s.principal_id = $2 OR s.principal_id IS NULL)${only}
      ORDER BY s.mailbox_id, s.principal_id NULLS FIRST, s.name, s.signature_id LIMIT 500`,
    params,
  );
  return { signatures: rows.map(view) };
});
