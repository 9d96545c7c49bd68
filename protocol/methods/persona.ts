import { z } from 'zod';
import { method } from '../contract.js';
import { proofFields, text } from '../schema.js';
import { ifVersion, Member, memberFields } from './member.js';
import { FAMILIES } from '../registry.js';
import { AREA_TOOLSET_NAMES } from './areas.js';
import { MAX_PROMPT_CHARS, Persona } from './persona-view.js';

/**
 * What a persona's toolsets may name: MCP's toolset names, i.e. the registry's families and the family areas
 * (`books.payables`, `directory.merges`). mcp/toolsets.ts builds its TOOLSETS from the same two lists; domain may
 * not import mcp.
 */
export const PERSONA_TOOLSETS: readonly string[] = [...FAMILIES, ...AREA_TOOLSET_NAMES];

/** Personas: an agent's mandate (role, goal, backstory, instructions, tone, toolsets) compiled into one prompt block. */

export const MAX_INSTRUCTIONS = 50;

export const agentId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^agt_[A-Za-z0-9]+$/, 'must be an agent id of the form agt_… (a usr_ id names a human, who has no persona)')
    .describe(description);

const humanId = (description: string) =>
  z
    .string()
    .max(64, 'must be at most 64 characters')
    .regex(/^usr_[A-Za-z0-9]+$/, 'must be a human member id of the form usr_…')
    .describe(description);

const Line = text({ min: 1, max: 500, description: 'One instruction: a single line the prompt keeps verbatim.' }).refine(
  (s) => !/[\r\n]/.test(s) && s.trim() === s,
  'must be one line without leading or trailing spaces',
);

/** Each persona field's schema: generateAgentId takes them as fields, editField as `value`. */
export const personaFields = {
  role: text({ min: 1, max: 200, description: 'What the agent is, e.g. "Accounts payable clerk".' }),
  goal: text({ min: 1, max: 1000, description: 'What it works towards, in a sentence or two.' }),
  backstory: text({ min: 1, max: 4000, description: 'Context that shapes its judgement (its history, who it serves).' }),
  instructions: z
    .array(Line)
    .max(MAX_INSTRUCTIONS, `must list at most ${MAX_INSTRUCTIONS} instructions`)
    .describe('Rules it must follow, one per line; every line survives any regeneration verbatim.'),
  tone: text({ min: 1, max: 200, description: 'How it writes, e.g. "plain and brief".' }),
  toolsets: z
    .array(
      z.enum(PERSONA_TOOLSETS as [string, ...string[]], {
        message: `must be a toolset: a family or a family area (${PERSONA_TOOLSETS.slice(0, 6).join(', ')}, …)`,
      }),
    )
    .max(20, 'must list at most 20 toolsets')
    .refine((t) => new Set(t).size === t.length, 'must not repeat a toolset')
    .describe('MCP toolsets (families, or family areas such as books.payables) its sessions list when they name no desk.'),
};
export const PERSONA_FIELDS = ['role', 'goal', 'backstory', 'instructions', 'tone', 'toolsets'] as const;
export type PersonaField = (typeof PERSONA_FIELDS)[number];
/** Fields editField may clear with null. */
export const CLEARABLE: ReadonlySet<PersonaField> = new Set(['backstory', 'tone']);

const changed = z.boolean().describe('false when the call found the persona already so (its event says noop).');

export const persona = {
  generateAgentId: method({
    hold: { completion: 'retry', when: 'an agent calls it' },
    summary:
      'Create an agent (agt_) with a persona: its member row (active, sponsored by a human, optionally under a manager) and persona version 1 with its compiled prompt, and no API key. Pair it with pairing.approve {agentId} to give it one. From an agent it is a signature act (retry mode: persona.generate_agent_id).',
    params: z.strictObject({
      name: memberFields.name.describe('The agent’s display name; its handle is derived from it.'),
      role: personaFields.role,
      goal: personaFields.goal,
      backstory: personaFields.backstory.optional(),
      instructions: personaFields.instructions.optional(),
      tone: personaFields.tone.optional(),
      toolsets: personaFields.toolsets.optional(),
      managerId: memberFields.managerId.optional(),
      sponsorId: humanId('The active human accountable for the agent (Entra Agent ID sponsor); decides its persona holds.'),
      ...proofFields,
    }),
    result: z.strictObject({
      agent: Member,
      persona: Persona,
      changed,
      next: z.string().describe('What to do next: pair the agent to give it a key.'),
    }),
    events: ['persona.agent.generate'],
    example: {
      name: 'Payables agent',
      role: 'Accounts payable clerk',
      goal: 'Capture and route supplier bills',
      instructions: ['Never approve a bill yourself.'],
      toolsets: ['books.payables'],
      sponsorId: 'usr_0123456789abcdef',
    },
  }),
  editField: method({
    hold: { completion: 'retry', when: 'an agent calls it' },
    summary:
      'Change one persona field (role, goal, backstory, instructions, tone or toolsets): version + 1 and promptStale true until persona.regenerate recompiles the prompt; the same value answers changed:false. From an agent it is a signature act (retry mode: persona.edit_field).',
    params: z
      .strictObject({
        agentId: agentId('The agent.'),
        field: z.enum(PERSONA_FIELDS).describe('The field to change.'),
        value: z
          .union([z.string(), z.array(z.string()), z.null()])
          .describe('The new value: text for role, goal, backstory, tone; a list for instructions and toolsets; null clears backstory or tone.'),
        ifVersion,
        ...proofFields,
      })
      .superRefine((p, ctx) => {
        if (p.value === null) {
          if (!CLEARABLE.has(p.field)) ctx.addIssue({ code: 'custom', path: ['value'], message: `${p.field} cannot be cleared` });
          return;
        }
        const parsed = personaFields[p.field].safeParse(p.value);
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          ctx.addIssue({ code: 'custom', path: ['value', ...issue.path], message: issue.message });
        }
      }),
    result: z.strictObject({ persona: Persona, changed }),
    events: ['persona.field.edit'],
    example: { agentId: 'agt_0123456789abcdef', field: 'instructions', value: ['Never approve a bill yourself.', 'Ask your sponsor when unsure.'] },
  }),
  regenerate: method({
    hold: { completion: 'retry', when: 'an agent calls it with mode model' },
    summary: `Recompile the prompt from the fields and org facts (org name, manager and sponsor handles, teams). mode template (default) is deterministic: the same prompt hash answers changed:false; over ${MAX_PROMPT_CHARS} characters is a CONFLICT naming the field to shorten. mode model rewrites the compiled prompt through the AI gateway and keeps it only if every instruction line survives verbatim, else status refused and nothing changes; from an agent it is a signature act (retry mode: persona.regenerate).`,
    params: z.strictObject({
      agentId: agentId('The agent.'),
      mode: z.enum(['template', 'model']).default('template').describe('template: deterministic compile; model: a rewrite through the AI gateway.'),
      ifVersion,
      ...proofFields,
    }),
    result: z.strictObject({
      persona: Persona,
      changed,
      status: z
        .enum(['compiled', 'unchanged', 'refused'])
        .describe('compiled: a new prompt is stored; unchanged: the same prompt hash; refused (model): nothing kept, see reason.'),
      reason: z.string().nullable().describe('Why a model rewrite was refused.'),
      ai: z
        .strictObject({ provider: z.string(), model: z.string(), auditId: z.string(), auditSeq: z.number().int() })
        .nullable()
        .describe('mode model: who answered and its record in the AI audit chain (GET /ops).'),
    }),
    events: ['persona.prompt.regenerate'],
    example: { agentId: 'agt_0123456789abcdef', mode: 'template' },
  }),
};
