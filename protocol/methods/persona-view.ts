import { z } from 'zod';

/**
 * A persona as reads show it (member.get, GET /org/whoami, persona.*), apart from the persona methods' contracts
 * so member.ts can name it without an import cycle.
 */

/** The longest prompt block a persona compiles to (docs/families/people.md, Agents). */
export const MAX_PROMPT_CHARS = 10_000;

export const Persona = z.strictObject({
  agentId: z.string(),
  role: z.string(),
  goal: z.string(),
  backstory: z.string().nullable(),
  instructions: z.array(z.string()),
  tone: z.string().nullable(),
  toolsets: z.array(z.string()).describe('MCP toolsets a session of this agent lists when it names no desk.'),
  version: z.number().int().describe('Edits of the fields: 1 at creation, +1 per persona.editField that changes one.'),
  prompt: z.string().describe(`The compiled prompt block (at most ${MAX_PROMPT_CHARS} characters).`),
  promptHash: z.string().describe('SHA-256 (hex) of prompt.'),
  promptSource: z.enum(['template', 'model']).describe('template: compiled deterministically; model: rewritten through the AI gateway.'),
  compiledVersion: z.number().int().describe('The version the prompt was compiled from.'),
  promptStale: z.boolean().describe('A field changed after the prompt was compiled: persona.regenerate recompiles it.'),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** What GET /org/whoami shows an agent of its own persona. */
export const WhoamiPersona = Persona.pick({ version: true, prompt: true, promptHash: true, promptStale: true, toolsets: true });
