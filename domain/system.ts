import { one, type Db, type Queryable } from '../db/types.js';
import { appendEvent, type AppendedEvent } from '../ledger/append.js';
import { type CreatedOrg, type MintRequest, type MintedKey, createOrg, findOrgBySlug, mintKey, mintedKeyEvent } from './people/index.js';

/*
 * Acts of the operator (CLI, first start) rather than of an API caller. They are ledgered like calls, with
 * the system actor (empty string), so a key minted from the command line is as visible as one minted over
 * the API.
 */

/** A top-level org: its chain starts with its own `org.record.create` event. */
export async function systemCreateOrg(db: Db, p: { slug: string; name: string; adminKey?: string }): Promise<CreatedOrg & { event: AppendedEvent }> {
  return db.tx((q) => createOrgLedgered(q, p));
}

async function createOrgLedgered(q: Queryable, p: { slug: string; name: string; adminKey?: string }): Promise<CreatedOrg & { event: AppendedEvent }> {
  const created = await createOrg(q, { ...p, parentOrgId: null, createdBy: '' });
  const event = await appendEvent(q, created.orgId, {
    family: 'org',
    kind: 'org.record.create',
    entityId: created.orgId,
    actor: '',
    payload: { orgId: created.orgId, slug: created.slug, adminKeyId: created.admin.keyId, by: 'system' },
  });
  return { ...created, event };
}

/** Any constant: serialises the first start of several processes on one empty database. */
const BOOTSTRAP_LOCK = 7_311_002;

export async function systemMintKey(db: Db, slug: string, req: Omit<MintRequest, 'createdBy'>): Promise<MintedKey> {
  return db.tx(async (q) => {
    const org = await findOrgBySlug(q, slug);
    if (!org) throw new Error(`org ${slug} not found`);
    const minted = await mintKey(q, org.orgId, { ...req, createdBy: '' });
    await appendEvent(q, org.orgId, {
      family: 'org',
      kind: 'org.key.mint',
      entityId: minted.keyId,
      actor: '',
      payload: { ...mintedKeyEvent(minted), by: 'system' },
    });
    return minted;
  });
}

/**
 * On an empty database: org `default` and its admin key (BOOTSTRAP_ADMIN_KEY when given). Processes starting
 * together on one empty database take turns (an advisory lock held to commit) and only the first creates the
 * org: the others find it and return undefined, so exactly one prints the key.
 */
export async function bootstrapIfEmpty(db: Db, adminKey?: string): Promise<(CreatedOrg & { generatedKey: boolean }) | undefined> {
  const { n } = one(await db.query<{ n: number }>('SELECT count(*)::int AS n FROM orgs'));
  if (n > 0) return undefined; // the usual start: no lock taken
  return db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock($1)', [BOOTSTRAP_LOCK]);
    // Read after the lock: a process that created the org before us has committed by now.
    const { n: now } = one(await q.query<{ n: number }>('SELECT count(*)::int AS n FROM orgs'));
    if (now > 0) return undefined;
    const created = await createOrgLedgered(q, { slug: 'default', name: 'Default', adminKey });
    return { ...created, generatedKey: adminKey === undefined };
  });
}
