import { badRequest } from '../../../protocol/errors.js';
import { EMAIL_AI_NOTICE, emailAi as c } from '../../../protocol/methods/email/ai.js';
import { handler } from '../../core/handler.js';
import { mailboxAccess, threadAccess } from '../access.js';
import { EMAIL_AI_METHODS } from './answerers.js';
import { emailClaims, quoted } from './compose.js';
import { askWithin, type AiScope } from './reads.js';

/*
 * email.ask (R on email.read): the AI gateway answers from the email reads run as the caller, so only mail of the
 * caller's mailboxes can answer, held to one mailbox or thread when asked; audited in the org's AI audit chain (the
 * question's hash, the reads, the verdict), no ledger event. An R call holds no transaction, so the model is called
 * in run, as files.ask does. A spent budget is RATE_LIMITED.
 */

const READS = ['email.messages', 'email.message', 'email.thread', 'email.threads'];

export const ask = handler(c.ask, async (ctx, p) => {
  const scope: AiScope = {};
  if (p.mailboxId !== undefined) {
    await mailboxAccess(ctx.q, ctx.orgId, p.mailboxId, ctx.principal.id);
    scope.mailboxId = p.mailboxId;
  }
  if (p.threadId !== undefined) {
    const { thread } = await threadAccess(ctx.q, ctx.orgId, p.threadId, ctx.principal.id);
    if (p.mailboxId !== undefined && thread.mailbox_id !== p.mailboxId) throw badRequest('threadId', `thread ${p.threadId} is not in mailbox ${p.mailboxId}`);
    // The thread is the narrower scope.
    delete scope.mailboxId;
    scope.threadId = p.threadId;
  }
  const outcome = await askWithin(ctx, EMAIL_AI_METHODS.ask, p.question, scope);
  return {
    status: outcome.status,
    answer: outcome.answer,
    claims: emailClaims(outcome.claims).map(quoted),
    reason: outcome.reason,
    notice: EMAIL_AI_NOTICE,
    actOnWith: outcome.reads.length ? outcome.reads : READS,
    provider: outcome.provider,
    model: outcome.model,
    auditSeq: outcome.audit.seq,
  };
});
