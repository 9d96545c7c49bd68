import type { DemoDesk } from './demo.js';

/*
 * How Harbour Lane Studio decides (docs/families/governance.md): decision rights per area, a charter with its
 * colleagues' roles and the agents' autonomy, amended by an adopted decision; a decision log with one of each state,
 * the compacts of the agents, a policy that sets the books' promise grace, an open escalation and a handoff on offer.
 * Holds go the way they would in the studio: the bookkeeping agent relays Priya Nair's signature and she approves it
 * with the approver key. Every step is an API call through the pipeline, so the ledger shows it.
 */

const SECTIONS = [
  {
    key: 'how-we-work',
    heading: 'How we work',
    body: 'Small teams, one producer per job, and work shown early. We say no to briefs we cannot do well.',
    clauses: ['Every client job has one producer, who owns its deadline and its budget.', 'Nothing goes to a client until a second designer has reviewed it.'],
  },
  {
    key: 'money',
    heading: 'Money',
    body: 'The studio is paid for its time; we quote in days and bill monthly.',
    clauses: [
      'Quotes over $20,000 are approved by the managing director before they are sent.',
      'No money leaves the studio without a human signature in the books.',
    ],
  },
  {
    key: 'clients',
    heading: 'Clients and their information',
    body: "Our clients trust us with unreleased work and their customers' details.",
    clauses: ["Client files live in the studio's storage, never in personal accounts.", 'A do-not-contact request is honoured on the day it is made.'],
  },
];

export async function demoGovernance(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  // The real time, not the story's end: the server reads the offer's expiry and the escalation's level from its clock.
  desk.live();
  const m = await desk.memberIds();
  const id = (name: string) => m.get(name)!;
  const [grace, priya, bookkeeper, coordinator] = ['Grace Lin', 'Priya Nair', 'Bookkeeping agent', 'Studio coordinator'].map(id);
  const agent = desk.keys.agent;

  progress('Governance: decision rights and the charter');
  await desk.call('governance.set_decision_rights', {
    rights: [
      { area: 'pricing', decidedBy: grace, agree: [priya], perform: ['role:client-services'], input: ['role:creative-director'] },
      { area: 'finance', decidedBy: priya, escalateTo: grace, agree: [grace], perform: [bookkeeper, 'role:finance'], input: ['humans'] },
      { area: 'studio', decidedBy: 'role:studio-manager', escalateTo: grace, perform: ['role:studio-manager', coordinator], input: ['anyone'] },
      { area: 'charter', decidedBy: grace, input: ['humans'] },
      { area: 'handoff', decidedBy: 'owner', escalateTo: grace },
      { area: 'compact', decidedBy: 'owner', escalateTo: grace },
      { area: '*', decidedBy: grace },
    ],
  });
  await desk.call('charter.update', {
    title: 'The Harbour Lane Studio charter',
    mission:
      'Make brands and websites that small Australian businesses are proud of, on time and on budget, and leave every client better at telling their own story.',
    baseVersion: 0,
  });
  for (const s of SECTIONS) await desk.call('charter.addSection', { ...s, clauses: s.clauses.map((text) => ({ text })) });
  const colleagues: [string, string, string | string[]][] = [
    ['Grace Lin', 'accountabilities', ['Clients, hiring and the studio’s numbers', 'Signs quotes over $20,000']],
    ['Priya Nair', 'roles', ['finance']],
    ['Priya Nair', 'accountabilities', ['Month-end close, payroll and the BAS', 'Approves what the bookkeeping agent may not do alone']],
    ['Sofia Rossi', 'roles', ['studio-manager']],
    ['Sofia Rossi', 'accountabilities', ['Bookings, suppliers and the studio itself']],
    ['Tom Okafor', 'roles', ['creative-director']],
    ['Oliver Hughes', 'roles', ['client-services']],
    ['Chloe Martin', 'roles', ['client-services']],
    ['Bookkeeping agent', 'roles', ['bookkeeping']],
    ['Bookkeeping agent', 'autonomy', 'standard'],
    ['Bookkeeping agent', 'reportsTo', priya],
    ['Studio coordinator', 'autonomy', 'supervised'],
    ['Studio coordinator', 'reportsTo', id('Sofia Rossi')],
  ];
  for (const [name, field, value] of colleagues) await desk.call('charter.editColleagueField', { principalId: id(name), field, value });

  progress('Governance: compacts and the decision log');
  await desk.call('compact.upsert', {
    scope: 'org',
    terms: {
      commitments: { agent: ['Escalate anything outside your decision rights within the hour.'], sponsor: ['Answer an escalation within a working day.'] },
      limits: { monthlySpendCents: 50_000, maxOpenHandoffs: 3, escalationResponseMinutes: 480 },
    },
  });
  const compact = await desk.call('compact.upsert', {
    scope: coordinator,
    terms: {
      commitments: {
        agent: ['Keep the board current every morning by 9.', 'Never move a client deadline without the producer.', 'Hand over anything stuck for two days.'],
        sponsor: ['Review the board with the coordinator every Monday.', 'Answer its escalations the same day.'],
      },
      limits: { monthlySpendCents: 20_000, maxOpenHandoffs: 5, escalationResponseMinutes: 240 },
    },
  });

  // Pricing is Grace's call with Priya's agreement; Priya signs through the agent, approving the relay herself.
  const propose = async (params: Record<string, unknown>, key?: string) => (await desk.call('decision.propose', params, key)).decision;
  const relaySign = (d: { id: string }) => desk.signed('decision.sign', { decisionId: d.id, version: 1, onBehalfOf: priya });
  const d1 = await propose({
    title: 'Day rate for studio work',
    area: 'pricing',
    decision: 'One day rate for all studio work: $1,200 ex GST.',
    context: 'Quotes used three different rates.',
  });
  await relaySign(d1);
  await desk.call('decision.adopt', { decisionId: d1.id, version: 1, outcome: 'In every quote from next week.' });
  const d2 = await propose({
    title: 'Day rates by discipline',
    area: 'pricing',
    decision: 'Design and brand days $1,350 ex GST; digital days $1,450 ex GST.',
    context: 'Wages rose 3.5% and the digital team’s tools cost more each year.',
    links: [{ rel: 'refines', target: d1.id }],
  });
  await relaySign(d2);
  await desk.call('decision.supersede', {
    decisionId: d2.id,
    version: 1,
    supersedes: [d1.id],
    outcome: 'Existing quotes keep their rate.',
    reviewOn: `${new Date().getUTCFullYear() + 1}-06-01`,
  });

  const before = (await desk.call('charter.get', { limit: 1 })).charter.version;
  const d3 = await propose({
    title: 'Agents in the charter',
    area: 'charter',
    decision: 'Add the rules every agent works by, and let the studio coordinator act as an owner of its own work.',
    consequences: 'The coordinator no longer holds on every governing act; its compact still limits it.',
    amendment: {
      baseVersion: before,
      ops: [
        {
          op: 'addSection',
          params: {
            key: 'agents',
            heading: 'Working with agents',
            body: 'Agents are colleagues with a sponsor, a compact and a charter record.',
            clauses: [
              { text: 'An agent works within its compact: its spend and handoff limits are hard limits.' },
              { text: 'An agent escalates anything outside its decision rights to a human within the hour.' },
              { text: 'An agent never adopts its own proposal.' },
            ],
          },
        },
        { op: 'editColleagueField', params: { principalId: coordinator, field: 'autonomy', value: 'standard' } },
      ],
    },
  });
  await desk.call('decision.adopt', { decisionId: d3.id, version: 1 });
  const amended = await desk.call('charter.amend', { decisionId: d3.id });

  // Finance is Priya's to decide: the agent asks to adopt, she approves the hold.
  const d4 = await propose({
    title: 'Five days’ grace on promises to pay',
    area: 'finance',
    decision: 'A client’s promise to pay is broken five days after the promised date, not three.',
    context: 'Most late payers in the last quarter paid within a week of their promise.',
  });
  await desk.call('decision.sign', { decisionId: d4.id, version: 1 });
  await desk.signed('decision.adopt', { decisionId: d4.id, version: 1, outcome: 'Published as the books.promises policy.' });
  const policy = await desk.call('policy.publish', {
    key: 'books.promises',
    title: 'Promises to pay',
    body: `A promise to pay is kept until five days after its date (D-${d4.number}). Then the bookkeeping agent chases again, starting at the firm reminder.`,
    settings: { 'books.promiseGraceDays': 5 },
  });

  const d5 = await propose(
    {
      title: 'Deposits on large projects',
      area: 'finance',
      decision: 'Projects quoted over $10,000 start when a 30% deposit is paid.',
      context: 'Coastal Realty’s website invoice is over 30 days late; the studio carried its costs for two months.',
    },
    agent,
  );
  const d6 = await propose(
    {
      title: 'Card surcharge',
      area: 'pricing',
      decision: 'Add a 1.5% surcharge to invoices paid by credit card.',
      context: 'Card fees cost the studio about $90 a month.',
    },
    agent,
  );
  await desk.call('decision.requestAdjustment', { decisionId: d6.id, version: 1, body: 'Only for international cards: local clients pay no surcharge.' });

  progress('Governance: an escalation and a handoff');
  const { bills } = await desk.call('books.bills', { limit: 200 });
  // The hosting bill the story put on hold as disputed (demo-story.ts).
  const hosting = bills.find((b: { reference: string }) => b.reference === 'CH-3390');
  const esc = await desk.call(
    'escalation.create',
    { title: 'Cloud Hosting charged twice for September and does not answer', reason: 'blocked', severity: 'normal', area: 'finance', subject: hosting.id },
    agent,
  );
  const task = await desk.call(
    'board.create',
    { type: 'task', title: 'Phone Printworks about the delivery charge on PW-7781', col: 'todo', assignee: bookkeeper },
    agent,
  );
  const offer = await desk.call(
    'handoff.offer',
    {
      subject: { kind: 'task', id: task.id },
      to: grace,
      brief: 'Printworks’ accounts team only takes phone calls. The delivery charge looks doubled: $180 against $90 on the quote. Their number is on the bill.',
      expiresInHours: 168,
    },
    agent,
  );

  const dn = (d: { number: number }) => `D-${d.number}`;
  return [
    `Governance (governance.status, charter.get, GET /api/v1/decision.list, GET /api/v1/policy):`,
    `  decision rights for pricing (Grace Lin decides, Priya Nair agrees), finance (Priya decides, Grace agrees), studio, charter, handoffs and compacts; the charter is at version ${amended.charter.version}: a mission, ${amended.charter.sections} sections of binding clauses and ${amended.charter.colleagues} colleague records (roles, the agents' autonomy); charter.get {"diffFrom":${before}} shows what ${dn(d3)} amended`,
    `  the decision log: ${dn(d1)} superseded by ${dn(d2)} (Priya's signatures relayed by the agent, approved by her), ${dn(d3)} amended the charter, ${dn(d4)} adopted through Priya's approval of the agent's hold`,
    `  GET /api/v1/decision.list?awaiting=me (admin key): ${dn(d5)} "${d5.title}" waits on your signature: decision.sign {"decisionId":"${d5.id}","version":1}, then decision.adopt {"decisionId":"${d5.id}","version":1} (finance is Priya's call: yours is an admin override)`,
    `  ${dn(d6)} "${d6.title}" waits on the adjustment you asked for: decision.propose {"decisionId":"${d6.id}","decision":"Add a 1.5% surcharge to invoices paid by international credit cards."} with the agent key (its driver) makes version 2`,
    `  GET /api/v1/policy: promise grace ${policy.policy.settings?.['books.promiseGraceDays']} days, set by the policy "books.promises" (${policy.policy.id}); ?agentId=${coordinator} adds the Studio coordinator's compact (version ${compact.compact.version}, not yet acknowledged)`,
    `  escalation.resolve {"escalationId":"${esc.escalation.id}","outcome":"directed","resolution":"Dispute it with the card issuer."} (admin key): the bookkeeping agent's open escalation about the double charge; it waits on Priya Nair and climbs to you after ${esc.escalation.escalateAfterMinutes / 60} hours`,
    `  handoff.accept {"handoffId":"${offer.handoff.id}"} (admin key): the bookkeeping agent offers you its task "Phone Printworks…" (${task.id}); GET /api/v1/board.context?taskId=${task.id} shows the offer`,
  ];
}
