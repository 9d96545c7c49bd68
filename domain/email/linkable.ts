import type { Queryable } from '../../db/types.js';
import { threadAccess } from './access.js';

/*
 * A thread as another family links it (crm.linkEmail): only a member of its mailbox finds it (NOT_FOUND otherwise,
 * as email's own reads), with its subject, its participants' addresses, when its last message was, and which way
 * that message went. The caller decides who may see the subject.
 */

export interface LinkableThread {
  threadId: string;
  subject: string;
  participants: string[];
  lastMessageAt: string;
  /** received: inbound; sent: outbound; nothing sent or received yet: internal. */
  lastDirection: 'inbound' | 'outbound' | 'internal';
}

export async function linkableThread(q: Queryable, orgId: string, threadId: string, principalId: string): Promise<LinkableThread> {
  const { thread } = await threadAccess(q, orgId, threadId, principalId);
  const [last] = await q.query<{ state: string }>(
    `SELECT state FROM email_messages WHERE org_id = $1 AND thread_id = $2 AND state IN ('sent', 'received') ORDER BY sort_at DESC, message_id DESC LIMIT 1`,
    [orgId, threadId],
  );
  return {
    threadId: thread.thread_id,
    subject: thread.subject,
    participants: [...thread.participants],
    lastMessageAt: new Date(thread.last_message_at).toISOString(),
    lastDirection: last?.state === 'received' ? 'inbound' : last?.state === 'sent' ? 'outbound' : 'internal',
  };
}
