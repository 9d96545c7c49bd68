import { afterAll, beforeAll, expect } from 'vitest';
import { verifyOrgChain } from '../../../ledger/verify.js';
import { ownerOf, person, type Cast, type Person } from '../../helpers/people.js';
import { mutate, otherOrg } from '../../helpers/calls.js';
import { TestClock } from '../../helpers/clock.js';
import { testServer, type TestClient } from '../../helpers/harness.js';

/*
 * The crm family's org: the usual cast on a server whose business clock the tests move (rot, risk, targets), a
 * key without the crm scopes, another org; and the words its tests share.
 */

export interface CrmOrg extends Cast {
  clock: TestClock;
  /** org.read and org.write only: no crm scope. */
  noCrm: Person;
  other: TestClient;
}

export async function crmOrg(date = '2026-07-01'): Promise<CrmOrg> {
  const clock = new TestClock(date);
  const s = await testServer({ clock });
  return {
    s,
    clock,
    owner: await ownerOf(s),
    mia: await person(s, 'Mia Member', { tier: 'member' }),
    max: await person(s, 'Max Member', { tier: 'member' }),
    agent: await person(s, 'Agent A', { tier: 'agent' }),
    viewer: await person(s, 'Vera Viewer', { tier: 'viewer' }),
    noCrm: await person(s, 'Narrow', { scopes: ['org.read', 'org.write'], principalKind: 'human' }),
    other: await otherOrg(s),
  };
}

/** One crm org for a test file (`set` receives it before the tests); after them its chain must verify, and it closes. */
export function crmOrgHooks(set: (o: CrmOrg) => void, date = '2026-07-01'): void {
  let org: CrmOrg;
  beforeAll(async () => set((org = await crmOrg(date))));
  afterAll(async () => {
    expect((await verifyOrgChain(org.s.runtime.db, org.s.org.orgId)).ok).toBe(true);
    await org.s.close();
  });
}

let n = 0;
/** A unique suffix, so names and emails never collide across tests of one org. */
export const uniq = (): string => `${Date.now().toString(36)}${(n++).toString(36)}`;

export async function account(o: CrmOrg, name = `Acme ${uniq()}`, extra: Record<string, unknown> = {}, key?: string) {
  const { result } = await mutate(o.s, 'crm.createAccount', { name, ...extra }, 'crm.account.create', { key });
  return result.account;
}

export async function contact(o: CrmOrg, params: Record<string, unknown> = {}, key?: string) {
  const u = uniq();
  const { result } = await mutate(o.s, 'crm.createContact', { name: `Jane ${u}`, email: `jane.${u}@buyer.example`, ...params }, 'crm.contact.create', { key });
  return result.contact;
}

export async function deal(o: CrmOrg, accountId: string, params: Record<string, unknown> = {}, key?: string) {
  const { result } = await mutate(
    o.s,
    'crm.createDeal',
    { name: `Deal ${uniq()}`, accountId, amountCents: 1_000_000, currency: 'AUD', closeDate: '2026-09-30', ...params },
    'crm.deal.create',
    { key },
  );
  return result.deal;
}
