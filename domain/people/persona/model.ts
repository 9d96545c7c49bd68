import { conflict, notFound } from '../../../protocol/errors.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { MAX_PROMPT_CHARS } from '../../../protocol/methods/persona-view.js';
import type { PersonaField } from '../../../protocol/methods/persona.js';
import type { Queryable } from '../../../db/types.js';
import { getMembers, type Member } from '../member/model.js';
import { findOrgById } from '../org/service.js';
import { readTeam } from '../team/index.js';

/** The persona row (migration 028) and the deterministic template that compiles it into one prompt block. */

export interface PersonaRow {
  agent_id: string;
  role: string;
  goal: string;
  backstory: string | null;
  instructions: string[];
  tone: string | null;
  toolsets: string[];
  prompt: string;
  prompt_hash: string;
  prompt_source: 'template' | 'model';
  version: number;
  compiled_version: number;
  created_at: string | Date;
  updated_at: string | Date;
}

export const PERSONA_COLUMNS = `agent_id, role, goal, backstory, instructions, tone, toolsets, prompt, prompt_hash, prompt_source,
  version, compiled_version, created_at, updated_at`;

/** The row column of each persona field. */
export const FIELD_COLUMN: Record<PersonaField, keyof PersonaRow> = {
  role: 'role',
  goal: 'goal',
  backstory: 'backstory',
  instructions: 'instructions',
  tone: 'tone',
  toolsets: 'toolsets',
};

export function toPersona(r: PersonaRow) {
  return {
    agentId: r.agent_id,
    role: r.role,
    goal: r.goal,
    backstory: r.backstory,
    instructions: r.instructions ?? [],
    tone: r.tone,
    toolsets: r.toolsets ?? [],
    version: Number(r.version),
    prompt: r.prompt,
    promptHash: r.prompt_hash,
    promptSource: r.prompt_source,
    compiledVersion: Number(r.compiled_version),
    promptStale: Number(r.compiled_version) < Number(r.version),
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}
export type Persona = ReturnType<typeof toPersona>;

/** The agent's persona row, or NOT_FOUND (no persona, another org's agent, or no such agent look alike). */
export async function getPersona(q: Queryable, orgId: string, agentId: string, lock = ''): Promise<PersonaRow> {
  const [row] = await q.query<PersonaRow>(`SELECT ${PERSONA_COLUMNS} FROM personas WHERE org_id = $1 AND agent_id = $2 ${lock}`, [orgId, agentId]);
  if (!row) throw notFound(`persona of ${agentId}`);
  return row;
}

/** A member's persona as reads show it (member.get, whoami, MCP), or null: humans and agents without one. */
export async function personaOf(q: Queryable, orgId: string, memberId: string): Promise<Persona | null> {
  const [row] = await q.query<PersonaRow>(`SELECT ${PERSONA_COLUMNS} FROM personas WHERE org_id = $1 AND agent_id = $2`, [orgId, memberId]);
  return row ? toPersona(row) : null;
}

export const promptHash = (prompt: string): string => sha256Hex(prompt);

/** What the template needs besides the fields: facts of the org around the agent. */
export interface OrgFacts {
  orgName: string;
  agent: { name: string; handle: string | null };
  manager: string | null;
  sponsor: string | null;
  teams: string[];
}

type Fields = Pick<PersonaRow, 'role' | 'goal' | 'backstory' | 'instructions' | 'tone' | 'toolsets'>;

const at = (m: Member | undefined) => (m ? (m.handle ? `@${m.handle}` : m.id) : null);

/** The agent's sponsor (principals.sponsor_id: the member row, which the member view does not show). */
export async function sponsorOf(q: Queryable, orgId: string, agentId: string): Promise<string | null> {
  const [row] = await q.query<{ sponsor_id: string | null }>('SELECT sponsor_id FROM principals WHERE org_id = $1 AND principal_id = $2', [orgId, agentId]);
  return row?.sponsor_id ?? null;
}

/** The org facts of an agent: org name, its manager's and sponsor's handles, its teams' names. */
export async function orgFacts(q: Queryable, orgId: string, agentId: string): Promise<OrgFacts> {
  const [agent] = await getMembers(q, orgId, [agentId]);
  if (!agent) throw notFound(`member ${agentId}`);
  const sponsorId = await sponsorOf(q, orgId, agentId);
  const org = await findOrgById(q, orgId);
  const people = await getMembers(
    q,
    orgId,
    [agent.managerId, sponsorId].filter((x): x is string => Boolean(x)),
  );
  const byId = new Map(people.map((m) => [m.id, m]));
  const teams: string[] = [];
  for (const t of agent.teams as { teamId: string }[]) teams.push((await readTeam(q, orgId, t.teamId)).name);
  return {
    orgName: org?.name ?? orgId,
    agent: { name: agent.name, handle: agent.handle },
    manager: agent.managerId ? at(byId.get(agent.managerId)) : null,
    sponsor: sponsorId ? at(byId.get(sponsorId)) : null,
    teams,
  };
}

/**
 * The template: one line per fact and field, the instructions last, each verbatim on a line of its own (a
 * model rewrite must keep them so). Deterministic: the same fields and facts give the same bytes and hash.
 * Over MAX_PROMPT_CHARS: CONFLICT naming the longest field, the one to shorten.
 */
export function compilePrompt(f: Fields, facts: OrgFacts): string {
  const lines = [
    `You are ${facts.agent.name}${facts.agent.handle ? ` (@${facts.agent.handle})` : ''}, an AI agent of ${facts.orgName}.`,
    `Role: ${f.role}`,
    `Goal: ${f.goal}`,
    ...(f.backstory ? [`Backstory: ${f.backstory}`] : []),
    ...(f.tone ? [`Tone: ${f.tone}`] : []),
    `Reports to: ${facts.manager ?? 'nobody (no manager)'}`,
    `Sponsor: ${facts.sponsor ?? 'none'}: the human accountable for you; what you may not do alone waits for a human's approval.`,
    `Teams: ${facts.teams.length ? facts.teams.join(', ') : 'none'}`,
    `Toolsets: ${f.toolsets.length ? f.toolsets.join(', ') : 'the default desk'}`,
    ...(f.instructions.length ? ['Instructions (follow each exactly):', ...f.instructions.map((l) => `- ${l}`)] : []),
  ];
  const prompt = lines.join('\n');
  if (prompt.length > MAX_PROMPT_CHARS) {
    const sizes: [string, number][] = [
      ['instructions', f.instructions.join('\n').length],
      ['backstory', f.backstory?.length ?? 0],
      ['goal', f.goal.length],
      ['role', f.role.length],
      ['tone', f.tone?.length ?? 0],
    ];
    const [field] = sizes.reduce((a, b) => (b[1] > a[1] ? b : a));
    throw conflict(
      `${field}: the compiled prompt would be ${prompt.length} characters, over the ${MAX_PROMPT_CHARS} allowed; shorten ${field} (persona.editField) by at least ${prompt.length - MAX_PROMPT_CHARS} characters`,
    );
  }
  return prompt;
}

/** The instruction lines a prompt lacks verbatim (a model rewrite keeps every one, or is refused). */
export const missingLines = (prompt: string, instructions: readonly string[]): string[] => instructions.filter((l) => !prompt.includes(l));
