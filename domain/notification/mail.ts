import { currentKind } from '../../protocol/events.js';
import type { NotificationType } from '../../protocol/methods/notification.js';
import type { Queryable } from '../../db/types.js';
import { readEventsAt } from '../../ledger/read.js';
import type { MailMessage } from '../../mail/types.js';
import { loadApproval } from '../approval/index.js';
import { getTask } from '../board/index.js';
import type { Deps } from '../core/deps.js';
import { type Member, findOrgById, getMembers } from '../people/index.js';

/*
 * The words of a notification mail, built at send time from the records themselves (the task, the approval, the
 * member), which the recipient may read: the ledger event that caused it holds ids only. They go to SMTP only.
 */

export interface Item {
  seq: number;
  type: NotificationType;
  entityId: string;
}

interface EventRow {
  seq: number;
  kind: string;
  payload: string;
}

const keyRevoked = (p: Record<string, unknown>) => `Your API key ${String(p.keyId)} was revoked: it no longer works.`;
const keyMinted = (p: Record<string, unknown>) =>
  `A new API key (${String(p.keyId)}, ${p.tier ? `tier ${String(p.tier)}` : 'chosen scopes'}) was created for your account.`;

const SECURITY_WORDS: Record<string, (p: Record<string, unknown>) => string> = {
  'org.key.revoke': keyRevoked,
  'settings.key.revoke': keyRevoked,
  'org.key.mint': keyMinted,
  'settings.key.mint': keyMinted,
  'user.role.update': (p) => `Your role changed${p.from ? ` from ${String(p.from)}` : ''} to ${String(p.to ?? p.role)}.`,
  'user.access.deactivate': () => 'Your access was removed: your API keys no longer work and your open work was handed over.',
  'admin.member.deactivate': () => 'Your access was suspended: your API keys are blocked until an admin reactivates you.',
  'admin.member.reactivate': () => 'Your access was restored: your API keys work again.',
};

async function safely<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch {
    return undefined; // the record is gone (or not this org's): the line says less
  }
}

/** One notification in words: a subject for an instant mail and the line a digest lists. */
async function describe(
  q: Queryable,
  deps: Deps,
  orgId: string,
  item: Item,
  event: EventRow | undefined,
  names: Map<string, Member>,
): Promise<{ subject: string; line: string }> {
  const url = deps.config.publicUrl.replace(/\/$/, '');
  const payload = event ? (JSON.parse(event.payload) as Record<string, unknown>) : {};
  const nameOf = (id: string) => names.get(id)?.name ?? id;
  switch (item.type) {
    case 'task.assigned': {
      const task = await safely(() => getTask(q, orgId, item.entityId));
      return { subject: `Assigned to you: ${task?.title ?? item.entityId}`, line: `A task was assigned to you: ${task?.title ?? ''} (${item.entityId})` };
    }
    case 'approval.requested':
    case 'hold.waiting': {
      const a = await safely(() => loadApproval(q, orgId, item.entityId));
      const what = a?.summary ?? a?.action_class ?? item.entityId;
      const lead = item.type === 'hold.waiting' ? 'An act is held until a human decides' : 'An approval waits for your decision';
      return { subject: `${lead}: ${what}`, line: `${lead}: ${what}\n  ${url}/approvals/${item.entityId}` };
    }
    case 'approval.decided': {
      const a = await safely(() => loadApproval(q, orgId, item.entityId));
      const status = a?.status ?? (event?.kind === 'approval.request.approve' ? 'approved' : 'rejected');
      return {
        subject: `Your approval request was ${status}`,
        line: `Your approval request ${item.entityId} (${a?.summary ?? a?.action_class ?? ''}) was ${status}.\n  ${url}/approvals/${item.entityId}`,
      };
    }
    case 'member.joined':
      return { subject: `${nameOf(item.entityId)} joined and reports to you`, line: `${nameOf(item.entityId)} joined and reports to you.` };
    case 'reports.changed':
      if (event?.kind === 'member.reports.reassign') {
        return {
          subject: `Reports of ${nameOf(item.entityId)} now report to you`,
          line: `${String(payload.moved ?? '')} report(s) of ${nameOf(item.entityId)} now report to you.`,
        };
      }
      return { subject: `${nameOf(item.entityId)} now reports to you`, line: `${nameOf(item.entityId)} now reports to you.` };
    case 'security':
    default: {
      const words = (event && SECURITY_WORDS[event.kind]?.(payload)) ?? 'A change was made to your access.';
      return { subject: 'Security notice about your account', line: `${words} If you did not expect this, tell an admin at once.` };
    }
  }
}

/** The mail for one recipient: one item (instant) or several (a digest). */
export async function composeMail(q: Queryable, deps: Deps, orgId: string, to: Member, items: readonly Item[], digest: boolean): Promise<MailMessage> {
  const org = await findOrgById(q, orgId);
  const orgName = org?.name ?? 'your workspace';
  const events = await readEventsAt(
    q,
    orgId,
    items.map((i) => i.seq),
  );
  const bySeq = new Map(events.map((e) => [Number(e.seq), { ...e, kind: currentKind(e.family, e.kind) }]));
  const names = new Map((await getMembers(q, orgId, [...new Set(items.map((i) => i.entityId).filter((id) => /^(usr|agt)_/.test(id)))])).map((m) => [m.id, m]));
  const parts = [];
  for (const item of items) parts.push(await describe(q, deps, orgId, item, bySeq.get(item.seq), names));
  const host = new URL(deps.config.publicUrl).hostname;
  const domain = /\./.test(host) ? host : `${host}.localdomain`;
  const footer = `\n--\n${orgName}. Choose what you are told and when: notification.updatePreferences.\n`;
  return {
    from: { name: orgName, address: `no-reply@${domain}` },
    to: [{ name: to.name, address: to.email! }],
    subject: digest ? `Your digest from ${orgName}: ${items.length} update${items.length === 1 ? '' : 's'}` : parts[0].subject,
    text: digest ? `Hello ${to.name},\n\n${parts.map((p) => `- ${p.line}`).join('\n')}\n${footer}` : `Hello ${to.name},\n\n${parts[0].line}\n${footer}`,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}
