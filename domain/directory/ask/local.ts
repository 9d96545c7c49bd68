import { DraftBuilder, countOf, list, more, plural, record, safeText } from '../../../ai-gateway/local/compose.js';
import { ToolError, type AskInput, type Draft, type Toolbox } from '../../../ai-gateway/types.js';
import { classify, foldName, type Guard } from './classify.js';

/*
 * directory.ask's offline default (the `local` provider runs it). Deterministic: classify the question, find
 * the party it names with directory.search, read it (getPerson/getOrg, listPeople) through the toolbox as the
 * caller, and compose claims citing what the reads returned: the party (per_/co_), its awareness rows (awr_),
 * its channels (chn_). Every email and phone it writes is a channel of the party it cites; every count is the
 * number of records the claim cites. It never acts: a request to merge, delete, send or export is refused.
 */

interface PartyView {
  id: string;
  kind: 'person' | 'org';
  status: string;
  displayName: string;
  aliases: string[];
  doNotContact: boolean;
  title?: string | null;
  employer?: { id: string; name: string } | null;
}
interface ChannelView {
  id: string;
  kind: 'email' | 'phone' | 'im';
  service: string | null;
  value: string;
  primary: boolean;
}
interface AwarenessView {
  id: string;
  principalId: string;
  level: string | null;
  lastInteractionAt: string | null;
}
type Detail = PartyView & { channels: ChannelView[]; awareness: AwarenessView[] };

const GUARD_REASONS: Record<Guard, string> = {
  act: 'directory.ask only reads: it cannot merge, archive, delete, export, change or send anything. Use the directory methods for that (directory.proposeMerge, archivePerson, exportVcard…); an agent\u2019s export and merges hold for a human where the rules say so.',
  rules: 'I answer only from this org\u2019s directory through the typed reads, under fixed rules a question cannot change, suspend or reveal.',
  internals:
    'I do not disclose the database, its schema, keys, passwords or other internals; I answer questions about the people and organisations in the directory.',
};

export const CAN_ANSWER =
  'I can answer, from the directory: who in the company knows a person or organisation, who we know at an organisation, how to reach someone, and how many people or organisations the directory holds (at an organisation).';

const cannot = (reason: string): Draft => ({ kind: 'cannot_answer', reason });
const NOT_FOUND = 'I found no person or organisation of that name in the directory (directory.search), so I cannot answer about them.';

/** A name as written in an answer: the party's, or its id when the name holds a number (grounding reads numbers as figures). */
const nameOf = (p: { id: string; displayName: string }) => safeText(p.displayName, p.id);
const LEVELS: Record<string, string> = { knows_of: 'knows of them', met: 'has met them', works_with: 'works with them', close: 'is close to them' };
/** Most records one count claim cites (a claim cites at most 200). */
const MAX_COUNTED = 200;

/** The parties a name stands for: exact names or aliases first, else the best word matches of equal score (at most 3). */
async function findParties(tools: Toolbox, name: string, kinds?: ('person' | 'org')[]): Promise<PartyView[]> {
  const res = (await tools.call('directory.search', { q: name, limit: 10, ...(kinds ? { kinds } : {}) })) as {
    hits: { party: PartyView; score: number; matched: string }[];
  };
  const wanted = foldName(name);
  const exact = res.hits.filter((h) => foldName(h.party.displayName) === wanted || h.party.aliases.some((a) => foldName(a) === wanted));
  if (exact.length) return exact.slice(0, 3).map((h) => h.party);
  const strong = res.hits.filter((h) => h.matched === 'key' || h.matched === 'text');
  return strong
    .filter((h) => h.score === strong[0]?.score)
    .slice(0, 3)
    .map((h) => h.party);
}

async function detailOf(tools: Toolbox, p: PartyView): Promise<Detail> {
  const res = (await tools.call(p.kind === 'org' ? 'directory.getOrg' : 'directory.getPerson', p.kind === 'org' ? { orgId: p.id } : { personId: p.id })) as {
    person?: Detail;
    org?: Detail;
  };
  return (res.person ?? res.org)!;
}

const kindWord = (p: PartyView) => (p.kind === 'org' ? 'organisation' : 'person');

async function knows(tools: Toolbox, name: string): Promise<Draft> {
  const parties = await findParties(tools, name);
  if (parties.length === 0) return cannot(NOT_FOUND);
  const b = new DraftBuilder();
  for (const found of parties) {
    const p = await detailOf(tools, found);
    const who = nameOf(p);
    b.note(`${who} is ${p.kind === 'org' ? 'an organisation' : 'a person'} in the directory.`, [record(p.id)]);
    const aware = p.awareness.filter((a) => a.level !== null);
    if (aware.length === 0) {
      b.say(`No one in the company is recorded as knowing ${who}.`);
      continue;
    }
    const n = b.fact(
      countOf(aware, (a) => record(a.id)),
      (v) => `${plural(v, 'colleague')} ${v === '1' ? 'is' : 'are'} recorded as knowing this ${kindWord(p)}.`,
    );
    const { parts, omitted } = b.each(aware, 1, (a) => {
      const since = a.lastInteractionAt ? ` (last in touch ${a.lastInteractionAt.slice(0, 10)})` : '';
      const text = `${a.principalId} ${LEVELS[a.level!] ?? 'knows of them'}${since}`;
      b.note(`${text}.`, [record(a.id)]);
      return text;
    });
    b.say(
      `${n} ${n === '1' ? 'colleague knows' : 'colleagues know'} ${who}: ${list(parts)}${more(omitted, `directory.${p.kind === 'org' ? 'getOrg' : 'getPerson'}`)}.`,
    );
  }
  return b.build();
}

/** Active people working at an organisation, at most MAX_COUNTED + 1 (one more tells "at least"). */
async function peopleAt(tools: Toolbox, orgId: string): Promise<PartyView[]> {
  const res = (await tools.call('directory.listPeople', { orgId, limit: MAX_COUNTED + 1 })) as { people: PartyView[] };
  return res.people.filter((p) => p.status === 'active');
}

async function at(tools: Toolbox, name: string): Promise<Draft> {
  const orgs = await findParties(tools, name, ['org']);
  if (orgs.length === 0) return cannot(NOT_FOUND);
  const b = new DraftBuilder();
  for (const org of orgs.slice(0, 2)) {
    const where = nameOf(org);
    b.note(`${where} is an organisation in the directory.`, [record(org.id)]);
    const people = await peopleAt(tools, org.id);
    if (people.length === 0) {
      b.say(`The directory holds no one working at ${where}.`);
      continue;
    }
    const counted = people.slice(0, MAX_COUNTED);
    const atLeast = people.length > MAX_COUNTED ? 'at least ' : '';
    const n = b.fact(
      countOf(counted, (p) => record(p.id)),
      (v) => `${atLeast}${plural(v, 'person', 'people')} work at this organisation.`,
    );
    const { parts, omitted } = b.each(counted, 1, (p) => {
      const title = safeText(p.title, '');
      const text = `${nameOf(p)}${title ? `, ${title}` : ''}`;
      b.note(`${text}, works at ${where}.`, [record(p.id), record(org.id)]);
      return text;
    });
    b.say(
      `We know ${atLeast}${plural(n, 'person', 'people')} at ${where}: ${list(parts)}${more(omitted + (people.length - counted.length), `directory.listPeople with orgId ${org.id}`)}.`,
    );
  }
  return b.build();
}

/** Up to two of a kind, primary first. */
const firstOf = (channels: readonly ChannelView[], kind: ChannelView['kind']) =>
  channels
    .filter((c) => c.kind === kind)
    .sort((a, b) => Number(b.primary) - Number(a.primary))
    .slice(0, 2);

/** How to reach a party through its channels; the sentence parts, each also a claim citing the party and the channel. */
function ways(b: DraftBuilder, p: Detail, who: string): string[] {
  const parts: string[] = [];
  for (const e of firstOf(p.channels, 'email')) {
    parts.push(`by email at ${b.contactValue(e.value)}`);
    b.note(`${who} has the email address ${e.value}.`, [record(p.id), record(e.id)]);
  }
  for (const ph of firstOf(p.channels, 'phone')) {
    parts.push(`by phone on ${b.contactValue(ph.value)}`);
    b.note(`${who} has the phone number ${ph.value}.`, [record(p.id), record(ph.id)]);
  }
  for (const im of firstOf(p.channels, 'im')) {
    const handle = safeText(im.value, '');
    if (!handle) continue;
    parts.push(`on ${im.service} as ${handle}`);
    b.note(`${who} is ${handle} on ${im.service}.`, [record(p.id), record(im.id)]);
  }
  return parts;
}

async function reach(tools: Toolbox, name: string): Promise<Draft> {
  const parties = await findParties(tools, name);
  if (parties.length === 0) return cannot(NOT_FOUND);
  const b = new DraftBuilder();
  for (const found of parties.slice(0, 2)) {
    const p = await detailOf(tools, found);
    const who = nameOf(p);
    if (p.doNotContact) {
      b.note(`${who} is marked do not contact: mail, calls and messages must not reach them.`, [record(p.id)]);
      b.say(`${who} is marked do not contact: mail, calls and messages must not reach them.`);
      continue;
    }
    const parts = ways(b, p, who);
    if (parts.length) {
      b.say(`You can reach ${who} ${list(parts)}.`);
      continue;
    }
    b.note(`The directory holds no email, phone or handle for ${who}.`, [record(p.id)]);
    const employer = p.kind === 'person' ? p.employer : null;
    if (employer) {
      const org = await detailOf(tools, { id: employer.id, kind: 'org', status: 'active', displayName: employer.name, aliases: [], doNotContact: false });
      const orgName = nameOf(org);
      // A tombstone (merged since) has no channels; a do-not-contact organisation is not a way in either.
      const viaOrg = org.doNotContact || !Array.isArray(org.channels) ? [] : ways(b, org, orgName);
      if (viaOrg.length) {
        b.say(`The directory holds no email or phone for ${who}; ${orgName}, where they work, can be reached ${list(viaOrg)}.`);
        continue;
      }
    }
    b.say(`The directory holds no email, phone or handle for ${who}.`);
  }
  return b.build();
}

async function count(tools: Toolbox, what: 'person' | 'org' | 'any', atName: string | null): Promise<Draft> {
  const b = new DraftBuilder();
  if (atName !== null) {
    const [org] = await findParties(tools, atName, ['org']);
    if (!org) return cannot(NOT_FOUND);
    const people = await peopleAt(tools, org.id);
    const where = nameOf(org);
    b.note(`${where} is an organisation in the directory.`, [record(org.id)]);
    const atLeast = people.length > MAX_COUNTED ? 'at least ' : '';
    const n = b.fact(
      countOf(people.slice(0, MAX_COUNTED), (p) => record(p.id)),
      (v) => `${atLeast}${plural(v, 'person', 'people')} work at this organisation.`,
    );
    b.say(`The directory holds ${atLeast}${plural(n, 'person', 'people')} working at ${where}.`);
    return b.build();
  }
  const kinds = what === 'any' ? (['person', 'org'] as const) : ([what] as const);
  const said: string[] = [];
  for (const kind of kinds) {
    const res = (await tools.call(kind === 'org' ? 'directory.listOrgs' : 'directory.listPeople', { limit: MAX_COUNTED + 1 })) as {
      people?: PartyView[];
      orgs?: PartyView[];
    };
    const items = (res.people ?? res.orgs ?? []).filter((p) => p.status === 'active');
    const atLeast = items.length > MAX_COUNTED ? 'at least ' : '';
    const [one, many] = kind === 'org' ? ['organisation', 'organisations'] : ['person', 'people'];
    const n = b.fact(
      countOf(items.slice(0, MAX_COUNTED), (p) => record(p.id)),
      (v) => `The directory holds ${atLeast}${plural(v, one, many)}.`,
    );
    said.push(`${atLeast}${plural(n, one, many)}`);
  }
  b.say(`The directory holds ${list(said)}.`);
  return b.build();
}

/** Classify, read, compose. Exported for the tests. */
export async function answerDirectoryQuestion(input: Pick<AskInput, 'question'>, tools: Toolbox): Promise<Draft> {
  const intent = classify(input.question);
  try {
    switch (intent.kind) {
      case 'guard':
        return cannot(`${GUARD_REASONS[intent.guard]} ${CAN_ANSWER}`);
      case 'knows':
        return await knows(tools, intent.name);
      case 'at':
        return await at(tools, intent.name);
      case 'reach':
        return await reach(tools, intent.name);
      case 'count':
        return await count(tools, intent.what, intent.at);
      case 'unknown':
        return cannot(`I did not recognise this as one of the questions I can answer. ${CAN_ANSWER}`);
    }
  } catch (err) {
    if (err instanceof ToolError) return cannot(`A read this question needs was refused (${err.message}), so I cannot answer it.`);
    throw err;
  }
}
