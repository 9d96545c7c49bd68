import { directory as c } from '../../protocol/methods/directory/index.js';
import { decodeCursor, encodeCursor, timeAndId } from '../core/cursor.js';
import { MAX_EVIDENCE, SOURCE_PREFIX, type SOURCES } from '../../protocol/methods/directory/captures.js';
import { badRequest, conflict, notFound } from '../../protocol/errors.js';
import { one, type Queryable } from '../../db/types.js';
import type { HandlerCtx } from '../core/handler.js';
import { handler } from '../core/handler.js';
import { newId } from '../core/ids.js';
import {
  addChannels,
  applyToParty,
  bestMatch,
  checkFields,
  disagrees,
  employerFor,
  employersNamed,
  exactHolder,
  identityOf,
  linkEmployer,
  nameOf,
  normaliseProposal,
  type CapturedChannel,
  type CaptureFields,
  type Proposal,
} from './capture-match.js';
import { lockKeys } from './channel-store.js';
import type { Candidate } from './dedupe.js';
import { Params } from './filters.js';
import { getPartyRow, kindOf, noun, requireWritableParty, resolveParty, toParty, type PartyKind } from './model.js';

/*
 * directory.proposeCapture, resolveCapture, listCaptures. A proposal is checked in order, under its identity's
 * lock: a rejected identity stays rejected; a waiting capture of that identity absorbs it (one more sighting); a
 * party holding its email outright, contradicted in nothing, takes it by rule (blanks filled, channels added);
 * else it waits, with its best candidate, for a member other than its proposer. Resolving erases the snippets.
 * Events carry ids, counts, scores and field names: never names, channel values or snippets.
 */

type Source = (typeof SOURCES)[number];
interface Evidence {
  source: Source;
  ref: string;
  snippet: string | null;
}

interface CaptureRow {
  capture_id: string;
  kind: PartyKind;
  fields: CaptureFields | string;
  channels: CapturedChannel[] | string;
  employer_name: string | null;
  evidence: Evidence[] | string;
  identity: string;
  match_party_id: string | null;
  match_score: number | null;
  match_reasons: Candidate['reasons'] | string;
  sightings: number;
  status: 'pending' | 'accepted' | 'rejected';
  resolution: 'created' | 'attached' | null;
  party_id: string | null;
  proposed_by: string;
  resolved_by: string | null;
  created_at: string;
  updated_at: string;
  resolved_at: string | null;
  sort?: string;
}

const COLUMNS = `capture_id, kind, fields, channels, employer_name, evidence, identity, match_party_id, match_score, match_reasons, sightings, status,
  resolution, party_id, proposed_by, resolved_by, created_at, updated_at, resolved_at`;

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
const iso = (v: string | null) => (v ? new Date(v).toISOString() : null);

const toCapture = (r: CaptureRow) => ({
  id: r.capture_id,
  kind: r.kind,
  fields: json(r.fields) as Record<string, string>,
  channels: json(r.channels).map((ch) => ({ kind: ch.kind, service: ch.service, value: ch.value, key: ch.key, label: ch.label })),
  employerName: r.employer_name,
  evidence: json(r.evidence),
  match: r.match_party_id ? { partyId: r.match_party_id, score: Number(r.match_score), reasons: json(r.match_reasons) } : null,
  sightings: Number(r.sightings),
  status: r.status,
  resolution: r.resolution,
  partyId: r.party_id,
  proposedBy: r.proposed_by,
  resolvedBy: r.resolved_by,
  createdAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
  resolvedAt: iso(r.resolved_at),
});

/** The proposal a stored capture makes. */
function proposalOf(r: CaptureRow): Proposal {
  const fields = json(r.fields);
  return { kind: r.kind, fields, channels: json(r.channels), employerName: r.employer_name, domain: checkFields(r.kind, fields, 'capture.fields').domain };
}

async function getCapture(q: Queryable, orgId: string, captureId: string, lock = false): Promise<CaptureRow> {
  const [row] = await q.query<CaptureRow>(`SELECT ${COLUMNS} FROM directory_captures WHERE org_id = $1 AND capture_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [
    orgId,
    captureId,
  ]);
  if (!row) throw notFound(`capture ${captureId}`);
  return row;
}

/** Evidence as stored: each cited record once (the last snippet given for it), its source matching its id. */
function checkEvidence(given: readonly { source: Source; ref: string; snippet?: string }[]): Evidence[] {
  const out = new Map<string, Evidence>();
  for (const [i, e] of given.entries()) {
    const prefix = SOURCE_PREFIX[e.source];
    if (!e.ref.startsWith(`${prefix}_`))
      throw badRequest(`evidence.${i}.ref`, `${e.source === 'email' ? 'an' : 'a'} ${e.source} is cited by its ${prefix}_ id`);
    out.delete(e.ref);
    out.set(e.ref, { source: e.source, ref: e.ref, snippet: e.snippet?.trim() || null });
  }
  return [...out.values()];
}

const erased = (evidence: readonly Evidence[]): Evidence[] => evidence.map((e) => ({ source: e.source, ref: e.ref, snippet: null }));

const matchColumns = (m: Candidate | null) => [m?.partyId ?? null, m?.score ?? null, JSON.stringify(m?.reasons ?? [])];

export const proposeCapture = handler(c.proposeCapture, async (ctx, p) => {
  const proposal = normaliseProposal(p);
  const evidence = checkEvidence(p.evidence);
  const identity = await identityOf(ctx.q, proposal);
  await lockKeys(ctx.q, ctx.orgId, [`capture:${identity}`]);
  const base = { kind: proposal.kind, fields: Object.keys(proposal.fields).sort(), channels: proposal.channels.length, evidence: evidence.length };

  const [rejected] = await ctx.q.query<CaptureRow>(
    `SELECT ${COLUMNS} FROM directory_captures WHERE org_id = $1 AND identity = $2 AND status = 'rejected' ORDER BY resolved_at DESC, capture_id LIMIT 1`,
    [ctx.orgId, identity],
  );
  if (rejected) {
    await ctx.emit('directory.capture.propose', rejected.capture_id, { captureId: rejected.capture_id, ...base, outcome: 'rejected', noop: true });
    return { capture: toCapture(rejected), outcome: 'rejected' as const, changed: false };
  }

  const [pending] = await ctx.q.query<CaptureRow>(
    `SELECT ${COLUMNS} FROM directory_captures WHERE org_id = $1 AND identity = $2 AND status = 'pending' FOR UPDATE`,
    [ctx.orgId, identity],
  );
  if (pending) {
    // What was seen before stands; this sighting fills its blanks and adds its channels and evidence.
    const before = proposalOf(pending);
    const merged: Proposal = {
      ...before,
      fields: { ...proposal.fields, ...before.fields },
      channels: [...before.channels, ...proposal.channels.filter((n) => !before.channels.some((b) => b.kind === n.kind && b.key === n.key))],
      employerName: before.employerName ?? proposal.employerName,
      domain: before.domain ?? proposal.domain,
    };
    const cited = json(pending.evidence);
    const allEvidence = [...cited.filter((e) => !evidence.some((n) => n.ref === e.ref)), ...evidence].slice(-MAX_EVIDENCE);
    const match = await bestMatch(ctx.q, ctx.orgId, merged);
    const row = one(
      await ctx.q.query<CaptureRow>(
        `UPDATE directory_captures SET fields = $3::jsonb, channels = $4::jsonb, employer_name = $5, evidence = $6::jsonb, match_party_id = $7, match_score = $8,
              match_reasons = $9::jsonb, sightings = sightings + 1, updated_at = now()
        WHERE org_id = $1 AND capture_id = $2 RETURNING ${COLUMNS}`,
        [
          ctx.orgId,
          pending.capture_id,
          JSON.stringify(merged.fields),
          JSON.stringify(merged.channels),
          merged.employerName,
          JSON.stringify(allEvidence),
          ...matchColumns(match),
        ],
      ),
    );
    await ctx.emit('directory.capture.propose', row.capture_id, {
      captureId: row.capture_id,
      ...base,
      outcome: 'absorbed',
      sightings: Number(row.sightings),
      match: match ? { partyId: match.partyId, score: match.score } : null,
    });
    return { capture: toCapture(row), outcome: 'absorbed' as const, changed: true };
  }

  const captureId = newId('cap');
  const match = await bestMatch(ctx.q, ctx.orgId, proposal);
  const holder = await exactHolder(ctx.q, ctx.orgId, proposal);
  if (holder) {
    const party = await requireWritableParty(ctx.q, ctx.orgId, holder);
    if (!(await disagrees(ctx.q, ctx.orgId, party, proposal))) {
      // A person without an employer gets the one organisation the proposal names; one already linked keeps its own.
      const named =
        proposal.kind === 'person' && proposal.employerName && party.employer_id === null
          ? await employersNamed(ctx.q, ctx.orgId, proposal.employerName, proposal)
          : [];
      const applied = await applyToParty(ctx, party, proposal, { fields: {}, domain: null }, named.length === 1 ? named[0] : null);
      const row = one(
        await ctx.q.query<CaptureRow>(
          `INSERT INTO directory_captures (org_id, capture_id, kind, fields, channels, employer_name, evidence, identity, match_party_id, match_score, match_reasons,
           status, resolution, party_id, proposed_by, resolved_by, resolved_at)
         VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7::jsonb, $8, $9, $10, $11::jsonb, 'accepted', 'attached', $12, $13, 'rule', now()) RETURNING ${COLUMNS}`,
          [
            ctx.orgId,
            captureId,
            proposal.kind,
            JSON.stringify(proposal.fields),
            JSON.stringify(proposal.channels),
            proposal.employerName,
            JSON.stringify(erased(evidence)),
            identity,
            ...matchColumns(match),
            holder,
            ctx.principal.id,
          ],
        ),
      );
      await ctx.emit('directory.capture.propose', captureId, {
        captureId,
        ...base,
        outcome: 'attached',
        partyId: holder,
        written: applied.fields,
        channelsAdded: applied.channels,
        employerId: applied.employerId,
      });
      return { capture: toCapture(row), outcome: 'attached' as const, changed: true };
    }
  }
  const row = one(
    await ctx.q.query<CaptureRow>(
      `INSERT INTO directory_captures (org_id, capture_id, kind, fields, channels, employer_name, evidence, identity, match_party_id, match_score, match_reasons, proposed_by)
     VALUES ($1, $2, $3, $4::jsonb, $5::jsonb, $6, $7::jsonb, $8, $9, $10, $11::jsonb, $12) RETURNING ${COLUMNS}`,
      [
        ctx.orgId,
        captureId,
        proposal.kind,
        JSON.stringify(proposal.fields),
        JSON.stringify(proposal.channels),
        proposal.employerName,
        JSON.stringify(evidence),
        identity,
        ...matchColumns(match),
        ctx.principal.id,
      ],
    ),
  );
  await ctx.emit('directory.capture.propose', captureId, {
    captureId,
    ...base,
    outcome: 'pending',
    sightings: 1,
    match: match ? { partyId: match.partyId, score: match.score } : null,
  });
  return { capture: toCapture(row), outcome: 'pending' as const, changed: true };
});

/** A new party from a capture (origin capture): its fields, channels and employer. */
async function createFrom(ctx: HandlerCtx, p: Proposal, employerId: string | null): Promise<{ partyId: string; channels: number }> {
  const name = nameOf(p.kind, p.fields);
  if (!name)
    throw badRequest(
      `fields.${p.kind === 'person' ? 'given' : 'name'}`,
      `the capture names no ${noun(p.kind)}; give ${p.kind === 'person' ? 'given or displayName' : 'name'}`,
    );
  const f = p.fields;
  const partyId = newId(p.kind === 'person' ? 'per' : 'co');
  await ctx.q.query(
    `INSERT INTO directory_parties (org_id, party_id, kind, display_name, given_name, family_name, title, legal_name, website, domain, country, origin, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, 'capture', $12)`,
    [
      ctx.orgId,
      partyId,
      p.kind,
      name,
      f.given ?? null,
      f.family ?? null,
      f.title ?? null,
      f.legalName ?? null,
      f.website ?? null,
      p.kind === 'org' ? p.domain : null,
      f.country ?? null,
      ctx.principal.id,
    ],
  );
  const row = await getPartyRow(ctx.q, ctx.orgId, partyId, true);
  const channels = await addChannels(ctx, row, p.channels);
  if (employerId) await linkEmployer(ctx, partyId, employerId);
  return { partyId, channels };
}

/** The party a capture became, as it stands now (a merged one as its survivor). */
async function partyNow(q: Queryable, orgId: string, partyId: string | null) {
  return partyId ? toParty(await getPartyRow(q, orgId, (await resolveParty(q, orgId, partyId)).partyId)) : null;
}

/** The party to attach to: the one named (written to, so a merged id is a CONFLICT), else the match (followed). */
async function attachTarget(ctx: HandlerCtx, row: CaptureRow, partyId: string | undefined) {
  const id = partyId ?? (row.match_party_id ? (await resolveParty(ctx.q, ctx.orgId, row.match_party_id)).partyId : null);
  if (!id) throw badRequest('partyId', 'required: the capture matched no party');
  if (kindOf(id) !== row.kind)
    throw badRequest(
      'partyId',
      `a ${row.kind === 'org' ? 'organisation' : 'person'} capture attaches to ${row.kind === 'org' ? 'an organisation (co_…)' : 'a person (per_…)'}`,
    );
  return requireWritableParty(ctx.q, ctx.orgId, id);
}

export const resolveCapture = handler(c.resolveCapture, async (ctx, p) => {
  const row = await getCapture(ctx.q, ctx.orgId, p.captureId, true);
  if (row.proposed_by === ctx.principal.id) throw conflict(`capture ${row.capture_id} was proposed by you (${row.proposed_by}); another member decides it`);
  const outcome = { create: 'created', attach: 'attached', reject: null } as const;
  if (row.status !== 'pending') {
    const same =
      (row.status === 'rejected' && p.decision === 'reject') ||
      (row.status === 'accepted' && row.resolution === outcome[p.decision] && (p.partyId === undefined || p.partyId === row.party_id));
    if (!same) {
      throw conflict(
        row.status === 'rejected'
          ? `capture ${row.capture_id} is rejected and its identity stays suppressed; add the party yourself (directory.create${row.kind === 'org' ? 'Org' : 'Person'}) if it is wanted`
          : `capture ${row.capture_id} is already ${row.resolution} as ${row.party_id}; change that party instead (directory.update${row.kind === 'org' ? 'Org' : 'Person'})`,
      );
    }
    const party = await partyNow(ctx.q, ctx.orgId, row.party_id);
    await ctx.emit('directory.capture.resolve', row.capture_id, {
      captureId: row.capture_id,
      decision: p.decision,
      status: row.status,
      partyId: row.party_id,
      noop: true,
    });
    return { capture: toCapture(row), party, changed: false };
  }
  const corrections = p.fields ? checkFields(row.kind, p.fields, 'fields') : { fields: {}, domain: null };
  const proposal = proposalOf(row);
  const evidence = erased(json(row.evidence));
  let partyId: string | null = null;
  let written: string[] = [];
  let channels = 0;
  let employerId: string | null = null;
  const fields = { ...proposal.fields, ...corrections.fields };
  if (p.decision === 'create') {
    const corrected: Proposal = { ...proposal, fields, domain: corrections.fields.website !== undefined ? corrections.domain : proposal.domain };
    employerId = await employerFor(ctx, corrected, p.employerId);
    ({ partyId, channels } = await createFrom(ctx, corrected, employerId));
    written = Object.keys(fields).sort();
  } else if (p.decision === 'attach') {
    const party = await attachTarget(ctx, row, p.partyId);
    // An employer named by the capture only when the person has none yet; one given by the member in any case.
    const employer = p.employerId !== undefined || party.employer_id === null ? await employerFor(ctx, proposal, p.employerId) : null;
    const applied = await applyToParty(ctx, party, proposal, corrections, employer);
    partyId = party.party_id;
    ({ fields: written, channels, employerId } = applied);
  } else if (p.partyId !== undefined || p.employerId !== undefined) {
    throw badRequest(p.partyId !== undefined ? 'partyId' : 'employerId', 'only for create or attach');
  }
  const status = p.decision === 'reject' ? 'rejected' : 'accepted';
  const updated = one(
    await ctx.q.query<CaptureRow>(
      `UPDATE directory_captures SET status = $3, resolution = $4, party_id = $5, fields = $6::jsonb, evidence = $7::jsonb, resolved_by = $8, resolved_at = now(),
            updated_at = now()
      WHERE org_id = $1 AND capture_id = $2 RETURNING ${COLUMNS}`,
      [ctx.orgId, row.capture_id, status, outcome[p.decision], partyId, JSON.stringify(fields), JSON.stringify(evidence), ctx.principal.id],
    ),
  );
  const party = await partyNow(ctx.q, ctx.orgId, partyId);
  await ctx.emit('directory.capture.resolve', row.capture_id, {
    captureId: row.capture_id,
    decision: p.decision,
    status,
    partyId,
    written,
    channelsAdded: channels,
    employerId,
    corrected: Object.keys(corrections.fields).sort(),
  });
  return { capture: toCapture(updated), party, changed: true };
});

export const listCaptures = handler(c.listCaptures, async (ctx, p) => {
  const params = new Params([ctx.orgId]);
  const where = ['org_id = $1'];
  if (p.status !== 'all') where.push(`status = ${params.push(p.status)}`);
  if (p.cursor !== undefined) {
    const [at, id] = decodeCursor<[string, string]>(p.cursor, 'cursor', timeAndId);
    where.push(`(created_at, capture_id) > (${params.push(at, '::timestamptz')}, ${params.push(id, '::text')})`);
  }
  const rows = await ctx.q.query<CaptureRow>(
    `SELECT ${COLUMNS}, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS sort FROM directory_captures
      WHERE ${where.join(' AND ')} ORDER BY created_at, capture_id LIMIT ${params.push(p.limit + 1)}`,
    params.values,
  );
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return { captures: page.map(toCapture), nextCursor: rows.length > p.limit && last ? encodeCursor([last.sort!, last.capture_id]) : null };
});
