import { ApiError } from '../../../protocol/errors.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { EMAIL_AI_NOTICE, emailAi as c } from '../../../protocol/methods/email/ai.js';
import { addIntakeTasks } from '../../board/index.js';
import { answerOf } from '../../core/ask.js';
import { handler } from '../../core/handler.js';
import { messageAccess } from '../access.js';
import { EMAIL_AI_METHODS } from './answerers.js';
import { emailClaims, quoted } from './compose.js';
import { extractQuestion } from './local-extract.js';
import { askWithin } from './reads.js';

/*
 * email.extractAction (M): the AI gateway reads the message in prepare, outside the call's transaction; run makes the
 * board tasks when asked (createTasks), in the board's triage column through board's own export, which appends no
 * event: this call's one event names the task ids. An action already made a task of (same message, same quoted
 * words, by their SHA-256) is not made again. Words addressed to an assistant come back in `ignored`, never as tasks.
 */

/** The scope board.createTask needs: making tasks is a board write, whoever asks. */
const BOARD_WRITE = 'board.write';

type Asked = ReturnType<typeof answerOf> & {
  actions: { text: string; due: string | null; quote: string; cites: string[] }[];
  ignored: ReturnType<typeof quoted>[];
};

export const extractAction = handler(
  c.extractAction,
  async (ctx, p, asked: Asked) => {
    const { message } = await messageAccess(ctx.q, ctx.orgId, p.messageId, ctx.principal.id, { lock: true });
    const hashes = asked.actions.map((a) => sha256Hex(a.quote));
    const made = new Map<string, string>();
    const fresh: string[] = [];
    if (p.createTasks && asked.status === 'answered' && asked.actions.length > 0) {
      const rows = await ctx.q.query<{ quote_sha256: string; task_id: string }>(
        'SELECT quote_sha256, task_id FROM email_action_tasks WHERE org_id = $1 AND message_id = $2 AND quote_sha256 = ANY($3::text[])',
        [ctx.orgId, p.messageId, hashes],
      );
      for (const r of rows) made.set(r.quote_sha256, r.task_id);
      const todo = asked.actions.map((a, i) => ({ a, hash: hashes[i] })).filter((x, i) => !made.has(x.hash) && hashes.indexOf(x.hash) === i);
      const ids = await addIntakeTasks(
        ctx.q,
        ctx.orgId,
        ctx.principal.id,
        todo.map(({ a }) => ({
          title: a.text.slice(0, 200),
          description: `From email message ${p.messageId} (thread ${message.thread_id})${a.due ? `, due ${a.due}` : ''}: "${a.quote}"`,
        })),
      );
      const at = ctx.deps.clock.now().toISOString();
      for (const [i, { hash }] of todo.entries()) {
        made.set(hash, ids[i]);
        fresh.push(ids[i]);
        await ctx.q.query(
          'INSERT INTO email_action_tasks (org_id, message_id, quote_sha256, task_id, created_by, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
          [ctx.orgId, p.messageId, hash, ids[i], ctx.principal.id, at],
        );
      }
    }
    const changed = fresh.length > 0;
    await ctx.emit('email.action.extract', p.messageId, {
      mailboxId: message.mailbox_id,
      threadId: message.thread_id,
      messageId: p.messageId,
      status: asked.status,
      actions: asked.actions.length,
      ignored: asked.ignored.length,
      createTasks: p.createTasks,
      taskIds: fresh,
      alreadyMade: asked.actions.length > 0 && p.createTasks ? made.size - fresh.length : 0,
      auditSeq: asked.audit.seq,
      ...(changed ? {} : { noop: true }),
    });
    return {
      status: asked.status,
      actions: asked.actions.map((a, i) => ({ ...a, taskId: made.get(hashes[i]) ?? null })),
      ignored: asked.ignored,
      taskIds: fresh,
      refusal: asked.reason,
      notice: EMAIL_AI_NOTICE,
      audit: asked.audit,
      changed,
    };
  },
  {
    async prepare(ctx, p): Promise<Asked> {
      await messageAccess(ctx.db, ctx.orgId, p.messageId, ctx.principal.id);
      // Refused before the AI is asked: nothing spent on a call that cannot make its tasks.
      if (p.createTasks && !ctx.principal.scopes.has(BOARD_WRITE)) {
        throw new ApiError(
          'FORBIDDEN_SCOPE',
          `missing scope ${BOARD_WRITE}, needed to make board tasks (createTasks: true); call again with createTasks: false to only extract the actions`,
        );
      }
      const scope = { messageId: p.messageId };
      const outcome = await askWithin(ctx, EMAIL_AI_METHODS.extractAction, extractQuestion(p.messageId), scope);
      const claims = emailClaims(outcome.claims);
      return {
        ...answerOf(outcome),
        actions: claims.filter((x) => x.role === 'action').map((x) => ({ ...quoted(x), due: x.due ?? null })),
        ignored: claims.filter((x) => x.role === 'content').map(quoted),
      };
    },
  },
);
