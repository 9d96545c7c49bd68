import { notFound } from '../../../protocol/errors.js';
import { orgReadContracts } from '../../../protocol/reads/org.js';
import { reads } from '../../core/family.js';
import { readHandler } from '../../core/handler.js';
import { getMember, toMember } from '../member/model.js';
import { personaOf } from '../persona/model.js';

export const whoami = readHandler(orgReadContracts['org/whoami'], async (ctx, query) => {
  const p = ctx.principal;
  if (query.slug !== undefined && query.slug !== p.orgSlug) throw notFound(`org ${query.slug}`);
  const persona = p.kind === 'agent' ? await personaOf(ctx.q, p.orgId, p.id) : null;
  return {
    orgId: p.orgId,
    slug: p.orgSlug,
    keyId: p.keyId,
    principal: { kind: p.kind, id: p.id, name: p.name },
    tier: p.tier,
    scopes: [...p.scopes].sort(),
    governanceReady: p.governanceReady,
    member: toMember(await getMember(ctx.q, p.orgId, p.id)),
    persona: persona && {
      version: persona.version,
      prompt: persona.prompt,
      promptHash: persona.promptHash,
      promptStale: persona.promptStale,
      toolsets: persona.toolsets,
    },
  };
});

export const orgReads = reads({ 'org/whoami': whoami });
