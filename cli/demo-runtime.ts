import { monthStart } from '../domain/books/dates.js';
import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane's agent control plane (docs/families/runtime.md): the company profile with its Sydney head office
 * and a Melbourne studio; the books agent and the Studio coordinator registered and beating, with their
 * presence; the books agent holding the pay-run lease under its registration; and the model spend it reports, which
 * GET /cost.rollup shows beside the server's own asks.
 */

export async function demoRuntime(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  desk.live();
  progress('Runtime: the company profile and offices, two agents registered and beating, a lease held, model spend reported');
  await desk.call('settings.saveCompanyProfile', {
    legalName: 'Harbour Lane Creative Pty Ltd',
    tradingName: 'Harbour Lane',
    abn: '51 824 753 556',
    timeZone: 'Australia/Sydney',
    currency: 'AUD',
    phone: '+61290001234',
  });
  const hq = (
    await desk.call('settings.upsertOfficeLocation', {
      name: 'Sydney studio',
      address: { line1: '12 Harbour Lane', locality: 'Sydney', region: 'NSW', postcode: '2000', country: 'AU' },
      timeZone: 'Australia/Sydney',
      isHeadOffice: true,
    })
  ).location;
  const melbourne = (
    await desk.call('settings.upsertOfficeLocation', {
      name: 'Melbourne studio',
      address: { line1: '40 Flinders Lane', locality: 'Melbourne', region: 'VIC', postcode: '3000', country: 'AU' },
      timeZone: 'Australia/Melbourne',
    })
  ).location;

  // The Studio coordinator (the people story's persona agent) runs as a second runtime, under a key of its own.
  const coordinatorId = (await desk.memberIds()).get('Studio coordinator')!;
  const coordinator = (await desk.call('org.mintApiKey', { name: 'Studio coordinator (runtime)', tier: 'agent', principalId: coordinatorId })).apiKey as string;
  const books = (
    await desk.call(
      'registry.register',
      { instance: 'books-1', name: 'books-agent', version: '2.3.0', capabilities: ['books.billCreate', 'books.ask'], ttlSeconds: 300 },
      desk.keys.agent,
    )
  ).registration;
  const second = (
    await desk.call(
      'registry.register',
      { instance: 'coordinator-1', name: 'coordinator-agent', version: '0.9.1', capabilities: ['email.second'], ttlSeconds: 300 },
      coordinator,
    )
  ).registration;
  await desk.call('presence.beat', { status: 'busy', statusText: 'Preparing the November pay run', ttlSeconds: 900 }, desk.keys.agent);
  await desk.call('presence.beat', { status: 'available', ttlSeconds: 900 }, coordinator);
  const lease = (await desk.call('lease.claim', { name: 'books:pay-run:november', ttlSeconds: 3600, registrationId: books.id }, desk.keys.agent)).lease;
  // An hour ago, but not before this month began: GET /cost.rollup shows the current month by default, so spend
  // seeded just after midnight on the 1st must not land in last month.
  const now = desk.clock.now();
  const monthBegan = Date.parse(`${monthStart(now.toISOString().slice(0, 10))}T00:00:00.000Z`);
  const spentAt = new Date(Math.max(now.getTime() - 3_600_000, monthBegan)).toISOString();
  const spend = await desk.call(
    'cost.report',
    {
      entries: [
        { provider: 'openai', model: 'gpt-4o-mini', inputTokens: 18_000, outputTokens: 2_400, occurredAt: spentAt, externalId: 'demo-books-1' },
        { provider: 'openai', model: 'gpt-4o', inputTokens: 6_000, outputTokens: 900, occurredAt: spentAt, externalId: 'demo-books-2' },
      ],
    },
    desk.keys.agent,
  );
  return [
    `Runtime: Harbour Lane Creative Pty Ltd, head office ${hq.id} (Sydney) and ${melbourne.id} (Melbourne): GET /api/v1/org/company`,
    `  Agents ${books.id} (books-agent) and ${second.id} (coordinator-agent) registered, passing, with presence: GET /api/v1/org/agents`,
    `  Lease ${lease.id} "books:pay-run:november" held by the books agent with fencing token ${lease.fencingToken}: GET /api/v1/org/leases; model spend reported ${spend.accepted} call(s), ${spend.costMicroUsd} micro-dollars: GET /api/v1/cost.rollup`,
  ];
}
