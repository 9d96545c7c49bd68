import { badRequest, conflict } from '../../protocol/errors.js';
import { emailRules as c } from '../../protocol/methods/email/rules.js';
import type { Queryable } from '../../db/types.js';
import { handler } from '../core/handler.js';
import { messagesOf, requireRole } from './access.js';
import { folderByRole, refreshThreads } from './folders.js';

/*
 * Spam: mail that fails DMARC, or comes from a sender or domain a mailbox's people blocked, lands in Spam on
 * arrival (receive.ts). reportSpam is a person's act: it moves mail to Spam (blocking its sender or domain if
 * asked) or back to Inbox (lifting the blocks that caught it). Agents may not: moving mail to Spam hides it, and
 * lifting a block lets a sender reach the agents again. The event names the senders' domains, never an address.
 */

/** The domain and every domain above it, down to the last two labels: what a block of a domain catches. */
export function domainsAbove(domain: string): string[] {
  const labels = domain.toLowerCase().split('.').filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i <= labels.length - 2; i++) out.push(labels.slice(i).join('.'));
  return out.length > 0 ? out : labels;
}

/** Whether the mailbox blocked this sender or a domain it is in. */
export async function isBlocked(q: Queryable, orgId: string, mailboxId: string, from: string, fromDomain: string): Promise<boolean> {
  if (from === '' && fromDomain === '') return false;
  const rows = await q.query(
    `SELECT 1 FROM email_blocked_senders WHERE org_id = $1 AND mailbox_id = $2
        AND ((kind = 'sender' AND value = $3) OR (kind = 'domain' AND value = ANY($4::text[]))) LIMIT 1`,
    [orgId, mailboxId, from.toLowerCase(), domainsAbove(fromDomain)],
  );
  return rows.length > 0;
}

const HUMAN = ['owner', 'reviewer', 'member'] as const;

export const reportSpam = handler(c.reportSpam, async (ctx, p) => {
  const me = ctx.principal.id;
  if (!p.spam && p.block !== undefined) throw badRequest('block', 'only with spam: true (marking mail not spam lifts the blocks on its senders)');
  const { rows, roles } = await messagesOf(ctx.q, ctx.orgId, p.ids, me, { lock: true });
  for (const role of roles.values()) {
    requireRole(role, HUMAN, p.spam ? 'report mail as spam (agents may not move mail to Spam)' : 'take mail out of Spam (agents may not lift blocks)');
  }
  const named = new Set(p.ids);
  const written = rows.find((r) => named.has(r.message_id) && r.state !== 'received');
  if (written) throw conflict(`message ${written.message_id} is ${written.state} mail, not mail received: only received mail is reported as spam or not`);
  const mail = rows.filter((r) => r.state === 'received');
  const now = ctx.deps.clock.now().toISOString();
  const mailboxIds = [...new Set(mail.map((r) => r.mailbox_id))].sort();
  let moved = 0;
  let blocked = 0;
  let unblocked = 0;
  const threads: string[] = [];
  for (const mailboxId of mailboxIds) {
    const mine = mail.filter((r) => r.mailbox_id === mailboxId);
    const spam = await folderByRole(ctx.q, ctx.orgId, mailboxId, 'spam');
    const target = p.spam ? spam : await folderByRole(ctx.q, ctx.orgId, mailboxId, 'inbox');
    // Spam: everything not there yet. Not spam: only what is in Spam goes back (mail filed elsewhere stays).
    const ids = mine.filter((r) => (p.spam ? r.folder_id !== spam.folder_id : r.folder_id === spam.folder_id)).map((r) => r.message_id);
    const done = await ctx.q.query<{ thread_id: string }>(
      'UPDATE email_messages SET folder_id = $3, updated_at = $4 WHERE org_id = $1 AND message_id = ANY($2::text[]) RETURNING thread_id',
      [ctx.orgId, ids, target.folder_id, now],
    );
    moved += done.length;
    threads.push(...done.map((r) => r.thread_id));
    const senders = [...new Set(mine.map((r) => r.from_address).filter((a) => a !== ''))];
    const domains = [...new Set(mine.map((r) => r.from_domain).filter((d) => d !== ''))];
    if (p.spam && p.block) {
      const values = p.block === 'sender' ? senders : domains;
      const made = await ctx.q.query(
        `INSERT INTO email_blocked_senders (org_id, mailbox_id, kind, value, created_by, created_at)
         SELECT $1, $2, $3, v, $5, $6 FROM unnest($4::text[]) AS v ON CONFLICT DO NOTHING RETURNING 1 AS one`,
        [ctx.orgId, mailboxId, p.block, values, me, now],
      );
      blocked += made.length;
    }
    if (!p.spam) {
      const lifted = await ctx.q.query(
        `DELETE FROM email_blocked_senders WHERE org_id = $1 AND mailbox_id = $2
            AND ((kind = 'sender' AND value = ANY($3::text[])) OR (kind = 'domain' AND value = ANY($4::text[]))) RETURNING 1 AS one`,
        [ctx.orgId, mailboxId, senders, [...new Set(domains.flatMap(domainsAbove))]],
      );
      unblocked += lifted.length;
    }
  }
  await refreshThreads(ctx.q, ctx.orgId, threads);
  const changed = moved + blocked + unblocked > 0;
  const senderDomains = [...new Set(mail.map((r) => r.from_domain).filter((d) => d !== ''))].sort().slice(0, 20);
  await ctx.emit('email.message.report_spam', mailboxIds[0] ?? p.ids[0], {
    mailboxIds,
    messages: mail.length,
    spam: p.spam,
    block: p.block ?? null,
    moved,
    blocked,
    unblocked,
    senderDomains,
    ...(changed ? {} : { noop: true }),
  });
  return { moved, blocked, unblocked, changed };
});
