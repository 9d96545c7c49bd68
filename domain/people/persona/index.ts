import { badRequest, conflict } from '../../../protocol/errors.js';
import { persona as c } from '../../../protocol/methods/persona.js';
import { one, type Queryable } from '../../../db/types.js';
import { family, type Family } from '../../core/family.js';
import { askAsCaller } from '../../core/ask.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { laneHold } from '../member/lane.js';
import { checkManager, checkVersion, freeHandle, getMember, getMembers, handleFrom, lockPeople, toMember } from '../member/model.js';
import { PERSONA_METHOD, rewriteQuestion } from './answerer.js';
import {
  compilePrompt,
  FIELD_COLUMN,
  getPersona,
  missingLines,
  orgFacts,
  PERSONA_COLUMNS,
  promptHash,
  sponsorOf,
  toPersona,
  type PersonaRow,
} from './model.js';
import { PERSONA_ANSWERER } from './answerer.js';

/*
 * persona.*: an agent's mandate. Writing one is what "no agent writes a mandate alone" guards: an agent's
 * generateAgentId, editField and model regenerate hold (retry mode) for its sponsor. Events carry ids, field
 * names, versions, counts and hashes: never the role, goal, backstory, instructions, tone or prompt.
 */

/** An approval's deciders: the agent's sponsor, when the sponsor may decide approvals (admin or approver). */
async function sponsorDecides(q: Queryable, orgId: string, sponsorId: string | null): Promise<string[] | undefined> {
  if (!sponsorId) return undefined;
  const [row] = await q.query<{ role: string | null }>('SELECT role FROM principals WHERE org_id = $1 AND principal_id = $2', [orgId, sponsorId]);
  return row?.role === 'admin' || row?.role === 'approver' ? [sponsorId] : undefined;
}

async function checkSponsor(q: Queryable, orgId: string, sponsorId: string) {
  const [sponsor] = await getMembers(q, orgId, [sponsorId]);
  if (!sponsor) throw badRequest('sponsorId', `no member ${sponsorId} in this org`);
  if (sponsor.status !== 'active') throw badRequest('sponsorId', `${sponsorId} is ${sponsor.status}; a sponsor must be an active human member`);
  return sponsor;
}

const handleOf = async (q: Queryable, orgId: string, agentId: string) => {
  const m = toMember(await getMember(q, orgId, agentId));
  return m.handle ? `@${m.handle}` : agentId;
};

const fresh = async (q: Queryable, orgId: string, agentId: string) => toPersona(await getPersona(q, orgId, agentId));

export const generateAgentId = handler(c.generateAgentId, async (ctx, p) => {
  await lockPeople(ctx.q, ctx.orgId);
  const sponsor = await checkSponsor(ctx.q, ctx.orgId, p.sponsorId);
  if (p.managerId !== undefined) await checkManager(ctx.q, ctx.orgId, null, p.managerId);
  const proof = laneHold(ctx.principal, 'persona.generateAgentId')
    ? await ctx.requireSignature({
        actionClass: 'persona.generate_agent_id',
        subjectId: p.sponsorId,
        summary: `Create an agent sponsored by ${sponsor.handle ? `@${sponsor.handle}` : sponsor.id}${p.managerId ? `, reporting to ${p.managerId}` : ''}, with ${p.instructions?.length ?? 0} instruction(s) and toolsets ${(p.toolsets ?? []).join(', ') || 'none'}`,
        params: p,
        deciders: await sponsorDecides(ctx.q, ctx.orgId, p.sponsorId),
      })
    : null;
  const agentId = newId('agt');
  const handle = await freeHandle(ctx.q, ctx.orgId, 'principals', handleFrom(p.name));
  await ctx.q.query(
    `INSERT INTO principals (org_id, principal_id, kind, name, handle, manager_id, sponsor_id, status)
       VALUES ($1, $2, 'agent', $3, $4, $5, $6, 'active')`,
    [ctx.orgId, agentId, p.name, handle, p.managerId ?? null, p.sponsorId],
  );
  const fields = {
    role: p.role,
    goal: p.goal,
    backstory: p.backstory ?? null,
    instructions: p.instructions ?? [],
    tone: p.tone ?? null,
    toolsets: p.toolsets ?? [],
  };
  const prompt = compilePrompt(fields, await orgFacts(ctx.q, ctx.orgId, agentId));
  const row = one(
    await ctx.q.query<PersonaRow>(
      `INSERT INTO personas (org_id, agent_id, role, goal, backstory, instructions, tone, toolsets, prompt, prompt_hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING ${PERSONA_COLUMNS}`,
      [ctx.orgId, agentId, fields.role, fields.goal, fields.backstory, fields.instructions, fields.tone, fields.toolsets, prompt, promptHash(prompt)],
    ),
  );
  const persona = toPersona(row);
  const agent = toMember(await getMember(ctx.q, ctx.orgId, agentId));
  await ctx.emit('persona.agent.generate', agentId, {
    agentId,
    sponsorId: p.sponsorId,
    managerId: p.managerId ?? null,
    version: persona.version,
    promptHash: persona.promptHash,
    instructions: persona.instructions.length,
    toolsets: persona.toolsets,
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return {
    agent,
    persona,
    changed: true,
    next: `Agent ${agentId} has no API key yet. Have it call pairing.request {orgSlug: "${ctx.principal.orgSlug}", agentName}, then approve with pairing.approve {pairingId, code, agentId: "${agentId}"}: its key is bound to this agent and persona.`,
  };
});

export const editField = handler(c.editField, async (ctx, p) => {
  const row = await getPersona(ctx.q, ctx.orgId, p.agentId, 'FOR UPDATE');
  checkVersion('persona', p.agentId, row.version, p.ifVersion);
  const hold = {
    actionClass: 'persona.edit_field',
    subjectId: p.agentId,
    summary: `Change the ${p.field} of the persona of ${await handleOf(ctx.q, ctx.orgId, p.agentId)} (version ${row.version})`,
    params: p,
    deciders: await sponsorDecides(ctx.q, ctx.orgId, await sponsorOf(ctx.q, ctx.orgId, p.agentId)),
  };
  const column = FIELD_COLUMN[p.field];
  if (JSON.stringify(row[column] ?? null) === JSON.stringify(p.value)) {
    if (laneHold(ctx.principal, 'persona.editField')) await ctx.verifyProof(hold);
    await ctx.emit('persona.field.edit', p.agentId, { agentId: p.agentId, field: p.field, version: Number(row.version), noop: true });
    return { persona: toPersona(row), changed: false };
  }
  const proof = laneHold(ctx.principal, 'persona.editField') ? await ctx.requireSignature(hold) : null;
  await ctx.q.query(`UPDATE personas SET ${column} = $3, version = version + 1, updated_at = now() WHERE org_id = $1 AND agent_id = $2`, [
    ctx.orgId,
    p.agentId,
    p.value,
  ]);
  const persona = await fresh(ctx.q, ctx.orgId, p.agentId);
  await ctx.emit('persona.field.edit', p.agentId, {
    agentId: p.agentId,
    field: p.field,
    version: persona.version,
    promptStale: persona.promptStale,
    ...(proof ? { approvalId: proof.approvalId } : {}),
  });
  return { persona, changed: true };
});

/** What mode model brings from prepare: the prompt it rewrote (hash and version) and the gateway's outcome. */
interface Rewrite {
  basedOn: { promptHash: string; version: number };
  status: 'answered' | 'refused';
  prompt: string | null;
  reason: string | null;
  ai: { provider: string; model: string; auditId: string; auditSeq: number };
}

const staleMessage = (row: PersonaRow) =>
  `the prompt of ${row.agent_id} was compiled from version ${row.compiled_version}, but the persona is at version ${row.version}: call persona.regenerate with mode template first (mode model rewrites the compiled prompt)`;

export const regenerate = handler(
  c.regenerate,
  async (ctx, p, rewrite: Rewrite | null) => {
    const row = await getPersona(ctx.q, ctx.orgId, p.agentId, 'FOR UPDATE');
    checkVersion('persona', p.agentId, row.version, p.ifVersion);
    const stale = Number(row.compiled_version) < Number(row.version);
    let proof = null;
    if (laneHold(ctx.principal, 'persona.regenerate', p.mode === 'model')) {
      proof = await ctx.requireSignature({
        actionClass: 'persona.regenerate',
        subjectId: p.agentId,
        summary: `Rewrite the prompt of the persona of ${await handleOf(ctx.q, ctx.orgId, p.agentId)} (version ${row.version}) with a model`,
        params: p,
        deciders: await sponsorDecides(ctx.q, ctx.orgId, await sponsorOf(ctx.q, ctx.orgId, p.agentId)),
      });
    }
    let prompt: string;
    let reason: string | null = null;
    if (p.mode === 'model') {
      if (stale) throw conflict(staleMessage(row));
      if (!rewrite || rewrite.basedOn.promptHash !== row.prompt_hash || rewrite.basedOn.version !== Number(row.version)) {
        throw conflict(`the persona of ${p.agentId} changed while the model was rewriting it; call persona.regenerate again`);
      }
      // The gateway checked the instruction lines against what the model read; check them against this row too.
      const lost = rewrite.prompt === null ? [] : missingLines(rewrite.prompt, row.instructions);
      reason =
        rewrite.status === 'refused' ? rewrite.reason : lost.length ? `instruction line ${row.instructions.indexOf(lost[0]) + 1} is not kept verbatim` : null;
      prompt = reason === null ? rewrite.prompt! : row.prompt;
    } else {
      prompt = compilePrompt(row, await orgFacts(ctx.q, ctx.orgId, p.agentId));
    }
    const hash = promptHash(prompt);
    const status = reason !== null ? 'refused' : hash === row.prompt_hash && !stale ? 'unchanged' : 'compiled';
    const ai = rewrite?.ai ?? null;
    const base = {
      agentId: p.agentId,
      mode: p.mode,
      status,
      version: Number(row.version),
      ...(ai ? { auditId: ai.auditId } : {}),
      ...(proof ? { approvalId: proof.approvalId } : {}),
    };
    if (status !== 'compiled') {
      await ctx.emit('persona.prompt.regenerate', p.agentId, { ...base, promptHash: row.prompt_hash, noop: true });
      return { persona: toPersona(row), changed: false, status, reason, ai };
    }
    await ctx.q.query(
      `UPDATE personas SET prompt = $3, prompt_hash = $4, prompt_source = $5, compiled_version = version, updated_at = now() WHERE org_id = $1 AND agent_id = $2`,
      [ctx.orgId, p.agentId, prompt, hash, p.mode],
    );
    const persona = await fresh(ctx.q, ctx.orgId, p.agentId);
    await ctx.emit('persona.prompt.regenerate', p.agentId, { ...base, promptHash: hash, previousHash: row.prompt_hash, chars: prompt.length });
    return { persona, changed: true, status, reason, ai };
  },
  {
    // mode model: the model runs here, before the transaction (never inside one), and only when the act may run:
    // an agent without proof is held by run first, so no model is paid for a hold.
    async prepare(ctx, p): Promise<Rewrite | null> {
      if (p.mode !== 'model') return null;
      if (laneHold(ctx.principal, 'persona.regenerate', true) && p.approvalId === undefined && p.signatureToken === undefined) return null;
      const row = await getPersona(ctx.db, ctx.orgId, p.agentId);
      checkVersion('persona', p.agentId, row.version, p.ifVersion);
      if (Number(row.compiled_version) < Number(row.version)) throw conflict(staleMessage(row));
      const outcome = await askAsCaller(ctx, { method: PERSONA_METHOD, question: rewriteQuestion(p.agentId) });
      return {
        basedOn: { promptHash: row.prompt_hash, version: Number(row.version) },
        status: outcome.status,
        prompt: outcome.answer,
        reason: outcome.reason,
        ai: { provider: outcome.provider, model: outcome.model, auditId: outcome.audit.id, auditSeq: outcome.audit.seq },
      };
    },
  },
);

export const personaHandlers = family('persona', { generateAgentId, editField, regenerate });

/** The persona family, as domain/deployed.ts lists it. */
export const personaFamily: Family = { name: 'persona', methods: personaHandlers, answerers: [PERSONA_ANSWERER] };
