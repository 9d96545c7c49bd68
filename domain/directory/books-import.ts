import { one, type Queryable } from '../../db/types.js';
import { appendEvent } from '../../ledger/append.js';
import type { StartupStep } from '../core/startup.js';
import { proposePair } from './merge-propose.js';
import { tryEmail } from './normalise.js';
import type { FamilySet } from '../core/family.js';

/*
 * The first start after migration 034 (books contacts became organisation parties): for each org that had
 * contacts, recompute the imported email keys with the application's normalisers (SQL only lower-cased them),
 * propose merging the contacts that share an ABN or an email key (the oldest of each group survives; a person
 * decides), and append one directory.books.import event with the system actor and counts only. The org's row in
 * directory_books_imports is marked with the event's seq in the same transaction: done once, whoever starts.
 */

interface Imported {
  party_id: string;
}

async function importOrg(families: FamilySet, q: Queryable, orgId: string): Promise<boolean> {
  const [pending] = await q.query<{ contacts: number }>(
    'SELECT contacts FROM directory_books_imports WHERE org_id = $1 AND appended_seq IS NULL FOR UPDATE SKIP LOCKED',
    [orgId],
  );
  if (!pending) return false;
  const parties = (
    await q.query<Imported>(`SELECT party_id FROM directory_parties WHERE org_id = $1 AND origin = 'import' AND kind = 'org' ORDER BY created_at, party_id`, [
      orgId,
    ])
  ).map((p) => p.party_id);
  const channels = await q.query<{ channel_id: string; value: string; key: string; domain: string | null }>(
    `SELECT channel_id, value, key, domain FROM directory_channels
      WHERE org_id = $1 AND source = 'import' AND kind = 'email' AND party_id = ANY($2::text[]) ORDER BY channel_id`,
    [orgId, parties],
  );
  let recomputed = 0;
  for (const ch of channels) {
    const k = tryEmail(ch.value);
    if (!k || (k.key === ch.key && k.domain === ch.domain)) continue;
    await q.query('UPDATE directory_channels SET key = $3, domain = $4 WHERE org_id = $1 AND channel_id = $2', [orgId, ch.channel_id, k.key, k.domain]);
    recomputed += 1;
  }
  const { identifiers } = one(
    await q.query<{ identifiers: number }>('SELECT count(*)::int AS identifiers FROM directory_identifiers WHERE org_id = $1 AND party_id = ANY($2::text[])', [
      orgId,
      parties,
    ]),
  );
  // Groups of imported parties sharing an ABN or an email key, each listed oldest first.
  const groups = await q.query<{ members: string[] }>(
    `SELECT array_agg(x.party_id ORDER BY p.created_at, p.party_id) AS members
       FROM (SELECT party_id, 'abn:' || value AS shared FROM directory_identifiers WHERE org_id = $1 AND scheme = 'abn' AND party_id = ANY($2::text[])
             UNION
             SELECT party_id, 'email:' || key FROM directory_channels WHERE org_id = $1 AND kind = 'email' AND status = 'active' AND party_id = ANY($2::text[])) x
       JOIN directory_parties p ON p.org_id = $1 AND p.party_id = x.party_id
      GROUP BY x.shared HAVING count(DISTINCT x.party_id) > 1 ORDER BY min(p.created_at), x.shared`,
    [orgId, parties],
  );
  let merges = 0;
  for (const { members } of groups) {
    const [survivor, ...others] = [...new Set(members)];
    for (const merged of others) {
      const { changed } = await proposePair(families, q, orgId, { survivorId: survivor, mergedId: merged, fieldChoices: {}, proposedBy: '' });
      if (changed) merges += 1;
    }
  }
  const event = await appendEvent(q, orgId, {
    family: 'directory',
    kind: 'directory.books.import',
    entityId: orgId,
    actor: '',
    payload: {
      contacts: Number(pending.contacts),
      parties: parties.length,
      identifiers,
      channels: channels.length,
      keysRecomputed: recomputed,
      merges,
      by: 'system',
    },
  });
  await q.query('UPDATE directory_books_imports SET appended_seq = $2 WHERE org_id = $1', [orgId, event.seq]);
  return true;
}

export const importBooksContacts: StartupStep = {
  name: 'directory.import.books',
  async run(deps) {
    const pending = await deps.db.query<{ org_id: string }>('SELECT org_id FROM directory_books_imports WHERE appended_seq IS NULL ORDER BY org_id');
    let done = 0;
    for (const { org_id } of pending) if (await deps.db.tx((q) => importOrg(deps.families, q, org_id))) done += 1;
    return done;
  },
};
