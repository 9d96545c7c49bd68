import { Readable } from 'node:stream';
import sharp from 'sharp';
import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane Studio's people (docs/families/people.md): fourteen humans in two studios and two remote places, an
 * org chart with sibling positions and one dotted line, teams with leads and a sub-team, profiles (one with an avatar
 * made here by sharp), notification preferences, a subscription with seats to spare, two pending invitations, an
 * agent with a persona, a suspended agent and a leaver whose work was handed over. Each step is an API call through
 * the pipeline, so the ledger shows it. The payroll (demo-story.ts) pays the Sydney staff on the books; the others
 * are contractors, overseas, or on their own payrolls.
 */

/** Reserved for examples (RFC 2606): the invitation mail of the demo never reaches anyone. */
const DOMAIN = 'harbourlane.example';
const email = (name: string) => `${name.toLowerCase().replace(/ /g, '.')}@${DOMAIN}`;

const SYD = { office: 'Sydney studio', timezone: 'Australia/Sydney' };
const MEL = { office: 'Melbourne studio', timezone: 'Australia/Melbourne' };
const AKL = { office: 'Remote (Auckland)', timezone: 'Pacific/Auckland' };
const LON = { office: 'Remote (London)', timezone: 'Europe/London' };

type Team = 'design' | 'brand' | 'digital' | 'clients' | 'ops';
const TEAMS: { key: Team; name: string; parent?: Team; lead: string }[] = [
  { key: 'design', name: 'Design', lead: 'tom' },
  { key: 'brand', name: 'Brand', parent: 'design', lead: 'mia' },
  { key: 'digital', name: 'Digital', lead: 'hana' },
  { key: 'clients', name: 'Client services', lead: 'oliver' },
  { key: 'ops', name: 'Studio operations', lead: 'sofia' },
];

interface Person {
  key: string;
  name: string;
  title: string;
  at: { office: string; timezone: string };
  manager: string;
  teams: Team[];
  dotted?: string[];
}
/** The admin (grace) and the approver (priya) exist already, as the holders of the demo's keys. In chart order. */
const PEOPLE: Person[] = [
  { key: 'tom', name: 'Tom Okafor', title: 'Creative director', at: SYD, manager: 'grace', teams: ['design'] },
  { key: 'hana', name: 'Hana Sato', title: 'Head of digital', at: MEL, manager: 'grace', teams: ['digital'] },
  { key: 'oliver', name: 'Oliver Hughes', title: 'Client director', at: LON, manager: 'grace', teams: ['clients'] },
  { key: 'sofia', name: 'Sofia Rossi', title: 'Studio manager', at: SYD, manager: 'grace', teams: ['ops'] },
  { key: 'mia', name: 'Mia Chen', title: 'Senior designer', at: SYD, manager: 'tom', teams: ['brand', 'design'] },
  { key: 'aroha', name: 'Aroha Ngata', title: 'Motion designer', at: AKL, manager: 'tom', teams: ['design'] },
  { key: 'leo', name: 'Leo Park', title: 'Designer', at: SYD, manager: 'mia', teams: ['brand'] },
  { key: 'noah', name: 'Noah Williams', title: 'Junior designer', at: SYD, manager: 'mia', teams: ['brand'] },
  { key: 'ben', name: 'Ben Carter', title: 'Web developer', at: MEL, manager: 'hana', teams: ['digital'] },
  { key: 'chloe', name: 'Chloe Martin', title: 'Producer', at: SYD, manager: 'oliver', teams: ['clients', 'design'], dotted: ['tom'] },
  { key: 'ruby', name: 'Ruby Walsh', title: 'Account manager', at: SYD, manager: 'oliver', teams: ['clients'] },
  { key: 'ava', name: 'Ava Singh', title: 'Bookkeeper', at: SYD, manager: 'priya', teams: ['ops'] },
];

const days = (start: string, end: string, which = ['mon', 'tue', 'wed', 'thu', 'fri']) => Object.fromEntries(which.map((d) => [d, [{ start, end }]]));
const PROFILES: Record<string, Record<string, unknown>> = {
  grace: {
    headline: 'Runs the studio: clients, hiring and the numbers',
    pronouns: 'she/her',
    phone: '+61 2 5550 1020',
    expertise: ['brand strategy', 'studio operations', 'hiring'],
    workingHours: days('08:30', '17:00'),
    links: [{ label: 'Studio site', url: `https://${DOMAIN}` }],
  },
  tom: {
    headline: 'Creative direction for brand and campaign work',
    pronouns: 'he/him',
    phone: '+61 491 570 156',
    expertise: ['art direction', 'typography', 'brand identity'],
    workingHours: days('09:30', '18:00'),
  },
  mia: {
    headline: 'Brand systems, packaging and menus',
    pronouns: 'she/her',
    phone: '+61 491 570 157',
    expertise: ['packaging', 'illustration', 'Figma'],
    workingHours: days('09:00', '17:30'),
  },
  hana: {
    headline: 'Websites that ship, from design system to launch',
    phone: '+61 3 5550 4321',
    expertise: ['React', 'accessibility', 'Webflow'],
    workingHours: days('08:00', '16:30'),
  },
  oliver: {
    headline: 'Our clients in the UK and Europe',
    pronouns: 'he/him',
    phone: '+44 20 7946 0958',
    expertise: ['account management', 'proposals'],
    workingHours: days('08:00', '16:30'),
  },
  aroha: {
    headline: 'Motion, social video and title sequences',
    pronouns: 'she/her',
    phone: '+61 491 570 159',
    expertise: ['After Effects', 'motion design'],
    workingHours: days('09:00', '15:00', ['mon', 'tue', 'wed', 'thu']),
  },
  priya: {
    headline: 'Month-end close, payroll and the BAS',
    pronouns: 'she/her',
    phone: '+61 491 570 158',
    expertise: ['payroll', 'BAS', 'cash flow'],
    workingHours: days('09:00', '17:00'),
  },
};

/** A square gradient PNG made in memory (no image files ship with the demo): the avatar's source. */
async function gradientPng(from: [number, number, number], to: [number, number, number]): Promise<Buffer> {
  const size = 320;
  const raw = Buffer.alloc(size * size * 3);
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const t = (x + y) / (2 * (size - 1));
      for (let c = 0; c < 3; c++) raw[(y * size + x) * 3 + c] = Math.round(from[c] + (to[c] - from[c]) * t);
    }
  }
  return sharp(raw, { raw: { width: size, height: size, channels: 3 } })
    .png()
    .toBuffer();
}

/** PUT /api/v1/blobs as the admin would, then profile.updateAvatar with the upload's hash. */
async function avatar(desk: DemoDesk, adminId: string, memberId: string, png: Buffer): Promise<void> {
  const up = await desk.runtime.deps.blobs.upload({ orgId: desk.orgId, principalId: adminId, body: Readable.from([png]), contentType: 'image/png' });
  await desk.call('profile.updateAvatar', { memberId, blob: up.sha256 });
}

export async function demoPeople(desk: DemoDesk, today: string, progress: (line: string) => void): Promise<string[]> {
  desk.at(today);
  const id: Record<string, string> = {};
  const admin = await desk.pipeline.principalFor(desk.keys.admin);
  id.grace = admin.id;
  id.priya = (await desk.pipeline.principalFor(desk.keys.approver)).id;
  id.bookkeeper = (await desk.pipeline.principalFor(desk.keys.agent)).id;
  // Staff on the books' payroll carry their employee id (pay stays in the books).
  const employees = await desk.runtime.db.query<{ employee_id: string; name: string }>('SELECT employee_id, name FROM books_employees WHERE org_id = $1', [
    desk.orgId,
  ]);
  const employeeId = new Map(employees.map((e) => [e.name, e.employee_id]));

  progress('People: the org chart, offices and teams');
  await desk.call('member.update', { memberId: id.grace, name: 'Grace Lin', handle: 'grace', email: email('Grace Lin'), title: 'Managing director', ...SYD });
  await desk.call('member.update', {
    memberId: id.priya,
    name: 'Priya Nair',
    handle: 'priya',
    email: email('Priya Nair'),
    title: 'Finance lead',
    managerId: id.grace,
    ...SYD,
  });
  await desk.call('member.update', {
    memberId: id.bookkeeper,
    name: 'Bookkeeping agent',
    handle: 'bookkeeping.agent',
    title: 'Accounts assistant',
    managerId: id.priya,
    timezone: SYD.timezone,
  });
  const team: Record<string, string> = {};
  for (const t of TEAMS) team[t.key] = (await desk.call('team.create', { name: t.name, ...(t.parent ? { parentTeamId: team[t.parent] } : {}) })).team.id;
  for (const p of PEOPLE) {
    const created = await desk.call('member.create', {
      name: p.name,
      email: email(p.name),
      title: p.title,
      managerId: id[p.manager],
      ...p.at,
      teamIds: p.teams.map((t) => team[t]),
      ...(p.dotted ? { dottedLineIds: p.dotted.map((d) => id[d]) } : {}),
      ...(employeeId.has(p.name) ? { employeeId: employeeId.get(p.name) } : {}),
    });
    id[p.key] = created.member.id;
  }
  for (const t of TEAMS) await desk.call('team.update', { teamId: team[t.key], leadId: id[t.lead] });
  await desk.call('member.assignTeam', { memberId: id.priya, teamIds: [team.ops] });
  // Grace's reports in the order she presents them, not by name.
  await desk.call('member.savePosition', { memberId: id.tom, position: 0 });
  await desk.call('member.savePosition', { memberId: id.priya, position: 4 });

  progress('People: profiles, an avatar and notification preferences');
  for (const [who, fields] of Object.entries(PROFILES)) await desk.call('profile.update', { memberId: id[who], ...fields });
  await desk.call('profile.addSection', {
    memberId: id.grace,
    title: 'How I work',
    body: 'Mornings are for clients; afternoons for reviews. Book time through Sofia, or put it on the board and tag me.',
  });
  await desk.call('profile.addSection', {
    memberId: id.mia,
    title: 'Now working on',
    body: "Harbour Cafe's seasonal menus and the Lighthouse Bakery packaging.",
  });
  await avatar(desk, id.grace, id.grace, await gradientPng([14, 76, 117], [98, 182, 183]));
  await desk.call('notification.updatePreferences', {
    target: 'org',
    events: { 'member.joined': 'digest', 'reports.changed': 'digest' },
    digest: { frequency: 'daily', hour: 9 },
  });
  await desk.call('notification.updatePreferences', {
    events: { 'task.assigned': 'digest', mention: 'instant' },
    quietHours: { start: '19:00', end: '07:00', timezone: SYD.timezone },
  });
  await desk.call('notification.updatePreferences', {
    target: id.priya,
    events: { 'approval.requested': 'instant', 'hold.waiting': 'instant', mention: 'digest' },
    digest: { frequency: 'weekly', hour: 8, weekday: 'mon' },
  });

  progress('People: agents, invitations, a suspension, a leaver and the subscription');
  const coordinator = await desk.call('persona.generateAgentId', {
    name: 'Studio coordinator',
    role: 'Studio coordinator',
    goal: 'Keep the board, bookings and handovers moving so the designers can design.',
    backstory: 'Harbour Lane is a fourteen-person design studio in Sydney with people in Melbourne, Auckland and London.',
    instructions: [
      'Never move a client deadline without asking the producer.',
      'Ask Sofia Rossi when a request is unclear.',
      'Write in plain Australian English.',
    ],
    tone: 'warm, plain and brief',
    toolsets: ['board', 'member', 'team', 'profile'],
    managerId: id.sofia,
    sponsorId: id.grace,
  });
  id.coordinator = coordinator.agent.id;
  await desk.call('profile.update', { memberId: id.coordinator, headline: 'Board upkeep, bookings and handovers', expertise: ['scheduling', 'handovers'] });
  await avatar(desk, id.grace, id.coordinator, await gradientPng([240, 160, 60], [200, 60, 90]));
  const scheduler = await desk.call('persona.generateAgentId', {
    name: 'Social scheduler',
    role: 'Social media scheduler',
    goal: "Queue approved posts for the studio's social channels.",
    instructions: ['Post only drafts a producer has signed off.'],
    toolsets: ['board'],
    managerId: id.oliver,
    sponsorId: id.ruby,
  });
  id.scheduler = scheduler.agent.id;
  await desk.call('org.mintApiKey', { name: 'Social scheduler', tier: 'agent', principalId: id.scheduler });
  // The kill switch: its key is blocked, kept, and works again on admin.reactivate.
  await desk.call('admin.deactivate', { memberId: id.scheduler, reason: 'Posted a client draft before sign-off' });

  const ella = await desk.call('invitation.create', {
    email: email('Ella Brooks'),
    name: 'Ella Brooks',
    role: 'member',
    managerId: id.tom,
    teamIds: [team.design],
    message: 'Welcome to Harbour Lane! Tom will show you around on Monday.',
  });
  const sam = await desk.call('invitation.create', {
    email: `sam.patel@northshore-accounting.example`,
    name: 'Sam Patel',
    role: 'viewer',
    managerId: id.priya,
    message: 'Read access for the year-end review.',
  });
  // Invited people are in the directory already: give them the rest of their card.
  await desk.call('member.update', { memberId: ella.member.id, title: 'Designer', ...SYD });
  await desk.call('member.update', { memberId: sam.member.id, title: 'External accountant (Northshore Accounting)', timezone: SYD.timezone });

  // Ruby leaves: she had a key and two open items; her work and her agent go to Chloe.
  await desk.call('org.mintApiKey', { name: 'Ruby (laptop)', tier: 'member', principalId: id.ruby });
  for (const title of ['Coastal Realty: website launch checklist', 'Blue Wren: spring catalogue proofs']) {
    await desk.call('board.create', { type: 'task', title, col: 'todo', assignee: id.ruby });
  }
  const left = await desk.call('user.deactivate', { userId: id.ruby, transferTo: id.chloe, reason: 'Moved to a client-side role' });
  // The subscription last: its answer counts the seats the story left in use.
  const plans = desk.runtime.deps.config.billingPlans;
  const billing = await desk.call('billing.update', {
    plan: plans.includes('team') ? 'team' : plans[0],
    cycle: 'annual',
    seats: 10,
    agentSeats: 5,
    contact: `accounts@${DOMAIN}`,
    taxId: '53 004 085 616',
  });

  return [
    `People (GET /api/v1/directory?q=mia, GET /api/v1/hierarchy, member.list, team.list, profile.get):`,
    `  ${PEOPLE.length + 2} people (one has left) and 3 agents in ${TEAMS.length} teams (Brand inside Design), Grace Lin (${id.grace}, the admin key's holder) at the top, Priya Nair (the approver key's) runs finance; Chloe Martin has a dotted line to Tom Okafor`,
    `  open ${ella.acceptUrl} to accept Ella Brooks's invitation on /join (a key of role member, shown once); invitation.resend {"invitationId":"${ella.invitation.id}"} kills that link and mails a new one`,
    `  invitation.revoke {"invitationId":"${sam.invitation.id}"}: withdraw Sam Patel's invitation (viewer)`,
    `  pairing.request {"orgSlug":"${admin.orgSlug}","agentName":"Studio coordinator"}, then pairing.approve with its pairingId, code and "agentId":"${id.coordinator}": the Studio coordinator (persona v1, sponsored by Grace Lin) gets a key; GET /api/v1/org/whoami then shows its prompt`,
    `  persona.editField {"agentId":"${id.coordinator}","field":"tone","value":"brisk"} with the agent key: held until a human decides`,
    `  admin.reactivate {"memberId":"${id.scheduler}"}: the suspended Social scheduler's key works again`,
    `  Ruby Walsh (${id.ruby}) left: ${left.handedOver.itemsMoved} items, ${left.handedOver.agentsMoved} agent and ${left.handedOver.keysRevoked} key handed over or revoked (user.deactivate, to Chloe Martin)`,
    `  billing.update {"seats":${billing.usage.seats - 1}}: refused, ${billing.usage.seats} of ${billing.billing.seats} seats are in use (${billing.usage.pendingInvitations} of them pending invitations; suspended, departed and directory-only people are free)`,
  ];
}
