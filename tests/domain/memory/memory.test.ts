import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsAfter, fileAndApprove, head, held, mutate, noop, ok, read, refused, rpc } from '../../helpers/calls.js';
import { sha256Hex } from '../../../protocol/hashing.js';
import { memOrg, type MemOrg } from '../knowledge/kit.js';

/** memory.author, list, proposeAmendment and mergeAmendment: blocks agents load, changed by amendments on a version. */

let o: MemOrg;
beforeAll(async () => {
  o = await memOrg();
});
afterAll(() => o.s.close());

const author = async (params: Record<string, unknown>, key?: string) =>
  (await mutate(o.s, 'memory.author', params, 'memory.block.author', { key })).result.block;

describe('memory.author', () => {
  it('writes a block by label: version and sha256 in the event, never the value; the same again: changed:false', async () => {
    const { result, event } = await mutate(
      o.s,
      'memory.author',
      { label: 'persona', value: 'I am the books agent.', description: 'Who I am.' },
      'memory.block.author',
      {
        key: o.agent.key,
        entityId: (r) => r.block.id,
      },
    );
    expect(result.block).toMatchObject({
      ownerId: o.agent.id,
      version: 1,
      audience: 'self',
      limit: 2000,
      chars: 21,
      sha256: sha256Hex('I am the books agent.'),
    });
    expect(event.payload).toMatchObject({ blockId: result.block.id, version: 1, sha256: sha256Hex('I am the books agent.'), audience: 'self', created: true });
    expect(JSON.stringify(event)).not.toContain('books agent');
    await noop(o.s, 'memory.author', { label: 'persona', value: 'I am the books agent.' }, 'memory.block.author', o.agent.key);
    const v2 = await author({ label: 'persona', value: 'I am the books agent of Acme.', ifVersion: 1 }, o.agent.key);
    expect(v2).toMatchObject({ id: result.block.id, version: 2, description: 'Who I am.' });
    await refused(o.s, 'memory.author', { label: 'persona', value: 'x', ifVersion: 1 }, 'CONFLICT', { key: o.agent.key, message: /at version 2, not 1/ });
  });

  it('over the limit: BAD_REQUEST value: N characters over limit; bad labels and audiences name the field; reader keys refused', async () => {
    await refused(o.s, 'memory.author', { label: 'long', value: 'x'.repeat(2140) }, 'BAD_REQUEST', { message: 'value: 140 characters over limit 2000' });
    await refused(o.s, 'memory.author', { label: 'Bad Label', value: 'x' }, 'BAD_REQUEST', { message: /^label: / });
    await refused(o.s, 'memory.author', { label: 'team', value: 'x', audience: { agents: ['agt_nosuch'] } }, 'BAD_REQUEST', {
      message: /^audience\.agents\.0: no agent/,
    });
    await refused(o.s, 'memory.author', { label: 'x', value: 'x' }, 'FORBIDDEN_SCOPE', { key: o.viewer.key, message: /missing scope knowledge.write/ });
    const before = await head(o.s);
    const a = await rpc(o.s, 'memory.author', { label: 'idem', value: 'v' }, o.mia.key, 'mem-idem');
    const b = await rpc(o.s, 'memory.author', { label: 'idem', value: 'v' }, o.mia.key, 'mem-idem');
    expect(b.body).toEqual(a.body);
    expect((await eventsAfter(o.s, before)).length).toBe(1);
  });

  it('an agent writing a block others load holds (memory.author); after approval it is written', async () => {
    const params = { label: 'shared-notes', value: 'Clients: Acme, Globex.', audience: 'org' };
    const approval = await held(o.s, 'memory.author', params, { key: o.agent.key, holdKind: 'memory.signature.hold' });
    expect(approval).toMatchObject({ actionClass: 'memory.author', subject: { kind: 'memory.signature' } });
    const approvalId = await fileAndApprove(o.s, approval, { requester: o.agent.key });
    const block = await author({ ...params, approvalId }, o.agent.key);
    expect(block).toMatchObject({ audience: 'org', version: 1, id: approval.subject.subjectId });
    // A human writes shared blocks directly.
    expect((await author({ label: 'house-style', value: 'Plain words.', audience: { agents: [o.agent2.id] } }, o.mia.key)).audience).toEqual({
      agents: [o.agent2.id],
    });
  });
});

describe('memory.list', () => {
  it('humans see every block; an agent the blocks it loads; format prompt compiles them; R appends nothing', async () => {
    const own = await author({ label: 'scratch', value: 'Remember the Q3 close.' }, o.agent2.key);
    const org = await author({ label: 'company', value: 'Acme Pty Ltd, Sydney.', description: 'The company.', audience: 'org' }, o.owner.key);
    const all = await read(o.s, 'memory.list', {}, o.mia.key);
    expect(all.blocks.map((b: any) => b.id)).toEqual(expect.arrayContaining([own.id, org.id]));
    const mine = await read(o.s, 'memory.list', { format: 'prompt' }, o.agent2.key);
    expect(mine.blocks[0].id).toBe(own.id);
    expect(mine.blocks.map((b: any) => b.id)).toContain(org.id);
    expect(mine.prompt).toContain('<company>\n<description>\nThe company.\n</description>');
    expect(mine.prompt).toContain('Acme Pty Ltd, Sydney.');
    const agentOne = await read(o.s, 'memory.list', {}, o.agent.key);
    expect(agentOne.blocks.map((b: any) => b.id)).not.toContain(own.id);
    expect((await read(o.s, 'memory.list', { forAgentId: o.agent2.id }, o.mia.key)).blocks.map((b: any) => b.id)).toContain(own.id);
    await refused(o.s, 'memory.list', { forAgentId: o.agent2.id }, 'FORBIDDEN_SCOPE', { key: o.agent.key, message: /^missing role/ });
    await refused(o.s, 'memory.list', { forAgentId: 'agt_nosuch' }, 'NOT_FOUND');
    await refused(o.s, 'memory.list', {}, 'FORBIDDEN_SCOPE', { key: o.noKnowledge.key });
    await refused(o.s, 'memory.list', { format: 'xml' }, 'BAD_REQUEST', { message: /^format: must be one of/ });
  });
});

describe('memory.proposeAmendment and mergeAmendment', () => {
  it('append and replace on the current version; oldText absent: CONFLICT, twice: BAD_REQUEST; owner merges, proposer cannot', async () => {
    const block = await author({ label: 'clients', value: 'Acme pays late.\nGlobex pays late.', audience: 'org' }, o.mia.key);
    await refused(o.s, 'memory.proposeAmendment', { blockId: block.id, op: 'replace', oldText: 'pays late', newText: 'x', reason: 'r' }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: /^oldText: matches 2 places/,
    });
    await refused(o.s, 'memory.proposeAmendment', { blockId: block.id, op: 'replace', oldText: 'Initech', newText: 'x', reason: 'r' }, 'CONFLICT', {
      key: o.agent.key,
      message: /oldText is not in memory block/,
    });
    await refused(o.s, 'memory.proposeAmendment', { blockId: block.id, op: 'append', newText: 'x', reason: 'r', baseVersion: 7 }, 'CONFLICT', {
      key: o.agent.key,
    });
    const { result, event } = await mutate(
      o.s,
      'memory.proposeAmendment',
      { blockId: block.id, op: 'replace', oldText: 'Acme pays late.', newText: 'Acme pays on time since May.', reason: 'Ledger shows it.' },
      'memory.amendment.propose',
      { key: o.agent.key },
    );
    expect(result.amendment).toMatchObject({ status: 'open', baseVersion: 1, proposerId: o.agent.id });
    expect(event.payload).toEqual({ amendmentId: result.amendment.id, blockId: block.id, baseVersion: 1, op: 'replace' });
    expect((await read(o.s, 'memory.list', {}, o.agent.key)).amendments.map((a: any) => a.id)).toContain(result.amendment.id);
    const mine = await ok(o.s, 'memory.proposeAmendment', { blockId: block.id, op: 'append', newText: 'Initech is new.', reason: 'Signed.' }, o.mia.key);
    await refused(o.s, 'memory.mergeAmendment', { amendmentId: mine.amendment.id, decision: 'merge' }, 'CONFLICT', {
      key: o.mia.key,
      message: /never its proposer/,
    });
    await refused(o.s, 'memory.mergeAmendment', { amendmentId: result.amendment.id, decision: 'merge' }, 'FORBIDDEN_SCOPE', {
      key: o.max.key,
      message: /^missing role owner on mem_/,
    });
    const merged = await mutate(o.s, 'memory.mergeAmendment', { amendmentId: result.amendment.id, decision: 'merge' }, 'memory.amendment.merge', {
      key: o.mia.key,
    });
    expect(merged.result.block).toMatchObject({ version: 2, value: 'Acme pays on time since May.\nGlobex pays late.' });
    expect(merged.event.payload).toMatchObject({ version: 2, sha256: sha256Hex('Acme pays on time since May.\nGlobex pays late.') });
    await noop(o.s, 'memory.mergeAmendment', { amendmentId: result.amendment.id, decision: 'merge' }, 'memory.amendment.merge', o.mia.key);
    await refused(o.s, 'memory.mergeAmendment', { amendmentId: result.amendment.id, decision: 'reject' }, 'CONFLICT', {
      key: o.mia.key,
      message: /already merged/,
    });
    // The admin merges the owner's own proposal.
    const admin = await mutate(o.s, 'memory.mergeAmendment', { amendmentId: mine.amendment.id, decision: 'merge' }, 'memory.amendment.merge');
    expect(admin.result.block.value).toBe('Acme pays on time since May.\nGlobex pays late.\nInitech is new.');
    const rejected = await ok(o.s, 'memory.proposeAmendment', { blockId: block.id, op: 'append', newText: 'Noise.', reason: 'r' }, o.agent.key);
    await mutate(o.s, 'memory.mergeAmendment', { amendmentId: rejected.amendment.id, decision: 'reject' }, 'memory.amendment.reject', { key: o.mia.key });
  });

  it('unknown, unreadable and other-org ids: NOT_FOUND; a read-only block refuses others; over the limit: BAD_REQUEST', async () => {
    const secret = await author({ label: 'private', value: 'Mine only.' }, o.agent2.key);
    await refused(o.s, 'memory.proposeAmendment', { blockId: secret.id, op: 'append', newText: 'x', reason: 'r' }, 'NOT_FOUND', { key: o.agent.key });
    await refused(o.other, 'memory.proposeAmendment', { blockId: secret.id, op: 'append', newText: 'x', reason: 'r' }, 'NOT_FOUND');
    await refused(o.s, 'memory.mergeAmendment', { amendmentId: 'mam_nosuch', decision: 'merge' }, 'NOT_FOUND');
    const fixed = await author({ label: 'rules', value: 'No refunds.', audience: 'org', readOnly: true }, o.mia.key);
    await refused(o.s, 'memory.proposeAmendment', { blockId: fixed.id, op: 'append', newText: 'x', reason: 'r' }, 'CONFLICT', {
      key: o.agent.key,
      message: /read-only/,
    });
    const small = await author({ label: 'small', value: '12345', limit: 10, audience: 'org' }, o.mia.key);
    await refused(o.s, 'memory.proposeAmendment', { blockId: small.id, op: 'append', newText: '123456', reason: 'r' }, 'BAD_REQUEST', {
      key: o.agent.key,
      message: 'newText: the block would be 2 characters over limit 10',
    });
    await refused(o.s, 'memory.proposeAmendment', { blockId: small.id, op: 'append', oldText: 'x', newText: 'y', reason: 'r' }, 'BAD_REQUEST', {
      message: /^oldText: only with/,
    });
  });
});
