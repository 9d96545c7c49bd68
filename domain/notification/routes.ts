import type { NotificationType } from '../../protocol/methods/notification.js';
import type { Queryable } from '../../db/types.js';
import { readEventsAbout } from '../../ledger/read.js';
import { loadApproval } from '../approval/index.js';
import { activeHumansWithRole, getMembers, keyHolder } from '../people/index.js';
import { assigneesOf } from '../board/index.js';

/*
 * Which ledger events concern whom. Only ids and statuses are read from an event (that is all it holds); the
 * mail's words are built later from the records (mail.ts). The delivery tells nobody of their own act, except
 * a security notice about their own account (delivery.ts).
 */

export interface LedgerEvent {
  seq: number;
  kind: string;
  entity_id: string;
  actor: string;
  payload: Record<string, unknown>;
}

export interface Candidate {
  recipientId: string;
  type: NotificationType;
  /** The record the notification is about (task, approval, member). */
  entityId: string;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Who may decide an approval: its named deciders, else every active admin and approver. */
async function decidersOf(q: Queryable, orgId: string, approvalId: string): Promise<string[]> {
  try {
    const row = await loadApproval(q, orgId, approvalId);
    return row.deciders?.length ? row.deciders : activeHumansWithRole(q, orgId, ['admin', 'approver']);
  } catch {
    return [];
  }
}

async function managerOf(q: Queryable, orgId: string, memberId: string): Promise<string | undefined> {
  const [m] = await getMembers(q, orgId, [memberId]);
  return m?.managerId ?? undefined;
}

/** What a batch of events needs read from their records, read once per batch rather than once per event. */
export interface Lookups {
  /** The assignee each task created in the batch was created with (absent: none). */
  assignees: Map<string, string>;
}

/**
 * item.created names no assignee, so the one a task was created with is read: the `previous` of the task's first
 * later item.assigned (in this batch, else after it), else the task's row. Reading ahead costs a range of the
 * ledger after the batch, only for tasks that have an assignee now and no assignment in the batch: near the head
 * (the usual case) a few rows. board's item.created naming its assignee would make it unnecessary.
 */
export async function lookupsFor(
  q: Queryable,
  orgId: string,
  events: readonly Omit<LedgerEvent, 'payload'>[],
  payloads: readonly Record<string, unknown>[],
): Promise<Lookups> {
  const assignees = new Map<string, string>();
  const created = new Set<string>();
  const settled = new Set<string>();
  events.forEach((e, i) => {
    if (e.kind === 'item.created') created.add(e.entity_id);
    else if (e.kind === 'item.assigned' && created.has(e.entity_id) && !settled.has(e.entity_id)) {
      settled.add(e.entity_id);
      const previous = str(payloads[i].previous);
      if (previous) assignees.set(e.entity_id, previous);
    }
  });
  const unsettled = [...created].filter((id) => !settled.has(id));
  if (unsettled.length === 0) return { assignees };
  const now = await assigneesOf(q, orgId, unsettled);
  if (now.length === 0) return { assignees };
  const later = await readEventsAbout(q, orgId, { afterSeq: events[events.length - 1].seq, kind: 'item.assigned', entityIds: now.map((r) => r.task_id) });
  const first = new Map<string, string | undefined>();
  for (const e of later) if (!first.has(e.entity_id)) first.set(e.entity_id, str((JSON.parse(e.payload) as Record<string, unknown>).previous));
  for (const r of now) {
    const atCreation = first.has(r.task_id) ? first.get(r.task_id) : r.assignee;
    if (atCreation) assignees.set(r.task_id, atCreation);
  }
  return { assignees };
}

const SECURITY_KINDS: Record<string, string> = {
  'user.role.update': 'userId',
  'user.access.deactivate': 'userId',
  'admin.member.deactivate': 'memberId',
  'admin.member.reactivate': 'memberId',
};

export async function candidatesFor(q: Queryable, orgId: string, e: LedgerEvent, lookups: Lookups): Promise<Candidate[]> {
  const p = e.payload;
  if (p.noop === true) return [];
  const one = (recipientId: string | undefined, type: NotificationType, entityId = e.entity_id): Candidate[] =>
    recipientId ? [{ recipientId, type, entityId }] : [];
  if (e.kind === 'item.assigned') return one(str(p.assignee), 'task.assigned');
  // A task created with an assignee says so only in its row (the event names no principal).
  if (e.kind === 'item.created') return one(lookups.assignees.get(e.entity_id), 'task.assigned');
  // Filed again (refiled): the same pending approval, whose deciders were told when it was first filed.
  if (e.kind === 'approval.request.create' && p.refiled !== true) {
    return (await decidersOf(q, orgId, e.entity_id)).map((id) => ({ recipientId: id, type: 'approval.requested' as const, entityId: e.entity_id }));
  }
  if (e.kind === 'approval.request.approve' || e.kind === 'approval.request.reject') return one(str(p.requestedBy), 'approval.decided');
  if (e.kind.endsWith('.signature.hold') && str(p.approvalId)) {
    // A release hold filed its approval: whoever may decide it hears that an act waits.
    return (await decidersOf(q, orgId, String(p.approvalId))).map((id) => ({ recipientId: id, type: 'hold.waiting' as const, entityId: String(p.approvalId) }));
  }
  if (e.kind === 'member.record.create') return one(str(p.managerId), 'member.joined', str(p.memberId) ?? e.entity_id);
  if (e.kind === 'invitation.invite.accept') {
    const joined = str(p.memberId) ?? e.actor;
    return one(await managerOf(q, orgId, joined), 'member.joined', joined);
  }
  if (e.kind === 'member.record.update' && Array.isArray(p.fields) && p.fields.includes('managerId'))
    return one(str(p.managerId), 'reports.changed', e.entity_id);
  if (e.kind === 'member.reports.reassign') return one(str(p.toManagerId), 'reports.changed', str(p.fromManagerId) ?? e.entity_id);
  if ((e.kind === 'org.key.mint' || e.kind === 'settings.key.mint') && p.principalKind === 'human') return one(str(p.principal), 'security', e.entity_id);
  if (e.kind === 'org.key.revoke' || e.kind === 'settings.key.revoke') return one(await keyHolder(q, orgId, e.entity_id), 'security', e.entity_id);
  const field = SECURITY_KINDS[e.kind];
  if (field) return one(str(p[field]), 'security', e.entity_id);
  return [];
}
