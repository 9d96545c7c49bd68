import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { candidatesFor, candidatesOf, scorePair, SCORES, type PartyFacts } from '../../../domain/directory/dedupe.js';
import { newId } from '../../../domain/core/ids.js';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { newOrg, newPerson } from './kit.js';
import { ok } from '../../helpers/calls.js';

/** The dedupe rule (domain/directory/dedupe.ts): each rule's score, a name alone never pairs, dismissals stick. */

let s: TestServer;
beforeAll(async () => {
  s = await testServer();
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>) => ok(s.client, method, params);
const of = (partyId: string) => s.runtime.db.tx((q) => candidatesOf(q, s.org.orgId, partyId));
const pairs = async (partyId: string) => (await of(partyId)).map((c) => [c.partyId, c.score, c.reasons]);
const proposed = (facts: Partial<PartyFacts> & Pick<PartyFacts, 'kind' | 'name'>) =>
  s.runtime.db.tx((q) =>
    candidatesFor(q, s.org.orgId, { partyId: null, emails: [], phones: [], employerIds: [], identifiers: [], domain: null, country: null, ...facts }),
  );

describe('dedupe: people', () => {
  it('scenario 3, first step: "Jon Smith" 0412 345 678 and "John Smith" +61 412 345 678 at Acme -> hint 90', async () => {
    const acme = await newOrg(s.client, { name: 'Acme Scenario Three' });
    const jon = await newPerson(s.client, { given: 'Jon', family: 'Smith', channels: [{ kind: 'phone', value: '0412 345 678' }] });
    const res = await call('directory.createPerson', {
      given: 'John',
      family: 'Smith',
      worksAt: { orgId: acme.id },
      channels: [{ kind: 'phone', value: '+61 412 345 678' }],
    });
    expect(res.possibleDuplicates).toEqual([{ partyId: jon.id, kind: 'person', displayName: 'Jon Smith', score: 90, reasons: ['same_phone'] }]);
  });

  it('same email key 100 (a proposal: two active people never share one)', async () => {
    const p = await newPerson(s.client, { given: 'Emma', family: 'Key', channels: [{ kind: 'email', value: 'emma.key@gmail.com' }] });
    const found = await proposed({ kind: 'person', name: 'Someone Else', emails: [{ key: 'emmakey@gmail.com', domain: 'gmail.com' }] });
    expect(found.map((c) => [c.partyId, c.score, c.reasons])).toEqual([[p.id, SCORES.same_email, ['same_email']]]);
    expect(SCORES.same_email).toBe(100);
  });

  it('same E.164 90 only when no organisation holds it and at most two people do', async () => {
    const a = await newPerson(s.client, { given: 'Phone', family: 'One', channels: [{ kind: 'phone', value: '0412 345 401' }] });
    const b = await newPerson(s.client, { given: 'Other', family: 'Name', channels: [{ kind: 'phone', value: '+61412345401' }] });
    expect(await pairs(a.id)).toEqual([[b.id, 90, ['same_phone']]]);
    // A third holder: a shared line says nothing.
    await newPerson(s.client, { given: 'Third', channels: [{ kind: 'phone', value: '0412345401' }] });
    expect(await pairs(a.id)).toEqual([]);
    // An organisation's number (a switchboard) pairs nobody.
    const c = await newPerson(s.client, { given: 'Desk', family: 'One', channels: [{ kind: 'phone', value: '02 9000 0402' }] });
    const d = await newPerson(s.client, { given: 'Desk', family: 'Two', channels: [{ kind: 'phone', value: '02 9000 0402' }] });
    expect(await pairs(c.id)).toEqual([[d.id, 90, ['same_phone']]]);
    await newOrg(s.client, { name: 'Switchboard Co', channels: [{ kind: 'phone', value: '(02) 9000 0402' }] });
    expect(await pairs(c.id)).toEqual([]);
  });

  it('equal names 80 with the same employer or company domain; a free-mail domain does not count', async () => {
    const co = await newOrg(s.client, { name: 'Employer Eighty' });
    const a = await newPerson(s.client, { given: 'Dr. Zoë', family: 'Quinn', worksAt: { orgId: co.id } });
    const b = await newPerson(s.client, { given: 'zoe', family: 'QUINN', worksAt: { orgId: co.id } });
    expect(await pairs(a.id)).toEqual([[b.id, 80, ['same_name_employer']]]);
    const c = await newPerson(s.client, { given: 'Yuri', family: 'Domain', channels: [{ kind: 'email', value: 'yuri@domain-eighty.com.au' }] });
    const d = await newPerson(s.client, { given: 'Yuri', family: 'Domain', channels: [{ kind: 'email', value: 'y.domain@mail.domain-eighty.com.au' }] });
    expect(await pairs(c.id)).toEqual([[d.id, 80, ['same_name_domain']]]);
    const e = await newPerson(s.client, { given: 'Fran', family: 'Free', channels: [{ kind: 'email', value: 'fran1@gmail.com' }] });
    await newPerson(s.client, { given: 'Fran', family: 'Free', channels: [{ kind: 'email', value: 'fran2@gmail.com' }] });
    expect(await pairs(e.id)).toEqual([]);
  });

  it('similar names (trigram >= 0.6) 65 with the same employer or domain, unless each holds a different address there', async () => {
    const co = await newOrg(s.client, { name: 'Similar Sixty Five', website: 'sixtyfive.example.com' });
    const a = await newPerson(s.client, { given: 'Jon', family: 'Bellamy', worksAt: { orgId: co.id } });
    const b = await newPerson(s.client, { given: 'John', family: 'Bellamy', worksAt: { orgId: co.id } });
    expect(await pairs(a.id)).toEqual([[b.id, 65, ['similar_name_employer']]]);
    // Each holds a different address at the employer's domain: two colleagues, not one person.
    const c = await newPerson(s.client, {
      given: 'Kat',
      family: 'Ferreira',
      worksAt: { orgId: co.id },
      channels: [{ kind: 'email', value: 'kat@sixtyfive.example.com' }],
    });
    const d = await newPerson(s.client, {
      given: 'Kate',
      family: 'Ferreira',
      worksAt: { orgId: co.id },
      channels: [{ kind: 'email', value: 'kate@sixtyfive.example.com' }],
    });
    expect(await pairs(c.id)).toEqual([]);
    // One without an address there still pairs with both.
    const e = await newPerson(s.client, { given: 'Katie', family: 'Ferreira', worksAt: { orgId: co.id } });
    expect((await pairs(e.id)).sort()).toEqual(
      [
        [c.id, 65, ['similar_name_employer']],
        [d.id, 65, ['similar_name_employer']],
      ].sort(),
    );
    // By domain alone two similar names always hold different addresses there (the same one is same_email): no pair.
    const f = await newPerson(s.client, { given: 'Mel', family: 'Okafor', channels: [{ kind: 'email', value: 'mel@okafor-law.example' }] });
    await newPerson(s.client, { given: 'Mell', family: 'Okafor', channels: [{ kind: 'email', value: 'mell@okafor-law.example' }] });
    expect(await pairs(f.id)).toEqual([]);
    const proposal = await proposed({ kind: 'person', name: 'Kate Ferreira', employerIds: [co.id] });
    expect(proposal.map((x) => [x.displayName, x.score]).sort()).toEqual(
      [
        ['Kat Ferreira', 65],
        ['Kate Ferreira', 80],
        ['Katie Ferreira', 65],
      ].sort(),
    );
  });

  it('a name alone never pairs; unrelated names at one employer do not either', async () => {
    const a = await newPerson(s.client, { given: 'Jane', family: 'Nameonly' });
    await newPerson(s.client, { given: 'Jane', family: 'Nameonly' });
    await newPerson(s.client, { given: 'Jane', family: 'Nameonly', title: 'Same title' });
    expect(await pairs(a.id)).toEqual([]);
    const co = await newOrg(s.client, { name: 'Big Employer' });
    const x = await newPerson(s.client, { given: 'Alan', family: 'Turing', worksAt: { orgId: co.id } });
    await newPerson(s.client, { given: 'Grace', family: 'Hopper', worksAt: { orgId: co.id } });
    expect(await pairs(x.id)).toEqual([]);
    expect(await proposed({ kind: 'person', name: 'Jane Nameonly' })).toEqual([]);
  });
});

describe('dedupe: organisations', () => {
  it('same identifier 100 (an archived holder, scored as a chosen pair); same registrable domain 95', async () => {
    const a = await newOrg(s.client, { name: 'Ident One', identifiers: { abn: '33 051 775 556' } });
    await call('directory.archiveOrg', { orgId: a.id });
    const b = await newOrg(s.client, { name: 'Ident Two', identifiers: { abn: '33051775556' } });
    expect(await s.runtime.db.tx((q) => scorePair(q, s.org.orgId, b.id, a.id))).toEqual({ score: 100, reasons: ['same_identifier'] });
    expect(await pairs(b.id)).toEqual([]); // archived parties are not candidates
    const found = await proposed({ kind: 'org', name: 'Anything', identifiers: [{ scheme: 'abn', value: '33051775556' }] });
    expect(found.map((c) => [c.partyId, c.score])).toEqual([[b.id, 100]]);
    const c = await newOrg(s.client, { name: 'Domain Org', website: 'https://www.domain-org.com.au' });
    const d = await newOrg(s.client, { name: 'Totally Different Name', website: 'shop.domain-org.com.au' });
    expect(await pairs(c.id)).toEqual([[d.id, 95, ['same_domain']]]);
  });

  it('equal folded names 80 (legal forms and case aside); similar names 65 only in the same country', async () => {
    const a = await newOrg(s.client, { name: 'Wayne Enterprises Pty Ltd' });
    const b = await newOrg(s.client, { name: 'WAYNE ENTERPRISES LIMITED' });
    expect(await pairs(a.id)).toEqual([[b.id, 80, ['same_name']]]);
    const c = await newOrg(s.client, { name: 'Stark Industrial Supplies', country: 'AU' });
    const d = await newOrg(s.client, { name: 'Stark Industrial Supply', country: 'AU' });
    await newOrg(s.client, { name: 'Stark Industrial Supply Co', country: 'NZ' });
    await newOrg(s.client, { name: 'Stark Industrial Supplys' });
    expect(await pairs(c.id)).toEqual([[d.id, 65, ['similar_name_country']]]);
  });
});

describe('dedupe: dismissals', () => {
  it('a dismissed pair is not proposed again; scoring the chosen pair still works', async () => {
    const a = await newPerson(s.client, { given: 'Dis', family: 'Missed', channels: [{ kind: 'phone', value: '0412 345 405' }] });
    const b = await newPerson(s.client, { given: 'Dis', family: 'Other', channels: [{ kind: 'phone', value: '0412 345 405' }] });
    expect(await pairs(a.id)).toEqual([[b.id, 90, ['same_phone']]]);
    await s.runtime.db.query(
      `INSERT INTO directory_merges (org_id, merge_id, kind, survivor_id, merged_id, score, reasons, status, survivor_version, merged_version, proposed_by, dismissed_at)
       VALUES ($1, $2, 'person', $3, $4, 90, '["same_phone"]', 'dismissed', 1, 1, '', now())`,
      [s.org.orgId, newId('mrg'), b.id, a.id],
    );
    expect(await pairs(a.id)).toEqual([]);
    expect(await pairs(b.id)).toEqual([]);
    expect(await s.runtime.db.tx((q) => scorePair(q, s.org.orgId, a.id, b.id))).toEqual({ score: 90, reasons: ['same_phone'] });
  });
});
