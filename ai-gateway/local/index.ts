import { ToolError, type AskInput, type Provider, type ProviderResult, type Toolbox } from '../types.js';

/*
 * The `local` provider: the default, offline answerer. Deterministic: it runs the method's registered local
 * default (books: domain/books/ask/local), which plans typed reads through the toolbox and composes a draft
 * whose every number is a figure recomputable from the records it cites (compose.ts). This engine adds what
 * every local answer shares: the deadline checked before each read, a refused read as a plain cannot_answer,
 * and the usage estimate (characters / 4) at no charge.
 */

export const LOCAL_MODEL = 'local-rules-v1';

export function localProvider(): Provider {
  return {
    name: 'local',
    async answer(input: AskInput, tools: Toolbox, signal: AbortSignal): Promise<ProviderResult> {
      signal.throwIfAborted();
      // Every read checks the deadline first: past it, the plan stops instead of reading on.
      const guarded: Toolbox = {
        tools: tools.tools,
        call: (name, params) => {
          signal.throwIfAborted();
          return tools.call(name, params);
        },
      };
      let draft;
      try {
        draft = await input.answerer.local(input, guarded);
      } catch (err) {
        if (!(err instanceof ToolError) || signal.aborted) throw err;
        draft = { kind: 'cannot_answer' as const, reason: `A read this question needs was refused (${err.message}), so I cannot answer it.` };
      }
      signal.throwIfAborted();
      const answerText = draft.kind === 'answer' ? draft.answer + draft.claims.map((c) => c.text).join('') : draft.reason;
      return {
        draft,
        usage: {
          modelRequested: LOCAL_MODEL,
          modelAnswered: LOCAL_MODEL,
          promptTokens: Math.ceil(input.question.length / 4),
          completionTokens: Math.ceil(answerText.length / 4),
          retries: [],
          estimated: true,
        },
      };
    },
  };
}
