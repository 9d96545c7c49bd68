import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYED, METHOD_HANDLERS } from '../../domain/deployed.js';
import { createMailbox } from '../../domain/email/index.js';
import { head, ok } from '../helpers/calls.js';
import { castServer, person, type Cast, type Person } from '../helpers/people.js';
import { expectError } from '../helpers/frames.js';
import { openOrgStream, type OrgStream } from '../helpers/org-stream.js';

const EVENT_VISIBILITY = DEPLOYED.eventVisibility;

/*
 * Per-event visibility (domain/stream/visibility.ts): GET /events, the live stream and MCP's wops://ledger show a
 * member only the events of access-controlled rows it may read (a private channel, a restricted folder, a call,
 * what annotations and pins point at), as the reads answer for those rows; a human admin key sees the whole chain.
 */

/**
 * Deployed families whose rows every member with the family's read scope may read: their events need no per-event
 * rule. A family is either here (with the reason) or in EVENT_VISIBILITY; a new family that is in neither fails.
 */
const ORG_WIDE: Readonly<Record<string, string>> = {
  board: 'tasks and workstreams are read org-wide with board.read',
  books: 'the books are read org-wide with books.read',
  governance: "decision rights are the org's",
  org: "org settings and keys are the org's",
  settings: "org settings and keys are the org's",
  approval: 'approvals are listed org-wide (the inbox)',
  pairing: "pairing requests are the org's admins'",
  member: 'the member list is read org-wide',
  team: 'teams are read org-wide',
  persona: 'personas are read org-wide',
  profile: 'profiles are read org-wide',
  notification: "its events carry ids and counts of the caller's own preferences",
  hierarchy: 'the org chart is read org-wide',
  user: "people admin acts are the org's",
  admin: "people admin acts are the org's",
  invitation: "invitations are the org's",
  billing: "billing is the org's",
  decision: 'decisions are read org-wide (decision.list)',
  charter: 'the charter is read org-wide',
  compact: 'compacts are read org-wide',
  policy: 'policies are read org-wide (GET /policy)',
  escalation: 'escalations are read org-wide',
  handoff: 'handoffs are read org-wide',
  directory: 'directory events carry ids of parties read org-wide with org.read',
  contact: 'contacts are read org-wide',
  contacts: 'contacts are read org-wide with knowledge.read',
  crm: 'crm events carry ids, stages, amounts, currencies and counts; accounts, contacts and deals are read org-wide with crm.read',
  knowledge: 'knowledge events carry entry and search ids, revisions and counts; entries are read org-wide with knowledge.read',
  memory: 'memory events carry block and amendment ids, versions and SHA-256s, never values',
  sop: 'SOPs are read org-wide (sop.list, org.read)',
  credential: 'credential events carry secret, lease and principal ids, versions and TTLs, never a value, name or purpose',
  integration: 'integration events carry integration ids, hosts, tool counts and toolset hashes; integrations are listed org-wide (integration.list)',
  registry: 'registry events carry registration ids, statuses and counts; agents are listed org-wide (GET /org/agents)',
  presence: 'presence events carry statuses, task ids and expiry, never the status text; presence is shown org-wide (GET /org/agents)',
  lease: 'lease events carry lease ids, names and fencing tokens; leases are listed org-wide (GET /org/leases)',
  cost: 'cost events carry counts, tokens, micro-dollars and model names; spend is read org-wide (GET /cost.rollup, org.read)',
  branding: 'branding events carry versions, paths, hashes and the design head; the foundation is read org-wide with design.read',
  artifact: 'artifact appends no ledger event (its methods are R; its writes record in the design log), so it has none to hide',
};

describe('per-event visibility: every deployed family is classified', () => {
  it('each family with methods has a visibility rule (its descriptor: eventVisibility) or is declared org-wide here', () => {
    const families = new Set([...METHOD_HANDLERS.keys()].map((m) => m.slice(0, m.indexOf('.'))));
    const unclassified = [...families].filter((f) => !EVENT_VISIBILITY.has(f) && !Object.hasOwn(ORG_WIDE, f));
    expect(unclassified, 'families whose events need a visibility rule (or a reason they are org-wide)').toEqual([]);
    expect([...EVENT_VISIBILITY.keys()].filter((f) => Object.hasOwn(ORG_WIDE, f))).toEqual([]);
    expect([...EVENT_VISIBILITY.keys()].sort()).toEqual(['annotation', 'calendar', 'calling', 'channel', 'email', 'file', 'files', 'meetings', 'messaging']);
  });
});

let o: Cast;
let ivy: Person;
let base: string;
/** Seqs of the private scenario (every event in it is about a private channel, a restricted folder or a call). */
let secret: number[] = [];
let before = 0;
const streams: OrgStream[] = [];

async function allSeqs(key: string, after: number, limit = 500): Promise<number[]> {
  const seqs: number[] = [];
  let cursor = after;
  for (;;) {
    const page = await o.s.client.get('events', { cursor, limit }, { key });
    expect(page.status, page.raw).toBe(200);
    seqs.push(...page.body.events.map((e: any) => e.seq));
    if (page.body.nextCursor === cursor) return seqs;
    expect(page.body.nextCursor).toBeGreaterThan(cursor);
    cursor = page.body.nextCursor;
  }
}

/**
 * The private scenario: mia acts in a private channel (ivy a member), a call in it, a restricted folder (ivy a viewer),
 * a shared mailbox, and a private calendar event with ivy invited and its meeting.
 */
async function scenario(): Promise<void> {
  const { s, mia } = o;
  const ch = (await ok(s, 'channel.create', { name: `secret-${Date.now()}`, private: true, memberIds: [ivy.id] }, mia.key)).channel.id;
  await ok(s, 'messaging.send', { channelId: ch, idempotencyId: 'v-1', text: `hello <@${ivy.id}>` }, mia.key);
  await ok(
    s,
    'messaging.react',
    { messageId: (await ok(s, 'messaging.history', { channelId: ch }, mia.key)).messages[0].id, emoji: ':tada:', on: true },
    mia.key,
  );
  await ok(s, 'calling.start', { channelId: ch, title: 'secret call' }, mia.key);
  const folder = (await ok(s, 'files.create', { kind: 'folder', name: 'Restricted', restricted: true }, mia.key)).file;
  await ok(s, 'files.shareGrant', { fileId: folder.id, grantee: { principalId: ivy.id }, role: 'viewer' }, mia.key);
  const file = (await ok(s, 'files.uploadRegister', { name: 'plan.txt', contentBase64: Buffer.from('plan').toString('base64'), parentId: folder.id }, mia.key))
    .file;
  await ok(s, 'files.rename', { fileId: file.id, name: 'renamed.txt' }, mia.key);
  await ok(s, 'files.commentAdd', { fileId: file.id, body: 'a comment' }, mia.key);
  await ok(s, 'annotation.create', { targetId: file.id, kind: 'comment', body: 'a thread' }, mia.key);
  await ok(s, 'file.addComment', { targetId: file.id, body: 'a discussion' }, mia.key);
  await ok(s, 'file.pin', { targetId: file.id, place: folder.id }, mia.key);
  // A mailbox of mia and ivy (the operator's act, ledgered), and mia's draft in it.
  const members = [
    { principalId: mia.id, role: 'owner' as const },
    { principalId: ivy.id, role: 'member' as const },
  ];
  const { mailboxId } = await s.runtime.db.tx((q) => createMailbox(q, s.org.orgId, { address: `secret-${Date.now()}@acme.example`, members }));
  await ok(s, 'email.draftSave', { mailboxId, to: ['a@b.example'], subject: 'secret' }, mia.key);
  // A private calendar event of mia's with ivy invited, and the meeting recorded on it.
  const when = (h: string) => ({ dateTime: `2026-06-01T${h}:00:00`, timeZone: 'Europe/Berlin' });
  const event = (
    await ok(
      s,
      'calendar.create',
      { title: 'secret', start: when('09'), end: when('10'), visibility: 'private', attendees: [{ principalId: ivy.id }], notify: 'none' },
      mia.key,
    )
  ).event;
  await ok(s, 'meetings.record', { eventId: event.id, startedAt: '2026-06-01T07:00:00Z', endedAt: '2026-06-01T08:00:00Z', notes: 'secret notes' }, mia.key);
}

beforeAll(async () => {
  o = await castServer();
  ivy = await person(o.s, 'Ivy Insider', { tier: 'member' });
  base = await o.s.app.listen({ port: 0, host: '127.0.0.1' });
  before = await head(o.s.client);
  for (const key of [o.max.key, ivy.key, o.owner.key]) {
    const stream = await openOrgStream(base, key);
    await stream.until(() => stream.comments.some((c) => c.startsWith('live after')), 'live');
    streams.push(stream);
  }
  await scenario();
  const after = await head(o.s.client);
  secret = Array.from({ length: after - before }, (_, i) => before + i + 1);
}, 60_000);

afterAll(async () => {
  for (const s of streams) s.close();
  await o?.s.close();
});

describe('GET /events and the live stream leave out what reads hide', () => {
  it('the scenario touches every family with a rule', async () => {
    const page = await o.s.client.get('events', { cursor: before, limit: 500 });
    const families = new Set(page.body.events.map((e: any) => e.family));
    for (const f of EVENT_VISIBILITY.keys()) expect(families, `the scenario has a ${f} event`).toContain(f);
    expect(page.body.events.map((e: any) => e.kind)).toEqual(
      expect.arrayContaining([
        'messaging.message.send',
        'files.comment.add',
        'files.file.rename',
        'calling.call.start',
        'annotation.thread.create',
        'file.pin.add',
      ]),
    );
  });

  it('a member outside sees none of them; a member inside and the admin see every one (GET /events)', async () => {
    expect(await allSeqs(o.max.key, before)).toEqual([]);
    expect(await allSeqs(ivy.key, before)).toEqual(secret);
    expect(await allSeqs(o.owner.key, before)).toEqual(secret);
    // What the reads answer for the same rows: NOT_FOUND for the outsider.
    const page = await o.s.client.get('events', { cursor: before, limit: 500 });
    const sent = page.body.events.find((e: any) => e.kind === 'messaging.message.send');
    expectError(await o.s.client.rpc('messaging.history', { channelId: sent.payload.channelId }, { key: o.max.key }), 'NOT_FOUND');
  });

  it('paging with a small limit walks past hidden rows: nextCursor moves on, nothing is skipped or repeated', async () => {
    const marker = (await ok(o.s, 'board.createTask', { title: 'after the secrets' }, o.owner.key)).id;
    const tail = await allSeqs(o.max.key, before, 1);
    expect(tail).toEqual([secret.at(-1)! + 1]);
    const page = await o.s.client.get('events', { cursor: before, limit: 1 }, { key: o.max.key });
    expect(page.body.events[0].entity_id).toBe(marker);
    expect(await allSeqs(ivy.key, before, 2)).toEqual([...secret, secret.at(-1)! + 1]);
  });

  it('the stream: the outsider gets no frame of them, the insider and the admin every one', async () => {
    const [max, inside, admin] = streams;
    const end = secret.at(-1)! + 1; // the marker task, seen by all
    for (const s of streams) await s.until(() => s.frames.some((f) => f.id >= end), `frame ${end}`);
    expect(max.frames.map((f) => f.id)).toEqual([end]);
    // The stream decides when it delivers: the restricted folder's creation came before ivy's grant on it, so her
    // stream may have left it out (GET /events, asked later, shows it); everything after the grant she sees.
    const folderCreated = admin.frames.find((f) => f.data.kind === 'files.file.create' && f.data.payload.kind === 'folder')!.id;
    expect(inside.frames.map((f) => f.id).filter((id) => id !== folderCreated)).toEqual([...secret.filter((id) => id !== folderCreated), end]);
    expect(admin.frames.map((f) => f.id)).toEqual([...secret, end]);
    // Resuming from before the secrets replays what the key may see, no more.
    const again = await openOrgStream(base, o.max.key, { lastEventId: before });
    try {
      await again.until(() => again.frames.some((f) => f.id >= end), 'the backlog');
      expect(again.frames.map((f) => f.id)).toEqual([end]);
    } finally {
      again.close();
    }
  });

  it('membership changes mid-stream: added, the outsider sees what follows; removed, it stops', async () => {
    const { s, mia, max } = o;
    const stream = streams[0];
    const ch = (await ok(s, 'channel.create', { name: `later-${Date.now()}`, private: true }, mia.key)).channel.id;
    const hiddenSend = (await ok(s, 'messaging.send', { channelId: ch, idempotencyId: 'l-1', text: 'before max' }, mia.key)).message.id;
    await ok(s, 'channel.addMember', { channelId: ch, principalId: max.id }, mia.key);
    const seenSend = (await ok(s, 'messaging.send', { channelId: ch, idempotencyId: 'l-2', text: 'with max' }, mia.key)).message.id;
    await ok(s, 'channel.removeMember', { channelId: ch, principalId: max.id }, mia.key);
    const goneSend = (await ok(s, 'messaging.send', { channelId: ch, idempotencyId: 'l-3', text: 'after max' }, mia.key)).message.id;
    const marker = (await ok(s, 'board.createTask', { title: 'marker' }, o.owner.key)).id;
    await stream.until(() => stream.frames.some((f) => f.data.entity_id === marker), 'the marker');
    const ids = stream.frames.map((f) => f.data.entity_id);
    expect(ids).toContain(seenSend);
    expect(ids).not.toContain(goneSend);
    // The stream decided at delivery time: the message before max joined came with the batch of his joining or
    // before it. What it must never show is what followed his removal.
    expect(stream.frames.filter((f) => f.data.kind === 'channel.member.remove').map((f) => f.data.payload.principalId)).toEqual([max.id]);
    void hiddenSend;
  });

  it('an agent of the org is a member like any other: outside, nothing; a human admin sees all', async () => {
    expect((await allSeqs(o.agent.key, before, 3)).filter((q) => secret.includes(q))).toEqual([]);
    const auditor = await person(o.s, 'Ada Admin', { tier: 'admin' });
    expect((await allSeqs(auditor.key, before)).slice(0, secret.length)).toEqual(secret);
  });

  it('MCP-facing reads follow it too: books.ask-style readers and wops://ledger read GET /events as the key', async () => {
    const headSeq = await head(o.s.client);
    const page = await o.s.client.get('events', { cursor: Math.max(0, headSeq - 50), limit: 50 }, { key: o.max.key });
    expect(page.body.events.map((e: any) => e.seq).filter((q: number) => secret.includes(q))).toEqual([]);
  });
});

describe('a cursor beyond the head', () => {
  it('GET /events refuses it naming cursor and the head; the stream refuses after= and Last-Event-ID alike', async () => {
    const h = await head(o.s.client);
    expectError(await o.s.client.get('events', { cursor: h + 7 }), 'BAD_REQUEST', new RegExp(`^cursor: ${h + 7} is beyond the org's head seq ${h};`));
    expectError(await o.s.client.get('events', { cursor: h + 7 }, { key: o.max.key }), 'BAD_REQUEST', /^cursor: /);
    expect((await o.s.client.get('events', { cursor: h })).body).toEqual({ events: [], nextCursor: h });
    await expect(openOrgStream(base, o.max.key, { query: { after: h + 3 } })).rejects.toMatchObject({
      status: 400,
      body: expect.stringContaining(`after: ${h + 3} is beyond the org's head seq ${h}`),
    });
    await expect(openOrgStream(base, o.max.key, { lastEventId: h + 1 })).rejects.toMatchObject({
      status: 400,
      body: expect.stringContaining(`last-event-id: ${h + 1} is beyond the org's head seq`),
    });
    const at = await openOrgStream(base, o.max.key, { lastEventId: h });
    at.close();
  });
});
