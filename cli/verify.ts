import type { Db } from '../db/types.js';
import { verifyOrgChain } from '../ledger/verify.js';
import { verifyAuditChain } from '../ai-gateway/audit.js';
import { DEPLOYED } from '../domain/deployed.js';
import type { ChainVerdict } from '../protocol/hashing.js';

/**
 * Verify one org's chain (or every org's), streaming from the database. Prints one line per org, the
 * first break by seq when there is one, and progress on long chains; then a line for the org's AI audit
 * chain. Returns false on any break.
 */
export async function verifyCommand(
  db: Db,
  // databaseUrl (PostgreSQL): long chains are walked in parallel segments (ledger/verify.ts).
  opts: { slug?: string; out?: NodeJS.WritableStream; err?: NodeJS.WritableStream; databaseUrl?: string },
): Promise<boolean> {
  const out = opts.out ?? process.stdout;
  const err = opts.err ?? process.stderr;
  const orgs = await db.query<{ org_id: string; slug: string }>(
    opts.slug ? 'SELECT org_id, slug FROM orgs WHERE slug = $1' : 'SELECT org_id, slug FROM orgs ORDER BY created_at, org_id',
    opts.slug ? [opts.slug] : [],
  );
  if (opts.slug && orgs.length === 0) throw new Error(`org ${opts.slug} not found`);
  let allOk = true;
  for (const org of orgs) {
    const started = performance.now();
    const verdict = await verifyOrgChain(db, org.org_id, {
      parallel: db.kind === 'postgres' && opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : undefined,
      onProgress: (p) => p.verified % 100_000 === 0 && err.write(`  ${org.slug}: ${p.verified} events verified…\n`),
    });
    const ms = Math.round(performance.now() - started);
    if (verdict.ok) {
      out.write(`ok     ${org.slug}: ${verdict.count} events verified, head seq ${verdict.head.seq} ${verdict.head.rowHash || '(empty)'} (${ms} ms)\n`);
    } else {
      allOk = false;
      out.write(
        `BROKEN ${org.slug}: first break at seq ${verdict.break.seq} (${verdict.break.kind}): ${verdict.break.message}; ${verdict.count} events verified before it\n`,
      );
    }
    // The AI gateway's audit records, and every chain a family keeps beside the ledger (GET /ops sources): each a chain of its own per org.
    allOk = sideChain(out, org.slug, 'AI audit', await verifyAuditChain(db, org.org_id)) && allOk;
    for (const { value } of DEPLOYED.contributions('opsSources')) allOk = sideChain(out, org.slug, value.label, await value.verify(db, org.org_id)) && allOk;
  }
  return allOk;
}

function sideChain(out: NodeJS.WritableStream, slug: string, label: string, v: ChainVerdict): boolean {
  if (v.ok) out.write(`ok     ${slug} (${label}): ${v.count} records verified, head seq ${v.head.seq} ${v.head.rowHash || '(empty)'}\n`);
  else out.write(`BROKEN ${slug} (${label}): first break at seq ${v.break.seq} (${v.break.kind}): ${v.break.message}; ${v.count} records verified before it\n`);
  return v.ok;
}
