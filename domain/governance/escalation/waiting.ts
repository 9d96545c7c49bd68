import { earliest, type InboxEntry, type WaitingSource } from '../../inbox/index.js';
import { escalationsWaitingOn, levelReachedAt, toEscalation } from './model.js';

/**
 * The escalation family's part of GET /org/inbox: open escalations assigned to the caller as of the clock; the
 * answer changes when one climbs on or another climbs to the caller.
 */
export const escalationWaiting: WaitingSource = async ({ q, orgId, me, now, cap }) => {
  const escalated = await escalationsWaitingOn(q, orgId, me.id, now, cap);
  const items = escalated.assigned.map((r): InboxEntry => {
    const view = toEscalation(r, now);
    return {
      kind: 'escalation',
      id: view.id,
      title: view.title,
      since: levelReachedAt(r, now),
      from: view.raisedBy,
      link: { method: 'escalation.resolve', params: { escalationId: view.id } },
      reason: view.reason,
      severity: view.severity,
      level: view.level,
      subject: view.subject,
      nextLevelAt: view.nextLevelAt,
    };
  });
  return { items, nextChangeAt: earliest([...items.map((e) => (e.kind === 'escalation' ? e.nextLevelAt : null)), escalated.nextArrivalAt]) };
};
