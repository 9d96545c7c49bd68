import type { Principal } from '../domain/core/auth.js';
import type { Pipeline } from '../domain/core/pipeline.js';
import { personaOf } from '../domain/people/persona/model.js';
import { personaSelection, type Selection } from './toolsets.js';

/**
 * The selection a session of this key lists: the one asked for, or, when no desk was named and the key is an
 * agent's with a persona that names toolsets, those toolsets (docs/families/people.md, Agents: a persona's toolsets
 * become the agent's default MCP tools). Only agents have personas, so a human's session costs no query.
 */
export async function sessionSelection(pipeline: Pipeline, principal: Principal, sel: Selection): Promise<Selection> {
  if (!sel.defaulted || principal.kind !== 'agent') return sel;
  const persona = await personaOf(pipeline.deps.db, principal.orgId, principal.id);
  return persona ? personaSelection(sel, persona.toolsets) : sel;
}
