import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { catalogFor } from '../../mcp/catalog.js';
import { holdDescribeNote, holdListingNote } from '../../mcp/hold-notes.js';
import { META_TOOLS } from '../../mcp/meta-tools.js';
import { META } from '../../mcp/results.js';
import { castServer, type Cast } from '../helpers/people.js';
import { newChannel } from '../domain/messaging/core-kit.js';
import { connectInMemory, structured, type Connected } from './fixtures.js';

/*
 * What agents are told over MCP, checked over every deployed method: the hold notes of tools and describe_method
 * are generated from each contract's hold declaration (and the pipeline refuses a hold of another completion);
 * no summary asks an agent to file what the server files; methods that dedupe by a field of their own declare it
 * and mark a repeat as a replay, over HTTP and MCP; no call is held open past 50 s; search_methods understands
 * plain English; the server advertises listChanged false on the wire.
 */

let o: Cast;
let agent: Connected;
beforeAll(async () => {
  o = await castServer();
  agent = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'messaging' });
}, 60_000);
afterAll(async () => {
  await agent.close();
  await o.s.close();
});

const call = (name: string, args: Record<string, unknown> = {}) => agent.client.callTool({ name, arguments: args });
const deployed = () => [...o.s.runtime.pipeline.handlers];

/** The object schema of params or a result (unwrapping refinements), or undefined. */
function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> | undefined {
  const def = (schema as { def?: { type?: string; shape?: Record<string, z.ZodType>; in?: z.ZodType } } | undefined)?.def;
  if (!def) return undefined;
  if (def.type === 'object') return def.shape;
  if (def.type === 'pipe' && def.in) return shapeOf(def.in);
  return undefined;
}

describe('hold notes come from each method’s hold declaration', () => {
  it('every deployed method: mayHold iff its contract declares hold; the listing and describe_method say exactly the generated note', async () => {
    const catalog = catalogFor(o.s.runtime.pipeline);
    let holds = 0;
    for (const [name, handler] of deployed()) {
      expect(handler.mayHold, name).toBe(handler.contract.hold !== undefined);
      // A method carrying a secret value is not served over MCP: describe_method says why instead (tests/domain/vault/canary.test.ts).
      if (handler.contract.notOverMcp) continue;
      const entry = catalog.byTarget.get(name)!;
      const described = structured(await call(META_TOOLS.describe, { name }));
      const notes = described.notes.join(' ');
      if (!handler.contract.hold) {
        expect(notes, name).not.toMatch(/signature act|approval_required/i);
        expect(entry.definition.description, name).not.toMatch(/returns a hold|approval_required/);
        continue;
      }
      holds++;
      const hold = handler.contract.hold;
      expect(described.notes, name).toContain(holdDescribeNote(hold));
      // The listing's note: the condition too, unless the summary's brief already says when it holds.
      const listed = entry.definition.description;
      expect(
        [holdListingNote(hold), holdListingNote(hold, 'holds')].some((note) => listed.endsWith(note)),
        `${name}: ${listed}`,
      ).toBe(true);
      if (hold.when && !listed.endsWith(holdListingNote(hold))) expect(listed.slice(0, listed.indexOf(' [')), name).toMatch(/\bholds?\b/i);
      // The words fit the mode: release never asks for a retry with the proof; retry never says the approve runs it.
      if (hold.completion === 'release') expect(notes, name).not.toMatch(/call it again with|plus approvalId/);
      else expect(notes, name).not.toMatch(/approve runs the act/);
      // Conditional holds say when, and that otherwise the call runs.
      if (hold.when) expect(notes, name).toContain(`only when ${hold.when}; otherwise it runs at once`);
      // Over MCP the server files the approval: no summary tells the agent to file it.
      expect(handler.contract.summary, name).not.toMatch(/file approval\.request/i);
    }
    expect(holds).toBeGreaterThanOrEqual(39);
  }, 120_000);

  it('the named methods: conditional and release holds are described as such', async () => {
    const notes = async (name: string) => structured(await call(META_TOOLS.describe, { name })).notes.join(' ');
    expect(await notes('messaging.send')).toMatch(
      /^.*Signature act \(retry mode\)\. It holds for a human only when an agent's <!channel> would reach more than 20 humans; otherwise it runs at once\./s,
    );
    expect(await notes('files.shareGrant')).toMatch(/only when an agent shares with an outside email/);
    expect(await notes('decision.adopt')).toMatch(/only when the caller's decision rights do not cover the decision/);
    expect(await notes('board.deleteWorkstream')).toMatch(/Signature act \(release mode\).*a human’s approve runs the act itself.*Do not call it again\./s);
    expect(await notes('books.payrollSign')).toMatch(/Signature act \(retry mode\)\. Every call without proof holds for a human\./);
  });
});

describe('domain-level dedupes are declared and said to be replays', () => {
  it('every deployed method with a dedupe field declares it, and its result can say replayed', () => {
    const DEDUPE_FIELDS = /^(idempotencyId|clientMsgId|clientId|txnId|dedupeKey)$/;
    for (const [name, handler] of deployed()) {
      const params = shapeOf(handler.contract.params) ?? {};
      const field = Object.keys(params).find((k) => DEDUPE_FIELDS.test(k));
      // An R write (contract writes) is replayed by the pipeline on its idempotencyId, not deduped by its domain.
      if (field && !handler.contract.writes) expect(handler.contract.dedupeBy, `${name} dedupes by ${field}: declare it (dedupeBy)`).toBe(field);
      if (handler.contract.dedupeBy) {
        expect(Object.keys(params), name).toContain(handler.contract.dedupeBy);
        expect(Object.keys(shapeOf(handler.contract.result) ?? {}), `${name}: its result must allow replayed`).toContain('replayed');
      }
    }
  });

  it('messaging.send: a repeat of the idempotencyId under a new idempotencyKey is marked a replay over MCP and HTTP; the key replay names idempotencyId', async () => {
    const channel = await newChannel(o, { members: [o.agent, o.mia] });
    const args = { channelId: channel.id, idempotencyId: 'deploy-7', text: 'Deploy 7 is live' };
    const first = await call('messaging_send', args);
    expect(first.content).toHaveLength(1);
    expect(structured(first)).toMatchObject({ changed: true });
    expect(structured(first)).not.toHaveProperty('replayed');

    // The same call again: the key replay tells how to send another on purpose: a new idempotencyId.
    const keyReplay = await call('messaging_send', args);
    expect((keyReplay.content as { text: string }[])[0].text).toMatch(/^Replayed: .* call with a new idempotencyId \(and a new idempotencyKey, or none\)/);

    // A new idempotencyKey with the same idempotencyId: the domain's replay, said so first and in the result.
    const deduped = await call('messaging_send', { ...args, idempotencyKey: 'another-key' });
    const [note] = deduped.content as { text: string }[];
    expect(note.text).toBe(
      'Replayed: idempotencyId "deploy-7" already named an earlier call; this is its result and nothing ran again (changed is false). To do it again on purpose, call with a new idempotencyId.',
    );
    const result = structured(deduped);
    expect(result).toMatchObject({ changed: false, replayed: true, message: { id: structured(first).message.id } });
    expect(deduped._meta).toMatchObject({ [META.replayed]: true });

    // HTTP: the frame's result says it too.
    const http = await o.s.client.rpc('messaging.send', args, { key: o.agent.key, idem: 'http-key-1' });
    expect(http.body.result).toMatchObject({ changed: false, replayed: true });
    // A new idempotencyId sends a new message, with no replay mark.
    const fresh = structured(await call('messaging_send', { ...args, idempotencyId: 'deploy-7b' }));
    expect(fresh).toMatchObject({ changed: true });
    expect(fresh).not.toHaveProperty('replayed');
  });
});

describe('no call is held open past 50 s', () => {
  it('every wait or timeout a method or read takes is at most 50,000 ms', () => {
    const reads = [...o.s.runtime.pipeline.reads].map(([path, r]) => [path, r.contract.query] as const);
    const methods = deployed().map(([name, h]) => [name, h.contract.params] as const);
    let bounded = 0;
    for (const [name, schema] of [...reads, ...methods]) {
      for (const [field, type] of Object.entries(shapeOf(schema) ?? {})) {
        if (!/^(wait|timeout)/i.test(field)) continue;
        const json = z.toJSONSchema(type, { io: 'input', unrepresentable: 'any' }) as { maximum?: number };
        expect(json.maximum, `${name}.${field}`).toBeLessThanOrEqual(50_000);
        bounded++;
      }
    }
    expect(bounded).toBeGreaterThanOrEqual(2);
  });
});

describe('search_methods and the server’s capabilities', () => {
  it('plain-English queries find their methods among the first five', async () => {
    const everything = await connectInMemory(o.s.runtime, o.owner.key, { toolsets: 'all' });
    try {
      const cases: [string, string][] = [
        ['search the directory for a person', 'directory.search'],
        ['add a comment to a document', 'annotation.create'],
        ['send a message to a channel', 'messaging.send'],
        ['what approvals are waiting for me', 'approval.list'],
        ['create a task on the board', 'board.createTask'],
        ['invite someone to the workspace by email', 'invitation.create'],
        ['share a file with someone', 'files.shareGrant'],
        ['schedule a message for later', 'messaging.schedule'],
        ['look up a contact by email', 'contacts.upsert'],
      ];
      for (const [query, expected] of cases) {
        const found = structured(await everything.client.callTool({ name: META_TOOLS.search, arguments: { query, limit: 5 } }));
        expect(
          found.matches.map((m: { name: string }) => m.name),
          query,
        ).toContain(expected);
      }
      // Stop words alone match nothing.
      expect(structured(await everything.client.callTool({ name: META_TOOLS.search, arguments: { query: 'the a to for of' } })).total).toBe(0);
    } finally {
      await everything.close();
    }
  });

  it('the initialize result advertises listChanged false for tools and resources (the server never sends it)', () => {
    const advertised = agent.client.getServerCapabilities();
    expect(advertised?.tools).toEqual({ listChanged: false });
    expect(advertised?.resources).toEqual({ listChanged: false });
  });

  it('approval_list answers pending approvals by default; status all lists every status', async () => {
    const core = await connectInMemory(o.s.runtime, o.agent.key, { toolsets: 'approval' });
    try {
      const filed = await o.s.client.ok(
        'approval.request',
        { actionClass: 'board.example', payloadHash: 'a'.repeat(64), subject: { kind: 'board.review', subjectId: 'task_x1', summary: 'Review x' } },
        { key: o.agent.key },
      );
      const decided = await o.s.client.ok(
        'approval.request',
        { actionClass: 'board.example', payloadHash: 'b'.repeat(64), subject: { kind: 'board.review', subjectId: 'task_x2', summary: 'Review y' } },
        { key: o.agent.key },
      );
      await o.s.client.ok('approval.resolve', { approvalId: decided.approvalId, decision: 'reject' }, { key: o.owner.key });
      const listed = structured(await core.client.callTool({ name: 'approval_list', arguments: {} })).approvals;
      expect(listed.map((a: { status: string }) => a.status)).toEqual(listed.map(() => 'pending'));
      expect(listed.map((a: { approvalId: string }) => a.approvalId)).toContain(filed.approvalId);
      const all = structured(await core.client.callTool({ name: 'approval_list', arguments: { status: 'all' } })).approvals;
      expect(all.map((a: { approvalId: string }) => a.approvalId)).toEqual(expect.arrayContaining([filed.approvalId, decided.approvalId]));
    } finally {
      await core.close();
    }
  });
});
