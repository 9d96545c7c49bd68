import { badRequest } from '../../../protocol/errors.js';
import { ask as c, FILES_ASK_NOTICE } from '../../../protocol/methods/files/ask.js';
import { answerOf, askAsCaller } from '../../core/ask.js';
import { handler, type HandlerCtx } from '../../core/handler.js';
import { FILES_ASK_METHOD, FILES_READS } from './answerer.js';
import { askReads, scopedQuestion } from './reads.js';

/*
 * files.ask (R on files.read): the AI gateway answers with the files answerer (./answerer.ts) from the drive's reads,
 * run as the caller, and audits the ask in the org's AI audit chain (record: question hash, reads, verdict, tokens;
 * bodies only when the org keeps them). An R call appends no ledger event and holds no transaction, so the model is
 * called in run, as books.ask does.
 */

/** fileIds, each read as the caller with files.get: one it cannot read is that read's NOT_FOUND; a folder is refused. */
async function scopeOf(ctx: HandlerCtx, fileIds: readonly string[] | undefined): Promise<string[] | null> {
  if (fileIds === undefined) return null;
  const ids = [...new Set(fileIds)];
  for (const fileId of ids) {
    const { file } = (await ctx.readAs('files.get', { fileId })) as { file: { kind: string } };
    if (file.kind === 'folder') {
      throw badRequest(`fileIds.${fileIds.indexOf(fileId)}`, `${fileId} is a folder: name the docs, sheets, decks or uploads in it to ask about`);
    }
  }
  return ids;
}

export const ask = handler(c.ask, async (ctx, p) => {
  const scope = await scopeOf(ctx, p.fileIds);
  const readAs = askReads((method, params) => ctx.readAs(method, params), scope && new Set(scope));
  const outcome = await askAsCaller(ctx, { method: FILES_ASK_METHOD, question: scopedQuestion(p.question, scope), readAs });
  return { ...answerOf(outcome), notice: FILES_ASK_NOTICE, actOnWith: outcome.reads.length ? outcome.reads : FILES_READS };
});

export const askHandlers = { ask };
