import { notFound } from '../../protocol/errors.js';
import { orgReadContracts } from '../../protocol/reads/org.js';
import { reads } from '../family.js';
import { readHandler } from '../handler.js';

export const whoami = readHandler(orgReadContracts['org/whoami'], async (ctx, query) => {
  const p = ctx.principal;
  if (query.slug !== undefined && query.slug !== p.orgSlug) throw notFound(`org ${query.slug}`);
  return {
    orgId: p.orgId,
    slug: p.orgSlug,
    keyId: p.keyId,
    principal: { kind: p.kind, id: p.id, name: p.name },
    tier: p.tier,
    scopes: [...p.scopes].sort(),
    governanceReady: p.governanceReady,
  };
});

export const orgReads = reads({ 'org/whoami': whoami });
