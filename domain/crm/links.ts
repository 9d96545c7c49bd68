import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { crm as c } from '../../protocol/methods/crm/index.js';
import { handler } from '../core/handler.js';
import { resolveChannel } from '../directory/index.js';
import { linkableThread } from '../email/index.js';
import { callerOf, canReadFile } from '../files/index.js';
import {
  accountTarget,
  addLinks,
  contactTarget,
  dealTargets,
  INTERACTION_COLUMNS,
  insertInteraction,
  toLogged,
  uniqueTargets,
  type InteractionRow,
  type Target,
} from './interactions.js';
import { loadDeal } from './model.js';

/*
 * linkEmail and linkFiles: a thread and files checked by their own families' faces (a mailbox the caller is in; a
 * file the caller can read), never their tables. A thread is one email interaction (its summary the subject, shown
 * only to email.read holders), linked to the target and to the contacts among its participants.
 */

/** Participants' addresses held by live contacts here (through the directory's resolver): contact ids. */
async function participantContacts(q: Parameters<typeof resolveChannel>[0], orgId: string, addresses: readonly string[]): Promise<Target[]> {
  const persons = new Set<string>();
  for (const value of addresses.slice(0, 100)) {
    const hit = await resolveChannel(q, orgId, { kind: 'email', value });
    if (hit && hit.partyKind === 'person') persons.add(hit.partyId);
  }
  if (persons.size === 0) return [];
  const rows = await q.query<{ contact_id: string }>(
    `SELECT contact_id FROM crm_contacts WHERE org_id = $1 AND person_id = ANY($2::text[]) AND status = 'active' ORDER BY contact_id`,
    [orgId, [...persons]],
  );
  return rows.map((r) => ({ id: r.contact_id, kind: 'contact' as const }));
}

export const linkEmail = handler(c.linkEmail, async (ctx, p) => {
  const given = (['dealId', 'accountId', 'contactId'] as const).filter((k) => p[k] !== undefined);
  if (given.length !== 1) throw badRequest(given[1] ?? 'dealId', 'give exactly one of dealId, accountId, contactId');
  const thread = await linkableThread(ctx.q, ctx.orgId, p.threadId, ctx.principal.id);
  const target: Target[] = p.dealId
    ? await dealTargets(ctx.q, ctx.orgId, p.dealId)
    : p.accountId
      ? [await accountTarget(ctx.q, ctx.orgId, p.accountId)]
      : [await contactTarget(ctx.q, ctx.orgId, p.contactId!)];
  const targetId = target[0].id;
  // One interaction per thread, whoever links it now.
  await ctx.q.query(`SELECT pg_advisory_xact_lock(hashtext('crm:thread:' || $1 || ':' || $2))`, [ctx.orgId, thread.threadId]);
  const subject = ctx.principal.scopes.has('email.read') ? thread.subject : null;
  const [existing] = await ctx.q.query<InteractionRow>(
    `SELECT ${INTERACTION_COLUMNS} FROM crm_interactions i WHERE i.org_id = $1 AND i.thread_id = $2 ORDER BY i.recorded_at, i.interaction_id LIMIT 1`,
    [ctx.orgId, thread.threadId],
  );
  const made = await ctx.q.query(
    `INSERT INTO crm_deal_threads (org_id, thread_id, target_id, linked_by, linked_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING RETURNING target_id`,
    [ctx.orgId, thread.threadId, targetId, ctx.principal.id, ctx.deps.clock.now().toISOString()],
  );
  if (made.length === 0 && existing) {
    const linked = await ctx.q.query<{ target_id: string }>(
      `SELECT target_id FROM crm_interaction_links WHERE org_id = $1 AND interaction_id = $2 AND target_kind = 'contact' ORDER BY target_id`,
      [ctx.orgId, existing.interaction_id],
    );
    const interaction = await toLogged(ctx.q, ctx.orgId, existing);
    await ctx.emit('crm.email.link', existing.interaction_id, {
      interactionId: existing.interaction_id,
      threadId: thread.threadId,
      targetId,
      noop: true,
    });
    const contactIds = linked.map((r) => r.target_id);
    return { interaction, threadId: thread.threadId, contactIds, subject, changed: false };
  }
  const contacts = await participantContacts(ctx.q, ctx.orgId, thread.participants);
  const links = uniqueTargets([...target, ...contacts]);
  let row: InteractionRow;
  if (existing) {
    row = existing;
    await addLinks(ctx, row.interaction_id, new Date(row.occurred_at).toISOString(), row.pinned, links);
  } else {
    row = await insertInteraction(
      ctx,
      {
        kind: 'email',
        direction: thread.lastDirection,
        occurredAt: thread.lastMessageAt,
        summary: thread.subject || '(no subject)',
        threadId: thread.threadId,
      },
      links,
    );
  }
  const contactIds = contacts.map((t) => t.id);
  const interaction = await toLogged(ctx.q, ctx.orgId, row);
  await ctx.emit('crm.email.link', row.interaction_id, {
    interactionId: row.interaction_id,
    threadId: thread.threadId,
    targetId,
    contactIds,
    created: !existing,
  });
  return { interaction, threadId: thread.threadId, contactIds, subject, changed: true };
});

export const linkFiles = handler(c.linkFiles, async (ctx, p) => {
  const deal = await loadDeal(ctx.q, ctx.orgId, p.dealId, true);
  if (deal.status === 'deleted') throw conflict(`deal ${deal.deal_id} is deleted; nothing can be linked to it (create a new deal)`);
  const caller = callerOf(ctx.principal);
  const ids = [...new Set(p.fileIds)];
  for (const fileId of ids) {
    // A file the caller cannot read does not exist for it (files' own rule).
    if (!(await canReadFile(ctx.q, ctx.orgId, fileId, caller))) throw notFound(`file ${fileId} (fileIds[${p.fileIds.indexOf(fileId)}])`);
  }
  const added = await ctx.q.query<{ file_id: string }>(
    `INSERT INTO crm_deal_files (org_id, deal_id, file_id, linked_by, linked_at) SELECT $1, $2, f, $4, $5 FROM unnest($3::text[]) AS f
     ON CONFLICT (org_id, deal_id, file_id) DO NOTHING RETURNING file_id`,
    [ctx.orgId, deal.deal_id, ids, ctx.principal.id, ctx.deps.clock.now().toISOString()],
  );
  const fresh = new Set(added.map((r) => r.file_id));
  const linked = ids.filter((f) => fresh.has(f));
  const alreadyLinked = ids.filter((f) => !fresh.has(f));
  await ctx.emit('crm.files.link', deal.deal_id, {
    dealId: deal.deal_id,
    fileIds: linked,
    count: linked.length,
    alreadyLinked: alreadyLinked.length,
    ...(linked.length ? {} : { noop: true }),
  });
  return { linked, alreadyLinked };
});
