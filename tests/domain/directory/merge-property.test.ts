import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testServer, type TestServer } from '../../helpers/harness.js';
import { ok } from '../../helpers/calls.js';

/*
 * Property: whatever two parties hold (fields, channels shared or not, links in and out and between them, list
 * places, awareness, a books role), merging one into the other and reverting leaves every read as it was, byte
 * for byte, bar the version and updatedAt of the pair: getPerson/getOrg of the pair and of everyone linked to them,
 * the listings, the list's members and the books contact view.
 */

let s: TestServer;
let member: string;
beforeAll(async () => {
  s = await testServer();
  member = (await s.client.mint({ tier: 'member' }, 'property knower')).principal.id;
});
afterAll(() => s.close());

const call = (method: string, params: Record<string, unknown>) => ok(s.client, method, params);
const bare = ({ version: _v, updatedAt: _u, ...rest }: Record<string, unknown>) => rest;
const LEVELS = ['knows_of', 'met', 'works_with', 'close'] as const;

const side = fc.record({
  title: fc.option(fc.constantFrom('Director', 'Buyer'), { nil: undefined }),
  notes: fc.option(fc.constantFrom('Met at the expo', 'Prefers email'), { nil: undefined }),
  tags: fc.subarray(['vip', 'board', 'supplier']),
  address: fc.boolean(),
  doNotContact: fc.boolean(),
  emails: fc.subarray([0, 1, 2]),
  phones: fc.subarray([0, 1, 2]),
  inList: fc.boolean(),
  awareness: fc.option(fc.constantFrom(...LEVELS), { nil: undefined }),
  myAwareness: fc.option(fc.constantFrom(...LEVELS), { nil: undefined }),
  /** persons: works at the employer; organisations: employs the person. */
  employed: fc.boolean(),
  /** A relation with the third party, out (this -> third) or in. */
  third: fc.constantFrom('none', 'out', 'in'),
  booksRole: fc.boolean(),
});

const scenario = fc.record({
  kind: fc.constantFrom('person' as const, 'org' as const),
  a: side,
  b: side,
  between: fc.boolean(),
  choices: fc.subarray(['title', 'notes', 'email', 'phone', 'country']),
});

let run = 0;

describe('merge then revert', () => {
  it('leaves every read as it was (bar versions), for random parties and references', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        run += 1;
        const tag = `run${run}x${Date.now().toString(36)}`;
        const isPerson = sc.kind === 'person';
        const create = async (name: string, x: typeof sc.a | null, who: 'a' | 'b' | 't') => {
          const channels = x
            ? [
                ...x.emails.map((i) => ({ kind: 'email', value: `${isPerson ? who : 'shared'}${i}.${tag}@merge-prop.com.au` })),
                ...x.phones.map((i) => ({ kind: 'phone', value: `0412 ${String(run).padStart(3, '0')} ${isPerson ? 700 + i : 800 + i}` })),
              ]
            : [];
          const common = {
            tags: [tag, ...(x?.tags ?? [])],
            ...(x?.notes ? { notes: x.notes } : {}),
            ...(x?.address ? { addresses: [{ lines: [`${who} Street`], country: 'AU' }] } : {}),
            ...(x?.doNotContact ? { doNotContact: true } : {}),
            channels,
          };
          return isPerson
            ? (await call('directory.createPerson', { given: name, family: tag, ...(x?.title ? { title: x.title } : {}), ...common })).person.id
            : (await call('directory.createOrg', { name: `${name} ${tag}`, ...(x?.title ? { legalName: `${x.title} ${tag}` } : {}), ...common })).org.id;
        };
        const A = await create('Alpha', sc.a, 'a');
        const B = await create('Beta', sc.b, 'b');
        const T = await create('Third', null, 't');
        const other = isPerson
          ? (await call('directory.createOrg', { name: `Employer ${tag}`, tags: [tag] })).org.id
          : (await call('directory.createPerson', { given: 'Staff', family: tag, tags: [tag] })).person.id;
        const list = (await call('directory.createList', { name: `List ${tag}`, kind: 'static', visibility: 'workspace' })).list.id;
        const relation = isPerson ? 'reports_to' : 'partner_of';
        for (const [id, x] of [
          [A, sc.a],
          [B, sc.b],
        ] as const) {
          if (x.employed)
            await call('directory.linkParty', isPerson ? { fromId: id, toId: other, relation: 'works_at' } : { fromId: other, toId: id, relation: 'works_at' });
          if (x.third === 'out') await call('directory.linkParty', { fromId: id, toId: T, relation });
          if (x.third === 'in') await call('directory.linkParty', { fromId: T, toId: id, relation });
          if (x.inList) await call('directory.addToList', { listId: list, partyIds: [id] });
          if (x.awareness) await call('directory.setAwareness', { partyId: id, principalId: member, level: x.awareness });
          if (x.myAwareness) await call('directory.setAwareness', { partyId: id, level: x.myAwareness });
          if (!isPerson && x.booksRole) {
            const name = (await call('directory.getOrg', { orgId: id })).org.displayName;
            await call('books.invoiceDraft', { payeeName: name, description: 'Work', totalCents: 5_500, dueDays: 14 });
          }
        }
        if (sc.between) await call('directory.linkParty', { fromId: B, toId: A, relation: isPerson ? 'assistant_of' : 'client_of' });

        const get = async (id: string) =>
          id.startsWith('per_') ? (await call('directory.getPerson', { personId: id })).person : (await call('directory.getOrg', { orgId: id })).org;
        const snapshot = async () => ({
          parties: await Promise.all([A, B, T, other].map(async (id) => bare(await get(id)))),
          people: (await call('directory.listPeople', { tag, status: 'all' })).people.map(bare),
          orgs: (await call('directory.listOrgs', { tag, status: 'all' })).orgs.map(bare),
          listed: (await call(isPerson ? 'directory.listPeople' : 'directory.listOrgs', { listId: list }))[isPerson ? 'people' : 'orgs'].map(bare),
          books: await s.runtime.db.query('SELECT * FROM books_contacts WHERE org_id = $1 AND party_id = ANY($2::text[]) ORDER BY contact_id', [
            s.org.orgId,
            [A, B],
          ]),
        });
        const before = await snapshot();
        const choices = Object.fromEntries(sc.choices.filter((c) => isPerson || c !== 'title').map((c) => [c, 'merged']));
        const merge = (await call('directory.proposeMerge', { survivorId: A, mergedId: B, fieldChoices: choices })).merge;
        await call('directory.executeMerge', { mergeId: merge.id, decision: 'merge' });
        expect((await get(B)).status).toBe('merged');
        const reverted = await call('directory.revertMerge', { mergeId: merge.id });
        expect(reverted.keptEdits).toEqual([]);
        expect(await snapshot()).toEqual(before);
      }),
      { numRuns: Number(process.env.MERGE_PROPERTY_RUNS ?? 15) },
    );
  }, 240_000);
});
