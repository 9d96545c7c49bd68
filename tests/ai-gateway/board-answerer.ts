import type { Answerer } from '../../ai-gateway/answerer.js';
import type { Draft } from '../../ai-gateway/types.js';
import { board } from '../../protocol/methods/board.js';

/**
 * A second answerer, as a family other than books would register one: it summarises a board task's comments
 * from board.taskComments (a real R method, run as the caller), and its grounding rules require every claim
 * to quote a comment it cites verbatim. `board.summariseComments` is a test-only name (no such registry
 * method): the gateway needs only the answerer.
 */
export const BOARD_METHOD = 'board.summariseComments';

export const BOARD_ANSWERER: Answerer = {
  method: BOARD_METHOD,
  tools: [{ name: 'board.taskComments', description: board.taskComments.summary, params: board.taskComments.params }],
  grounding: { quotesRequired: true },
  async local(input, tools): Promise<Draft> {
    const taskId = /\btask_\w+/.exec(input.question)?.[0];
    if (!taskId) return { kind: 'cannot_answer', reason: 'Name the task (task_…) whose comments to summarise.' };
    const page = (await tools.call('board.taskComments', { taskId, limit: 50 })) as { comments: { id: string; body: string }[] };
    const latest = page.comments.at(-1);
    if (!latest) return { kind: 'cannot_answer', reason: 'The task has no comments to summarise.' };
    const n = page.comments.length;
    return {
      kind: 'answer',
      answer: `The task has ${n} comments; the latest says: ${latest.body}`,
      claims: [
        {
          text: `Comments on the task: ${n}.`,
          cites: page.comments.map((c) => ({ kind: 'record' as const, id: c.id })),
          figure: { value: n, unit: 'count', op: 'count' },
          quote: latest.body,
        },
      ],
    };
  },
  instructions: (today) => `You summarise the comments of one board task. Today is ${today}. Every claim quotes a comment it cites, verbatim.`,
};
