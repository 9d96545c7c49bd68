import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnswererRegistry } from '../../ai-gateway/answerer.js';
import { verifyAuditChain } from '../../ai-gateway/audit.js';
import { centsText } from '../../ai-gateway/figures.js';
import { ask, type AskOutcome } from '../../ai-gateway/gateway.js';
import { checkGrounding } from '../../ai-gateway/grounding.js';
import { localProvider } from '../../ai-gateway/local/index.js';
import { CitedRecords, indexResult } from '../../ai-gateway/records.js';
import type { Claim, Draft, Provider } from '../../ai-gateway/types.js';
import { setAiSettings } from '../../domain/ai-settings.js';
import { BOOKS_ANSWERER } from '../../domain/books/ask/answerer.js';
import { formatCents } from '../../domain/books/money.js';
import { ApiError } from '../../protocol/errors.js';
import { TestClock } from '../helpers/clock.js';
import { freshOrg, testServer, TestClient, type TestServer } from '../helpers/harness.js';
import { BOARD_ANSWERER, BOARD_METHOD } from './board-answerer.js';
import { SwitchProvider, auditChain, fakeProvider, owedAnswer, sentInvoice } from './kit.js';

let s: TestServer;
const provider = new SwitchProvider();
const clock = new TestClock('2026-11-02');

beforeAll(async () => {
  s = await testServer({ clock, aiProvider: provider, extraAnswerers: [BOARD_ANSWERER] });
});
afterAll(() => s.close());

/** A fresh org with its admin client. */
async function org(): Promise<{ client: TestClient; orgId: string; slug: string; key: string }> {
  const o = await freshOrg(s.runtime);
  return { client: new TestClient(s.app, o.adminKey), orgId: o.orgId, slug: o.slug, key: o.adminKey };
}

/** An AI call of `method` as the key's principal, the way a family handler makes one (from its prepare step). */
async function askAs(key: string, method: string, question: string): Promise<AskOutcome> {
  const principal = await s.runtime.pipeline.principalFor(key);
  return ask(
    { db: s.runtime.db, ...s.runtime.deps.ai },
    {
      method,
      orgId: principal.orgId,
      requestId: randomUUID(),
      actor: principal.id,
      keyId: principal.keyId,
      question,
      today: '2026-11-02',
      reads: { readAs: (m, p) => s.runtime.pipeline.readAs(principal, m, p), q: s.runtime.db, orgId: principal.orgId, scopes: principal.scopes },
    },
  );
}

/** A task with comments, through the board methods. */
async function taskWithComments(client: TestClient, bodies: string[]): Promise<{ taskId: string; comments: { id: string; body: string }[] }> {
  const task = await client.ok('board.createTask', { title: 'Reconcile the bank feed' }, { idem: `task-${randomUUID()}` });
  const comments = [];
  for (const body of bodies) comments.push(await client.ok('board.addTaskComment', { taskId: task.id, body }));
  return { taskId: task.id, comments };
}

describe('the answerer registry', () => {
  it('two answerers share one audit chain and one rollup, each naming its method', async () => {
    provider.current = localProvider();
    const { client, orgId, key } = await org();
    await sentInvoice(client);
    const books = await client.ok('books.ask', { question: 'What do customers owe?' });
    expect(books.status).toBe('answered');
    const { taskId, comments } = await taskWithComments(client, ['Asked the bank for statements.', 'Statements for 3 accounts arrived on 2026-11-01.']);
    const board = await askAs(key, BOARD_METHOD, `Summarise the comments of ${taskId}`);
    expect(board).toMatchObject({ status: 'answered', verdict: 'grounded', provider: 'local', reads: ['board.taskComments'] });
    // The quote is the latest comment verbatim; its 3 is the comment's own, not a figure of the answer.
    expect(board.claims).toEqual([
      {
        text: 'Comments on the task: 2.',
        cites: comments.map((c) => ({ kind: 'record', id: c.id })),
        figure: { value: 2, unit: 'count', op: 'count' },
        quote: comments[1].body,
      },
    ]);
    expect(board.answer).toBe('The task has 2 comments; the latest says: Statements for 3 accounts arrived on 2026-11-01.');

    const chain = await auditChain(client);
    expect(chain.map((r) => [r.seq, r.record.method, r.record.reads.map((x: { name: string }) => x.name)])).toEqual([
      [1, 'books.ask', ['books.invoices']],
      [2, BOARD_METHOD, ['board.taskComments']],
    ]);
    expect(chain[1].id).toBe(board.audit.id);
    expect(await verifyAuditChain(s.runtime.db, orgId)).toMatchObject({ ok: true, count: 2 });
    const rollup = await client.get('cost.rollup');
    expect(rollup.body.byMethod.map((m: { method: string; asks: number }) => [m.method, m.asks]).sort()).toEqual([
      ['board.summariseComments', 1],
      ['books.ask', 1],
    ]);
  });

  it('a method column that disagrees with its record breaks the chain', async () => {
    provider.current = localProvider();
    const { client, orgId, key } = await org();
    const { taskId } = await taskWithComments(client, ['Waiting on the bank.']);
    await askAs(key, BOARD_METHOD, `Summarise ${taskId}`);
    await s.runtime.db.tx(async (q) => {
      await q.query('ALTER TABLE ai_audit DISABLE TRIGGER ai_audit_append_only');
      await q.query(`UPDATE ai_audit SET method = 'books.ask' WHERE org_id = $1`, [orgId]);
      await q.query('ALTER TABLE ai_audit ENABLE TRIGGER ai_audit_append_only');
    });
    const verdict = await verifyAuditChain(s.runtime.db, orgId);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.break.message).toBe(`audit seq 1: column method (books.ask) disagrees with the hashed record (${BOARD_METHOD})`);
  });

  it('one budget: spent by books.ask, it refuses the other answerer too, naming it', async () => {
    const { client, slug, key } = await org();
    await sentInvoice(client);
    const { taskId } = await taskWithComments(client, ['Done.']);
    await setAiSettings(s.runtime.db, slug, { monthlyBudgetMicroUsd: 5000 });
    provider.current = fakeProvider({ answer: owedAnswer }); // gpt-4o, 1000 + 500 tokens: $0.0075
    expect((await client.ok('books.ask', { question: 'Who owes us?' })).status).toBe('answered');
    provider.current = localProvider();
    const refused = await askAs(key, BOARD_METHOD, `Summarise ${taskId}`).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).code).toBe('RATE_LIMITED');
    expect((refused as ApiError).message).toMatch(/^the org's monthly AI budget of \$0\.005 is spent .*or use the typed board reads$/);
    await setAiSettings(s.runtime.db, slug, { monthlyBudgetMicroUsd: 0 });
    const off = await askAs(key, BOARD_METHOD, `Summarise ${taskId}`).catch((err: ApiError) => err);
    expect((off as ApiError).message).toMatch(/^board\.summariseComments is off for this org \(its monthly AI budget is \$0\)/);
    expect((await auditChain(client)).length).toBe(1); // refused before the provider: nothing audited
  });

  it("each answerer is grounded by its own rules: board's claims must quote, verbatim; books' need not", async () => {
    const { client, key } = await org();
    await sentInvoice(client);
    const { taskId, comments } = await taskWithComments(client, ['The bank sent 3 statements.']);
    const cite = { kind: 'record' as const, id: comments[0].id };
    const claim: Claim = { text: 'There is one comment.', cites: [cite], figure: { value: 1, unit: 'count', op: 'count' } };
    const drafting = (draft: Draft): Provider => fakeProvider({ reads: [['board.taskComments', { taskId }]], answer: () => draft });

    provider.current = drafting({ kind: 'answer', answer: 'There is 1 comment.', claims: [claim] });
    const unquoted = await askAs(key, BOARD_METHOD, `Summarise ${taskId}`);
    expect(unquoted).toMatchObject({ status: 'refused', verdict: 'ungrounded' });
    expect(unquoted.reason).toBe(
      `the model's answer was refused as ungrounded: claim 1 ("There is one comment.") quotes nothing, and every claim of this answer must quote a record it cites`,
    );

    provider.current = drafting({ kind: 'answer', answer: 'There is 1 comment.', claims: [{ ...claim, quote: 'The bank sent 4 statements.' }] });
    const altered = await askAs(key, BOARD_METHOD, `Summarise ${taskId}`);
    expect(altered.reason).toMatch(/claim 1 quotes "The bank sent 4 statements\.", which appears verbatim in none of the records it cites$/);

    provider.current = drafting({
      kind: 'answer',
      answer: 'There is 1 comment: The bank sent 3 statements.',
      claims: [{ ...claim, quote: 'The bank  sent\n3 statements.' }],
    });
    expect(await askAs(key, BOARD_METHOD, `Summarise ${taskId}`)).toMatchObject({ status: 'answered', verdict: 'grounded' });

    // books.ask keeps its own rules: no quote needed, and a board read is not one of its tools.
    provider.current = fakeProvider({ answer: owedAnswer });
    expect((await client.ok('books.ask', { question: 'Who owes us?' })).status).toBe('answered');
    provider.current = {
      name: 'openai',
      async answer(_input, tools) {
        const refusal = await tools.call('board.taskComments', { taskId }).then(
          () => 'read',
          (e: Error) => e.message,
        );
        return {
          draft: { kind: 'cannot_answer', reason: refusal },
          usage: { modelRequested: 'gpt-4o', modelAnswered: 'gpt-4o', promptTokens: 10, completionTokens: 10, retries: [] },
        };
      },
    };
    const books = await client.ok('books.ask', { question: 'Who owes us?' });
    expect(books.status).toBe('refused');
    expect(books.reason).toMatch(/^unknown tool "board\.taskComments"; the tools are books\.invoices, books\.bills, .*, ledger\.events$/);
    const last = (await auditChain(client)).at(-1);
    expect(last.record.reads).toEqual([{ name: 'board.taskComments', ok: false, error: 'unknown tool' }]);
  });

  it('an unregistered method is refused before the budget, the provider or the audit', async () => {
    let called = 0;
    provider.current = { name: 'openai', answer: () => Promise.reject(new Error(`called ${++called}`)) };
    const { client, key } = await org();
    const err = await askAs(key, 'lease.claim', 'Which leases are held?').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('NOT_FOUND');
    expect((err as ApiError).message).toBe('lease.claim has no AI answerer registered on this server');
    expect(called).toBe(0);
    expect(await auditChain(client)).toEqual([]);
    expect(s.runtime.deps.ai.answerers.methods.sort()).toEqual([
      BOARD_METHOD,
      'books.ask',
      'calendar.ask',
      'crm.ask',
      'directory.ask',
      'email.ask',
      'email.extractAction',
      'email.summarise',
      'email.triage',
      'email.triageNow',
      'files.ask',
      'meetings.recapFile',
      'persona.regenerate',
    ]);
    expect(() => new AnswererRegistry([BOOKS_ANSWERER, BOOKS_ANSWERER])).toThrow('an answerer for books.ask is already registered');
    expect(() => new AnswererRegistry([{ ...BOARD_ANSWERER, tools: [] }])).toThrow(/has no reads/);
  });
});

describe('quotes and family checks in grounding', () => {
  const records = () => {
    const r = new CitedRecords();
    indexResult(r, 'board.taskComments', {
      comments: [
        { id: 'cmt_a', body: 'Paid INV-0042 on 2026-11-01: $1,100.00 received.\nThanks, Sam', author: 'usr_1' },
        { id: 'cmt_b', body: 'Call the bank on Monday.', author: 'usr_2' },
      ],
      nextCursor: null,
    });
    return r;
  };
  const a: Claim = { text: 'Sam confirmed the payment.', cites: [{ kind: 'record', id: 'cmt_a' }], quote: 'Paid INV-0042 on 2026-11-01: $1,100.00 received.' };
  const check = (claims: Claim[], answer: string, rules = {}) => {
    const v = checkGrounding({ kind: 'answer', answer, claims }, records(), rules);
    return v.ok ? 'grounded' : v.reason;
  };

  it('a quote must appear verbatim in a record its claim cites; whitespace runs aside', () => {
    expect(check([a], 'Sam wrote: Paid INV-0042 on 2026-11-01: $1,100.00 received.')).toBe('grounded');
    expect(check([{ ...a, quote: 'received. Thanks, Sam' }], 'Sam confirmed it.')).toBe('grounded'); // the newline is a whitespace run
    expect(check([{ ...a, quote: 'Paid INV-0042 on 2026-11-01: $1,100.01 received.' }], 'Sam confirmed it.')).toMatch(
      /^claim 1 quotes ".*", which appears verbatim in none of the records it cites$/,
    );
    expect(check([{ ...a, quote: 'paid inv-0042' }], 'Sam confirmed it.')).toMatch(/appears verbatim in none/); // case counts
    // Quoting a record the claim does not cite is not grounded, even though a read returned it.
    expect(check([{ ...a, quote: 'Call the bank on Monday.' }], 'Sam confirmed it.')).toMatch(/appears verbatim in none/);
    expect(check([{ ...a, quote: '  ' }], 'Sam confirmed it.')).toBe("claim 1's quote is empty");
  });

  it("a checked quote's numbers may be repeated; the same number outside it is not a figure", () => {
    expect(check([a], 'Sam confirmed: Paid INV-0042 on 2026-11-01: $1,100.00 received.')).toBe('grounded');
    expect(check([a], 'Sam confirmed $1,100.00.')).toMatch(/^the answer states \$1,100\.00, which is none of the answer's figures/);
  });

  it('quotesRequired and a family check are the answerer’s own rules', () => {
    const b: Claim = { text: 'Someone will call the bank.', cites: [{ kind: 'record', id: 'cmt_b' }] };
    expect(check([a, b], 'Some notes.')).toBe('grounded');
    expect(check([a, b], 'Some notes.', { quotesRequired: true })).toMatch(/^claim 2 \("Someone will call the bank\."\) quotes nothing/);
    const noMondays = {
      check: (d: Extract<Draft, { kind: 'answer' }>) => (/monday/i.test(d.answer) ? 'the answer names a weekday no record dates' : undefined),
    };
    expect(check([a], 'Call on Monday.', noMondays)).toBe('the answer names a weekday no record dates');
    expect(check([a], 'Call soon.', noMondays)).toBe('grounded');
  });
});

describe('figures', () => {
  it("the gateway writes cents exactly as books' formatCents does", () => {
    for (const cents of [0, 1, 5, 99, 100, 101, 1234, 99_999, 100_000, 123_456, 1_000_000_00, 123_456_789_01, -1, -1200, -123_456]) {
      expect(centsText(cents)).toBe(formatCents(cents));
    }
  });
});
