import { DIRECTORY_ASK_NOTICE } from '../../../protocol/methods/directory/ask.js';
import { directory as c } from '../../../protocol/methods/directory/index.js';
import { answerOf, askAsCaller } from '../../core/ask.js';
import { handler } from '../../core/handler.js';
import { DIRECTORY_ASK_METHOD, DIRECTORY_READS } from './answerer.js';

/*
 * directory.ask (M on directory.read): the AI gateway answers in prepare, outside the call's transaction (a
 * model may take minutes); run appends directory.ask.answer with the audit seq, the status and how many records
 * the answer cites. Never the question or the answer: they name people.
 */

type Asked = ReturnType<typeof answerOf> & { reads: string[] };

export const ask = handler(
  c.ask,
  async (ctx, _p, asked: Asked) => {
    const cited = new Set(asked.claims.flatMap((cl) => cl.cites.flatMap((x) => (x.kind === 'record' ? [x.id] : []))));
    await ctx.emit('directory.ask.answer', asked.audit.id, {
      auditId: asked.audit.id,
      auditSeq: asked.audit.seq,
      status: asked.status,
      cited: cited.size,
      claims: asked.claims.length,
    });
    const { reads, ...answer } = asked;
    return { ...answer, notice: DIRECTORY_ASK_NOTICE, actOnWith: reads.length ? reads : DIRECTORY_READS.map((r) => `directory.${r}`) };
  },
  {
    async prepare(ctx, p): Promise<Asked> {
      const outcome = await askAsCaller(ctx, { method: DIRECTORY_ASK_METHOD, question: p.question });
      return { ...answerOf(outcome), reads: outcome.reads };
    },
  },
);
