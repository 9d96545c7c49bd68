import { newId } from '../domain/core/ids.js';
import type { DemoDesk } from './demo.js';

/*
 * Harbour Lane Studio's address book (docs/families/directory.md): the people behind the clients and suppliers the
 * books already know as organisations (demo-story.ts made them through its invoices and bills), with emails, phones,
 * employers and one reporting line; who in the studio knows whom, an introduction asked for, a shared list and the
 * bookkeeping agent's private one, a do-not-contact, a capture the agent proposed from a remittance email, and two
 * look-alike pairs: one a real duplicate left proposed for a human to merge, one dismissed (two different people).
 * Every step is an API call through the pipeline, so the ledger shows it.
 */

/** Reserved for examples (RFC 2606): no address here reaches anyone. */
const mail = (user: string, company: string) => `${user}@${company}.example`;

interface Org {
  /** The name the books gave it (an invoice's payee, a bill's supplier). No website: a reserved .example name has no registrable domain. */
  books: string;
  tags: string[];
}
const ORGS: Record<string, Org> = {
  cafe: { books: 'Harbour Cafe Pty Ltd', tags: ['client', 'hospitality'] },
  wren: { books: 'Blue Wren Studio', tags: ['client', 'illustration'] },
  realty: { books: 'Coastal Realty', tags: ['client', 'property'] },
  physio: { books: 'Northside Physio', tags: ['client', 'health'] },
  bakery: { books: 'Lighthouse Bakery', tags: ['client', 'hospitality'] },
  landlord: { books: 'Harbour Property Group', tags: ['supplier', 'landlord'] },
  print: { books: 'Printworks Australia', tags: ['supplier', 'print'] },
  hosting: { books: 'Cloud Hosting Pty Ltd', tags: ['supplier', 'it'] },
  tech: { books: 'Tech Supplies Co', tags: ['supplier', 'it'] },
};

interface Person {
  key: string;
  given: string;
  family: string;
  title: string;
  at: keyof typeof ORGS;
  email: string;
  /** Fictional numbers: ACMA's reserved 0491 570 … mobiles and the (02) 5550 … drama range. */
  phone?: string;
  tags?: string[];
  notes?: string;
  doNotContact?: boolean;
}
const PEOPLE: Person[] = [
  {
    key: 'lucy',
    given: 'Lucy',
    family: 'Fraser',
    title: 'Owner',
    at: 'cafe',
    email: mail('lucy', 'harbourcafe'),
    phone: '(02) 5550 2301',
    tags: ['christmas-card'],
  },
  { key: 'ethan', given: 'Ethan', family: 'Cole', title: 'Creative lead', at: 'wren', email: mail('ethan.cole', 'bluewren'), phone: '0491 570 313' },
  {
    key: 'michael',
    given: 'Michael',
    family: 'Brennan',
    title: 'Director',
    at: 'realty',
    email: mail('michael.brennan', 'coastalrealty'),
    phone: '(02) 5550 4410',
    tags: ['christmas-card'],
  },
  {
    key: 'jess',
    given: 'Jess',
    family: 'Taylor',
    title: 'Marketing coordinator',
    at: 'realty',
    email: mail('jess.taylor', 'coastalrealty'),
    phone: '0491 570 110',
  },
  { key: 'anjali', given: 'Anjali', family: 'Rao', title: 'Practice owner', at: 'physio', email: mail('anjali', 'northsidephysio'), phone: '(02) 5550 7788' },
  {
    key: 'rosa',
    given: 'Rosa',
    family: 'Medina',
    title: 'Founder',
    at: 'bakery',
    email: mail('rosa', 'lighthousebakery'),
    phone: '0491 570 737',
    tags: ['christmas-card'],
  },
  {
    key: 'greg',
    given: 'Greg',
    family: 'Holloway',
    title: 'Property manager',
    at: 'landlord',
    email: mail('greg.holloway', 'harbourproperty'),
    phone: '(02) 5550 3120',
    notes: 'Rent questions and building access cards.',
  },
  { key: 'samSenior', given: 'Sam', family: 'Nguyen', title: 'Founder', at: 'print', email: mail('sam', 'printworks'), phone: '(02) 5550 6001' },
  {
    key: 'samJunior',
    given: 'Sam',
    family: 'Nguyen',
    title: 'Account manager',
    at: 'print',
    email: mail('sam.nguyen', 'printworks'),
    phone: '0491 571 266',
    notes: "The founder's son; quotes and proofs go to him.",
  },
  { key: 'daniel', given: 'Daniel', family: 'Ortiz', title: 'Support lead', at: 'hosting', email: mail('daniel.ortiz', 'cloudhosting'), phone: '0491 571 491' },
  {
    key: 'trent',
    given: 'Trent',
    family: 'Baxter',
    title: 'Sales representative',
    at: 'hosting',
    email: mail('trent.baxter', 'cloudhosting'),
    notes: 'Asked in writing to receive no more calls or mail from the studio.',
    doNotContact: true,
  },
  { key: 'kate', given: 'Kate', family: 'Morgan', title: 'Business sales', at: 'tech', email: mail('kate.morgan', 'techsupplies'), phone: '0491 571 804' },
];

/** Who in the studio knows whom, and how well (member name -> [person key, level]). */
const AWARENESS: [string, string, 'knows_of' | 'met' | 'works_with' | 'close'][] = [
  ['Grace Lin', 'lucy', 'close'],
  ['Mia Chen', 'lucy', 'works_with'],
  ['Mia Chen', 'rosa', 'close'],
  ['Oliver Hughes', 'michael', 'works_with'],
  ['Chloe Martin', 'jess', 'works_with'],
  ['Tom Okafor', 'ethan', 'met'],
  ['Hana Sato', 'anjali', 'works_with'],
  ['Priya Nair', 'greg', 'works_with'],
  ['Sofia Rossi', 'samJunior', 'works_with'],
  ['Hana Sato', 'daniel', 'works_with'],
  ['Ben Carter', 'daniel', 'met'],
];

export async function demoDirectory(desk: DemoDesk, progress: (line: string) => void): Promise<string[]> {
  // Now, like the governance that follows (the books story may end months back).
  desk.live();
  const member = await desk.memberIds();
  const agent = desk.keys.agent;

  progress('Directory: the people behind the clients and suppliers');
  // The books made these organisations (migration 034: a contact is the finance role of a party): find them.
  const org: Record<string, string> = {};
  for (const role of ['books.customer', 'books.supplier']) {
    const { orgs } = await desk.call('directory.listOrgs', { role, limit: 100 });
    for (const [key, o] of Object.entries(ORGS)) {
      const found = orgs.find((x: { displayName: string }) => x.displayName === o.books);
      if (found) org[key] = found.id;
    }
  }
  const missing = Object.entries(ORGS).filter(([key]) => !org[key]);
  if (missing.length > 0) throw new Error(`the books story made no directory organisation for ${missing.map(([, o]) => o.books).join(', ')}`);
  for (const [key, o] of Object.entries(ORGS)) await desk.call('directory.updateOrg', { orgId: org[key], tags: o.tags, country: 'AU' });

  const per: Record<string, string> = {};
  for (const p of PEOPLE) {
    const created = await desk.call('directory.createPerson', {
      given: p.given,
      family: p.family,
      title: p.title,
      worksAt: { orgId: org[p.at], role: p.title },
      channels: [
        { kind: 'email', value: p.email, label: 'work' },
        ...(p.phone ? [{ kind: 'phone', value: p.phone, label: p.phone.startsWith('04') ? 'mobile' : 'work' }] : []),
      ],
      tags: [...ORGS[p.at].tags.slice(0, 1), ...(p.tags ?? [])],
      country: 'AU',
      ...(p.notes ? { notes: p.notes } : {}),
      ...(p.doNotContact ? { doNotContact: true } : {}),
    });
    per[p.key] = created.person.id;
  }
  await desk.call('directory.linkParty', { fromId: per.jess, toId: per.michael, relation: 'reports_to' });
  // Jess's mobile came in again from her personal address, under her full name: one person twice.
  const jessica = await desk.call('directory.createPerson', {
    given: 'Jessica',
    family: 'Taylor',
    worksAt: { orgId: org.realty },
    channels: [
      { kind: 'email', value: mail('jesstaylor.home', 'mailbox'), label: 'home' },
      { kind: 'phone', value: '+61 491 570 110', label: 'mobile' },
    ],
    country: 'AU',
  });
  per.jessica = jessica.person.id;

  progress('Directory: who knows whom, lists and a capture');
  for (const [name, key, level] of AWARENESS) await desk.call('directory.setAwareness', { partyId: per[key], principalId: member.get(name), level });
  const intro = await desk.call('directory.requestAwareness', {
    partyId: per.rosa,
    kind: 'introduce',
    note: 'Lighthouse Bakery is opening a second shop; I would like to pitch the fit-out signage before they brief anyone else.',
  });
  const launch = await desk.call('directory.createList', { name: 'Spring launch invitations', visibility: 'shared' });
  await desk.call('directory.addToList', { listId: launch.list.id, partyIds: [per.lucy, per.michael, per.rosa, per.anjali, per.ethan] });
  await desk.call('directory.shareList', {
    listId: launch.list.id,
    grants: [
      { principalId: member.get('Chloe Martin'), role: 'editor' },
      { principalId: member.get('Sofia Rossi'), role: 'viewer' },
    ],
  });
  // The agent's own worklist: private, so only it sees it (listLists with the admin key does not show it).
  const chase = await desk.call('directory.createList', { name: 'Suppliers owing tax invoices', visibility: 'private' }, agent);
  await desk.call('directory.addToList', { listId: chase.list.id, partyIds: [org.print, org.hosting] }, agent);

  // The agent read a remittance email and saw someone the directory does not hold: it proposes, a human decides.
  const captured = await desk.call(
    'directory.proposeCapture',
    {
      kind: 'person',
      fields: { given: 'Hamish', family: 'Reid', title: 'Marketing manager' },
      channels: [
        { kind: 'email', value: mail('hamish.reid', 'northsidephysio') },
        { kind: 'phone', value: '0491 572 549' },
      ],
      employerName: 'Northside Physio',
      // The mail it read (the email family is not built yet: the reference is the id that mail would have).
      evidence: [
        {
          source: 'email',
          ref: newId('eml'),
          snippet: 'Remittance attached. Hamish Reid, Marketing manager, Northside Physio - please send future invoices to me.',
        },
      ],
    },
    agent,
  );

  progress('Directory: look-alikes, proposed and dismissed');
  const sams = await desk.call('directory.proposeMerge', { survivorId: per.samSenior, mergedId: per.samJunior });
  await desk.call('directory.executeMerge', { mergeId: sams.merge.id, decision: 'dismiss' });
  // Last, so no later write leaves the proposal stale before a human reads it.
  const twice = await desk.call('directory.proposeMerge', { survivorId: per.jess, mergedId: per.jessica });

  return [
    `Directory (directory.listPeople, directory.getPerson, directory.listOrgs {"role":"books.customer"}):`,
    `  ${PEOPLE.length + 1} person records at ${Object.keys(ORGS).length} of the books' clients and suppliers, with emails, phones and employers; Jess Taylor reports to Michael Brennan (Coastal Realty); ${AWARENESS.length} awareness records say who in the studio knows whom`,
    `  directory.search {"q":"jess taylor"} (or {"q":"0491 570 110"}): Jess and Jessica Taylor, one person entered twice (same mobile, score ${twice.merge.score})`,
    `  directory.executeMerge {"mergeId":"${twice.merge.id}","decision":"merge"}: merge them as proposed; then directory.revertMerge {"mergeId":"${twice.merge.id}"} undoes it exactly`,
    `  directory.listMerges {"status":"dismissed"}: the two Sam Nguyens at Printworks are father and son, so that pair was dismissed and is not proposed again`,
    `  directory.resolveCapture {"captureId":"${captured.capture.id}","decision":"create"}: the bookkeeping agent saw Hamish Reid (Northside Physio) in a remittance email; a human creates him (the agent may not resolve its own capture)`,
    `  directory.ask {"question":"Who knows Michael Brennan?"}: answered from the awareness records, each claim cited; "How do I reach Trent Baxter?" gives no way in (do not contact)`,
    `  directory.exportVcard {"listId":"${launch.list.id}"}: the shared list "Spring launch invitations" as vCard 4.0 (the agent key would be held for a human); the agent's private list does not show in your directory.listLists`,
    `  directory.listAwarenessRequests {"box":"mine"}: your open request (${intro.request.id}) that Mia Chen introduce you to Rosa Medina of Lighthouse Bakery`,
  ];
}
