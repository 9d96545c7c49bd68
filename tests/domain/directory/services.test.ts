import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireWritableParty, resolveChannel, resolveParty, touchAwareness } from '../../../domain/directory/index.js';
import { partySearch } from '../../../domain/directory/search.js';
import { partyRefs } from '../../../domain/directory/refs.js';
import { FamilySet, type Family } from '../../../domain/core/family.js';
import { DEPLOYED } from '../../../domain/deployed.js';
import { ApiError } from '../../../protocol/errors.js';
import { one } from '../../../db/types.js';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { head, ok } from '../../helpers/calls.js';
import { markMerged, newOrg, newPerson } from './kit.js';

/** What other families call (resolveParty, resolveChannel, touchAwareness, requireWritableParty, partyRefs) and the SQL underneath. */

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

const tx = <T>(fn: (q: Parameters<Parameters<TestServer['runtime']['db']['tx']>[0]>[0]) => Promise<T>) => s.runtime.db.tx(fn);
const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(ApiError);
  return `${(e as ApiError).code} ${(e as ApiError).message}`;
};

describe('resolveParty and requireWritableParty', () => {
  it('follow a chain of merges to the survivor; writing to a merged id is a CONFLICT naming it', async () => {
    const a = await newPerson(s.client, { given: 'Chain', family: 'A' });
    const b = await newPerson(s.client, { given: 'Chain', family: 'B' });
    const c = await newPerson(s.client, { given: 'Chain', family: 'C', doNotContact: true });
    await markMerged(s, a.id, b.id);
    await markMerged(s, b.id, c.id);
    expect(await tx((q) => resolveParty(q, s.org.orgId, a.id))).toEqual({
      partyId: c.id,
      kind: 'person',
      status: 'active',
      displayName: 'Chain C',
      doNotContact: true,
      mergedFrom: a.id,
    });
    expect((await tx((q) => resolveParty(q, s.org.orgId, c.id))).mergedFrom).toBeNull();
    expect(await refusal(tx((q) => resolveParty(q, s.org.orgId, 'co_nothing')))).toBe('NOT_FOUND organisation co_nothing not found');
    expect(await refusal(tx((q) => requireWritableParty(q, s.org.orgId, a.id)))).toBe(
      `CONFLICT person ${a.id} was merged into ${b.id}; write to ${c.id} instead`,
    );
    expect(await refusal(tx((q) => requireWritableParty(q, s.org.orgId, b.id)))).toBe(
      `CONFLICT person ${b.id} was merged into ${c.id}; write to ${c.id} instead`,
    );
    expect((await tx((q) => requireWritableParty(q, s.org.orgId, c.id))).party_id).toBe(c.id);
  });
});

describe('resolveChannel', () => {
  it('finds the holder of an address or number by its key: active people before organisations; doNotContact carried', async () => {
    const co = await newOrg(s.client, { name: 'Resolve Co', channels: [{ kind: 'email', value: 'hello@resolve.example' }] });
    const p = await newPerson(s.client, {
      given: 'Res',
      doNotContact: true,
      channels: [
        { kind: 'email', value: 'hello@resolve.example' },
        { kind: 'phone', value: '0412 345 501' },
      ],
    });
    const byEmail = await tx((q) => resolveChannel(q, s.org.orgId, { kind: 'email', value: 'HELLO@Resolve.example' }));
    expect(byEmail).toMatchObject({
      partyId: p.id,
      partyKind: 'person',
      partyStatus: 'active',
      kind: 'email',
      key: 'hello@resolve.example',
      doNotContact: true,
    });
    expect((await tx((q) => resolveChannel(q, s.org.orgId, { kind: 'phone', value: '+61412345501' })))?.partyId).toBe(p.id);
    await ok(s.client, 'directory.archivePerson', { personId: p.id });
    expect((await tx((q) => resolveChannel(q, s.org.orgId, { kind: 'email', value: 'hello@resolve.example' })))?.partyId).toBe(co.id);
    expect(await tx((q) => resolveChannel(q, s.org.orgId, { kind: 'email', value: 'nobody@resolve.example' }))).toBeNull();
    expect(await tx((q) => resolveChannel(q, s.org.orgId, { kind: 'phone', value: 'not a number' }))).toBeNull();
  });
});

describe('touchAwareness', () => {
  it('records interactions and lifts an unset level to knows_of; a declared level (even cleared) stays; merged ids followed', async () => {
    const p = await newPerson(s.client, { given: 'Aware' });
    const member = (await s.client.mint({ tier: 'member' }, 'aware')).principal.id;
    const seq = await head(s.client);
    const id = await tx((q) => touchAwareness(q, s.org.orgId, { partyId: p.id, principalId: member, at: '2026-01-02T03:04:05.000Z' }));
    expect(id).toMatch(/^awr_/);
    await tx((q) => touchAwareness(q, s.org.orgId, { partyId: p.id, principalId: member, at: '2025-01-01T00:00:00.000Z' }));
    expect(await head(s.client)).toBe(seq); // the caller's own event is the record
    const detail = (await ok(s.client, 'directory.getPerson', { personId: p.id })).person;
    expect(detail.awareness).toEqual([{ id, principalId: member, level: 'knows_of', lastInteractionAt: '2026-01-02T03:04:05.000Z' }]);
    const row = one(
      await s.runtime.db.query<{ interactions: number }>('SELECT interactions FROM directory_awareness WHERE org_id = $1 AND awareness_id = $2', [
        s.org.orgId,
        id,
      ]),
    );
    expect(row.interactions).toBe(2);
    await s.runtime.db.query(`UPDATE directory_awareness SET level = NULL, level_source = 'declared' WHERE org_id = $1 AND awareness_id = $2`, [
      s.org.orgId,
      id,
    ]);
    await tx((q) => touchAwareness(q, s.org.orgId, { partyId: p.id, principalId: member }));
    expect((await ok(s.client, 'directory.getPerson', { personId: p.id })).person.awareness[0].level).toBeNull();
    const survivor = await newPerson(s.client, { given: 'Aware', family: 'Survivor' });
    await markMerged(s, p.id, survivor.id);
    await tx((q) => touchAwareness(q, s.org.orgId, { partyId: p.id, principalId: member }));
    expect((await ok(s.client, 'directory.getPerson', { personId: survivor.id })).person.awareness).toMatchObject([{ principalId: member, level: 'knows_of' }]);
  });
});

describe('partyRefs', () => {
  // A family's columns are its descriptor's contribution: one per family by construction (a family listed twice is
  // refused), checked when the runtime's family set is built.
  const declaring = (name: string, table: string, column = 'party_id'): Family => ({ name, contributes: { partyRefs: { refs: [{ table, column }] } } });
  it('a family declares its party columns once; plain identifiers only; not the directory tables', () => {
    const set = DEPLOYED.with([declaring('testrefs', 'test_rows')]);
    expect(partyRefs(set).find((f) => f.family === 'testrefs')?.refs).toEqual([{ table: 'test_rows', column: 'party_id' }]);
    expect(() => set.with([declaring('testrefs', 'test_rows')])).toThrow(/listed twice/);
    expect(() => DEPLOYED.with([declaring('bad1', 'x; drop', 'y')])).toThrow(/plain identifier/);
    expect(() => DEPLOYED.with([declaring('bad2', 'directory_channels')])).toThrow(/directory's own/);
    expect(() => new FamilySet([declaring('alone', 'test_rows')])).not.toThrow();
  });
});

describe('dir_fold and the search columns', () => {
  it('folds accents, case, punctuation, honorifics and legal forms; a name of such words only folds to itself', async () => {
    const folds = await s.runtime.db.query<{ input: string; fold: string }>(`SELECT x AS input, dir_fold(x) AS fold FROM unnest($1::text[]) AS x`, [
      [
        'Dr. José Álvarez',
        'ACME Pty. Ltd.',
        'Acme Limited',
        "O'Brien & Sons GmbH",
        'Mrs  Jane   Doe-Smith',
        'The Ltd',
        'Société Générale S.A.',
        '株式会社 日本',
      ],
    ]);
    expect(Object.fromEntries(folds.map((f) => [f.input, f.fold]))).toEqual({
      'Dr. José Álvarez': 'jose alvarez',
      'ACME Pty. Ltd.': 'acme',
      'Acme Limited': 'acme',
      "O'Brien & Sons GmbH": 'obrien sons',
      'Mrs  Jane   Doe-Smith': 'jane doe smith',
      'The Ltd': 'the ltd',
      'Société Générale S.A.': 'societe generale',
      '株式会社 日本': '株式会社 日本',
    });
  });

  it('the stored search columns are what the declaration says; the indexes serve equal names and trigrams', async () => {
    await newOrg(s.client, { name: 'Columns Check Pty Ltd', aliases: ['Old Columns'], tags: ['x'], website: 'columns.example.com' });
    await newPerson(s.client, { given: 'Col', family: 'Umns', title: 'Checker', tags: ['y'] });
    const differ = one(
      await s.runtime.db.query<{ n: number; total: number }>(
        `SELECT count(*) FILTER (WHERE search_doc IS DISTINCT FROM ${partySearch.columns.search_doc} OR search_fuzzy IS DISTINCT FROM ${partySearch.columns.search_fuzzy})::int AS n,
              count(*)::int AS total
         FROM directory_parties WHERE org_id = $1`,
        [s.org.orgId],
      ),
    );
    expect(differ).toEqual({ n: 0, total: expect.any(Number) });
    expect(differ.total).toBeGreaterThan(5);
    const plan = await s.runtime.db.tx(async (q) => {
      await q.query('SET LOCAL enable_seqscan = off');
      const explain = async (sql: string, params: unknown[]) =>
        (await q.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, params)).map((r) => r['QUERY PLAN']).join('\n');
      return {
        equal: await explain(`SELECT party_id FROM directory_parties WHERE org_id = $1 AND kind = 'org' AND name_fold = dir_fold($2)`, [
          s.org.orgId,
          'Acme Ltd',
        ]),
        // With no other path (the org's btree could serve org_id alone), the trigram condition is an index scan.
        trigram: await explain(`SELECT party_id FROM directory_parties WHERE search_fuzzy % dir_fold($1)`, ['acme']),
      };
    });
    expect(plan.equal).toContain('directory_parties_fold');
    expect(plan.trigram).toContain('directory_parties_search_fuzzy');
  });
});
