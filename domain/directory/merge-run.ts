import { one, type Queryable } from '../../db/types.js';
import { activeChannels } from './channel-store.js';
import { mergedColumns, type Choices } from './merge-fields.js';
import { ChangeWriter } from './merge-log.js';
import { bumpParty, getPartyRow, type PartyKind } from './model.js';
import { partyRefs } from './refs.js';
import { rolesOf } from './roles.js';
import { refreshEmployerName, refreshEmployers } from './terms.js';
import type { FamilySet } from '../core/family.js';

/*
 * Executing a merge: every write through the merge's ChangeWriter, so revertMerge can undo it exactly. Touches
 * only the pair's rows and the rows pointing at the merged party. Derived columns (a person's employer, versions)
 * are recomputed, not logged: a revert recomputes them again.
 */

export interface MergeInput {
  mergeId: string;
  survivorId: string;
  mergedId: string;
  fieldChoices: Choices;
}

export const ZERO_COUNTS = {
  fields: 0,
  channels: 0,
  duplicateChannels: 0,
  identifiers: 0,
  links: 0,
  endedLinks: 0,
  lists: 0,
  awareness: 0,
  requests: 0,
  captures: 0,
  references: 0,
  changes: 0,
};
export type MergeCounts = typeof ZERO_COUNTS;

export interface MergeOutcome {
  counts: MergeCounts;
  roles: { family: string; role: string; refId: string | null }[];
  references: { family: string; rows: number }[];
}

const RANK = ['knows_of', 'met', 'works_with', 'close'];
const PARTIES = 'directory_parties';
const CHANNELS = 'directory_channels';
const LINKS = 'directory_links';
const AWARENESS = 'directory_awareness';

export async function runMerge(families: FamilySet, q: Queryable, orgId: string, m: MergeInput): Promise<MergeOutcome> {
  const log = new ChangeWriter(q, orgId, m.mergeId);
  const S = m.survivorId;
  const L = m.mergedId;
  const s = await getPartyRow(q, orgId, S, true);
  const l = await getPartyRow(q, orgId, L, true);
  const counts = { ...ZERO_COUNTS };
  const roles = (await rolesOf(families, q, orgId, [L])).get(L) ?? [];
  const { now } = one(await q.query<{ now: string }>(`SELECT to_jsonb(now()) #>> '{}' AS now`));

  counts.fields = (await log.update(PARTIES, { party_id: S }, mergedColumns(s, l, m.fieldChoices))).length;

  // Registry numbers: the survivor's stay (or the merged one's win, by choice); schemes it lacks move over.
  const ids = await q.query<{ party_id: string; scheme: string; value: string }>(
    'SELECT party_id, scheme, value FROM directory_identifiers WHERE org_id = $1 AND party_id = ANY($2::text[]) ORDER BY scheme',
    [orgId, [S, L]],
  );
  for (const id of ids.filter((i) => i.party_id === L)) {
    const mine = ids.find((i) => i.party_id === S && i.scheme === id.scheme);
    if (!mine) await log.move('directory_identifiers', { party_id: L, scheme: id.scheme }, { party_id: S });
    else if (m.fieldChoices.identifiers === 'merged' && mine.value !== id.value)
      await log.update('directory_identifiers', { party_id: S, scheme: id.scheme }, { value: id.value });
    else continue;
    counts.identifiers += 1;
  }

  await moveChannels(log, q, orgId, S, L, m.fieldChoices, counts);
  const linkIds = await moveLinks(log, q, orgId, S, L, now, counts);

  // Lists: the survivor takes the merged party's places (where it is not a member already).
  const members = await q.query<{ list_id: string; held: boolean }>(
    `SELECT m.list_id, EXISTS (SELECT 1 FROM directory_list_members x WHERE x.org_id = m.org_id AND x.list_id = m.list_id AND x.party_id = $3) AS held
       FROM directory_list_members m WHERE m.org_id = $1 AND m.party_id = $2 ORDER BY m.list_id`,
    [orgId, L, S],
  );
  for (const mem of members) {
    if (mem.held) await log.delete('directory_list_members', { list_id: mem.list_id, party_id: L });
    else {
      await log.move('directory_list_members', { list_id: mem.list_id, party_id: L }, { party_id: S });
      counts.lists += 1;
    }
  }

  await moveAwareness(log, q, orgId, S, L, counts);

  for (const r of await q.query<{ request_id: string }>(
    'SELECT request_id FROM directory_awareness_requests WHERE org_id = $1 AND party_id = $2 ORDER BY request_id',
    [orgId, L],
  )) {
    await log.update('directory_awareness_requests', { request_id: r.request_id }, { party_id: S });
    counts.requests += 1;
  }
  const captures = await q.query<{ capture_id: string; matched: boolean; made: boolean }>(
    `SELECT capture_id, match_party_id = $2 AS matched, party_id = $2 AS made FROM directory_captures
      WHERE org_id = $1 AND (match_party_id = $2 OR party_id = $2) ORDER BY capture_id`,
    [orgId, L],
  );
  for (const c of captures) {
    await log.update('directory_captures', { capture_id: c.capture_id }, { ...(c.matched ? { match_party_id: S } : {}), ...(c.made ? { party_id: S } : {}) });
    counts.captures += 1;
  }

  // Every family's declared references, then their hooks (one mechanism: the same log).
  const references: MergeOutcome['references'] = [];
  for (const fam of partyRefs(families)) {
    const before = log.changes.length;
    for (const ref of fam.refs) await log.repoint(ref.table, ref.column, L, S);
    if (fam.hook) await fam.hook({ q, orgId, mergeId: m.mergeId, survivorId: S, mergedId: L, log });
    const rows = log.changes.length - before;
    references.push({ family: fam.family, rows });
    counts.references += rows;
  }

  await log.update(PARTIES, { party_id: L }, { status: 'merged', merged_into: S, merged_at: now });
  await refreshAround(q, orgId, [S, L], linkIds, s.kind);
  await bumpParty(q, orgId, S);
  await bumpParty(q, orgId, L);
  counts.changes = log.changes.length;
  return { counts, roles, references };
}

/** Recompute what derives from links and names (persons' employers) around the pair, after a merge or a revert. */
export async function refreshAround(q: Queryable, orgId: string, pair: readonly string[], linkIds: readonly string[], kind: PartyKind): Promise<void> {
  const persons = await q.query<{ party_id: string }>(
    `SELECT from_id AS party_id FROM directory_links WHERE org_id = $1 AND link_id = ANY($2::text[]) AND relation = 'works_at'
     UNION SELECT party_id FROM directory_parties WHERE org_id = $1 AND (employer_id = ANY($3::text[]) OR (party_id = ANY($3::text[]) AND kind = 'person'))`,
    [orgId, linkIds, pair],
  );
  await refreshEmployers(q, orgId, persons.map((p) => p.party_id).sort());
  if (kind === 'org') for (const id of pair) await refreshEmployerName(q, orgId, id);
}

async function moveChannels(log: ChangeWriter, q: Queryable, orgId: string, S: string, L: string, choices: Choices, counts: MergeCounts): Promise<void> {
  const mine = await activeChannels(q, orgId, S);
  const theirs = await activeChannels(q, orgId, L);
  const held = (c: { kind: string; key: string }) => mine.find((x) => x.kind === c.kind && x.key === c.key);
  for (const kind of ['email', 'phone', 'im'] as const) {
    const sPrimary = mine.find((c) => c.kind === kind && c.is_primary);
    const lPrimary = theirs.find((c) => c.kind === kind && c.is_primary);
    const moving = theirs.filter((c) => c.kind === kind && !held(c));
    counts.duplicateChannels += theirs.filter((c) => c.kind === kind && held(c)).length;
    // The survivor's primary stays, unless the choice is the merged party's (then its twin, if the survivor has it).
    let primary = sPrimary?.channel_id ?? null;
    if (kind !== 'im' && choices[kind] === 'merged' && lPrimary) primary = held(lPrimary)?.channel_id ?? lPrimary.channel_id;
    if (!primary && moving.length) primary = (moving.find((c) => c.is_primary) ?? moving[0]).channel_id;
    if (sPrimary && primary !== sPrimary.channel_id) await log.update(CHANNELS, { channel_id: sPrimary.channel_id }, { is_primary: false });
    for (const c of moving) {
      await log.update(CHANNELS, { channel_id: c.channel_id }, { party_id: S, is_primary: c.channel_id === primary });
      counts.channels += 1;
    }
    const twin = mine.find((c) => c.channel_id === primary && !c.is_primary);
    if (twin) await log.update(CHANNELS, { channel_id: twin.channel_id }, { is_primary: true });
  }
}

/** Repoint the merged party's active links; end those that would join the pair, repeat one, or close a cycle. */
async function moveLinks(log: ChangeWriter, q: Queryable, orgId: string, S: string, L: string, now: string, counts: MergeCounts): Promise<string[]> {
  const links = await q.query<{ link_id: string; from_id: string; to_id: string; relation: string; is_primary: boolean }>(
    `SELECT link_id, from_id, to_id, relation, is_primary FROM directory_links
      WHERE org_id = $1 AND status = 'active' AND (from_id = $2 OR to_id = $2) ORDER BY created_at, link_id`,
    [orgId, L],
  );
  for (const link of links) {
    const from = link.from_id === L ? S : link.from_id;
    const to = link.to_id === L ? S : link.to_id;
    const clash = one(
      await q.query<{ dup: boolean; loops: boolean; has_primary: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM directory_links WHERE org_id = $1 AND from_id = $2 AND relation = $3 AND to_id = $4 AND status = 'active') AS dup,
              ($3 IN ('reports_to', 'subsidiary_of') AND EXISTS (
                WITH RECURSIVE up(id) AS (
                  SELECT $4::text UNION SELECT l.to_id FROM directory_links l JOIN up ON l.from_id = up.id
                   WHERE l.org_id = $1 AND l.relation = $3 AND l.status = 'active' AND l.link_id <> $5)
                SELECT 1 FROM up WHERE id = $2)) AS loops,
              EXISTS (SELECT 1 FROM directory_links WHERE org_id = $1 AND from_id = $2 AND relation = 'works_at' AND is_primary AND link_id <> $5) AS has_primary`,
        [orgId, from, link.relation, to, link.link_id],
      ),
    );
    if (from === to || clash.dup || clash.loops) {
      await log.update(LINKS, { link_id: link.link_id }, { is_primary: false, status: 'ended', ended_at: now });
      counts.endedLinks += 1;
    } else {
      await log.update(LINKS, { link_id: link.link_id }, { from_id: from, to_id: to, is_primary: link.is_primary && !clash.has_primary });
      counts.links += 1;
    }
  }
  return links.map((l) => l.link_id);
}

/** Awareness: moved where the survivor has none for that member; else combined (higher level, latest time, sum). */
async function moveAwareness(log: ChangeWriter, q: Queryable, orgId: string, S: string, L: string, counts: MergeCounts): Promise<void> {
  const rows = await q.query<{
    awareness_id: string;
    level: string | null;
    level_source: string | null;
    interactions: number;
    last: string | null;
    mine_id: string | null;
    mine_level: string | null;
    mine_source: string | null;
    mine_interactions: number | null;
  }>(
    `SELECT a.awareness_id, a.level, a.level_source, a.interactions, to_jsonb(greatest(a.last_interaction_at, s.last_interaction_at)) #>> '{}' AS last,
            s.awareness_id AS mine_id, s.level AS mine_level, s.level_source AS mine_source, s.interactions AS mine_interactions
       FROM directory_awareness a
       LEFT JOIN directory_awareness s ON s.org_id = a.org_id AND s.party_id = $3 AND s.principal_id = a.principal_id
      WHERE a.org_id = $1 AND a.party_id = $2 ORDER BY a.principal_id`,
    [orgId, L, S],
  );
  for (const a of rows) {
    counts.awareness += 1;
    if (!a.mine_id) {
      await log.update(AWARENESS, { awareness_id: a.awareness_id }, { party_id: S });
      continue;
    }
    const theirs = RANK.indexOf(a.level ?? '');
    const mine = RANK.indexOf(a.mine_level ?? '');
    const higher = theirs > mine || (theirs === mine && a.level_source === 'declared' && a.mine_source !== 'declared');
    await log.update(
      AWARENESS,
      { awareness_id: a.mine_id },
      {
        last_interaction_at: a.last,
        interactions: Number(a.mine_interactions) + Number(a.interactions),
        ...(higher ? { level: a.level, level_source: a.level_source } : {}),
      },
    );
  }
}
