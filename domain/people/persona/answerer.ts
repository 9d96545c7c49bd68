import type { Answerer } from '../../../ai-gateway/answerer.js';
import type { CitedRecords } from '../../../ai-gateway/records.js';
import type { Claim, Draft, Toolbox } from '../../../ai-gateway/types.js';
import { member } from '../../../protocol/methods/member.js';
import { MAX_PROMPT_CHARS } from '../../../protocol/methods/persona-view.js';
import { missingLines } from './model.js';

/*
 * persona.regenerate mode model through the AI gateway: the model reads the agent (member.get, which shows its
 * persona and compiled prompt) and answers a rewritten prompt. The gateway's grounding holds as for every
 * answer: claims cite the agent's record and every number written must sit inside a quote of it; on top, every
 * instruction line of the persona read must survive verbatim and the prompt stay within the limit.
 */

export const PERSONA_METHOD = 'persona.regenerate';

/** The question the handler asks: it names the agent (the offline default finds it here). */
export const rewriteQuestion = (agentId: string) =>
  `Rewrite the compiled persona prompt of agent ${agentId} into one clear prompt block: keep every instruction line verbatim.`;

interface PersonaNode {
  agentId: string;
  prompt: string;
  instructions: string[];
}
const isPersonaNode = (node: Readonly<Record<string, unknown>>): boolean =>
  typeof node.agentId === 'string' && typeof node.promptHash === 'string' && typeof node.prompt === 'string' && Array.isArray(node.instructions);

/** Every persona the reads of this ask returned. */
function personasRead(records: CitedRecords): PersonaNode[] {
  const out: PersonaNode[] = [];
  for (const key of records.keys()) {
    if (!key.startsWith('record:')) continue;
    for (const node of records.occurrences({ kind: 'record', id: key.slice('record:'.length) })) {
      if (isPersonaNode(node as Record<string, unknown>) && !out.includes(node as PersonaNode)) out.push(node as PersonaNode);
    }
  }
  return out;
}

/** The quotes that ground a prompt: each non-blank line of the compiled prompt, cited to the agent. */
export function quoteLines(agentId: string, prompt: string): Claim[] {
  return prompt
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => ({ text: 'Kept from the compiled prompt.', cites: [{ kind: 'record' as const, id: agentId }], quote: line }));
}

/**
 * The offline default (AI_PROVIDER=local): no model, so no rewrite. It reads the agent like a model would and
 * keeps the compiled prompt as it is, grounded line by line; regenerate then answers `unchanged`.
 */
async function keepCompiled(input: { question: string }, tools: Toolbox): Promise<Draft> {
  const agentId = /agt_[A-Za-z0-9]+/.exec(input.question)?.[0];
  if (!agentId) return { kind: 'cannot_answer', reason: 'The question names no agent (agt_…).' };
  const read = (await tools.call('member.get', { memberId: agentId })) as { persona: PersonaNode | null };
  if (!read.persona) return { kind: 'cannot_answer', reason: `Agent ${agentId} has no persona.` };
  return { kind: 'answer', answer: read.persona.prompt, claims: quoteLines(agentId, read.persona.prompt) };
}

const instructions = () => `You rewrite an AI agent's persona prompt for the workspace operations server.
Call member_get with {"memberId": "<the agent id in the question>"}: its persona holds the fields (role, goal, backstory, tone, instructions, toolsets) and the compiled prompt.
Write one clear prompt block, second person, at most ${MAX_PROMPT_CHARS} characters, from those fields only: invent no duty, permission, fact or number.
Every instruction line must appear in your prompt verbatim, character for character, each on a line of its own.
Answer with one JSON object and nothing else: {"kind":"answer","answer":"<the prompt>","claims":[{"text":"Kept from the persona.","cites":[{"kind":"record","id":"<agent id>"}],"quote":"<a line or phrase copied verbatim from the persona>"}]}.
Give one claim per line you keep from the persona (each instruction line at least). A number may appear only inside such a quote.
If you cannot, answer {"kind":"cannot_answer","reason":"<why>"}.`;

export const PERSONA_ANSWERER: Answerer = {
  method: PERSONA_METHOD,
  tools: [{ name: 'member.get', description: member.get.summary, params: member.get.params }],
  grounding: {
    // The persona beside the member in member.get is the agent's record too (its fields are what quotes cite).
    citable: (tool, node) => (tool === 'member.get' && isPersonaNode(node) ? [{ kind: 'record', id: node.agentId as string }] : []),
    check(draft, records) {
      if (draft.answer.length > MAX_PROMPT_CHARS) return `the prompt is ${draft.answer.length} characters, over the ${MAX_PROMPT_CHARS} allowed`;
      const personas = personasRead(records);
      if (personas.length === 0) return 'the answer read no persona (member.get of the agent)';
      for (const p of personas) {
        const lost = missingLines(draft.answer, p.instructions);
        // By number, not by text: the reason is kept in the AI audit chain, which must not hold the mandate's words.
        if (lost.length) return `instruction line ${p.instructions.indexOf(lost[0]) + 1} of ${p.agentId} is not kept verbatim`;
      }
      return undefined;
    },
  },
  local: keepCompiled,
  instructions,
};
