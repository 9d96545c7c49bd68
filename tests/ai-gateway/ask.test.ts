import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASK_NOTICE } from '../../protocol/methods/books/ask.js';
import { expectOk, head } from '../helpers/calls.js';
import { testServer, type TestServer } from '../helpers/harness.js';
import { TestClock } from '../helpers/clock.js';
import { askServer, fakeProvider, lastAudit, owedAnswer, sentInvoice, type AskServer } from './kit.js';

/** books.ask over HTTP: the contract, scopes and params, the notice and actOnWith, no ledger event. */
let s: AskServer;
let invoice: any;
beforeAll(async () => {
  s = await askServer();
  invoice = await sentInvoice(s.client);
});
afterAll(() => s.close());

describe('books.ask over HTTP', () => {
  it('answers with the notice, actOnWith naming the reads it used, and its audit record; appends no ledger event', async () => {
    s.provider.current = fakeProvider({
      reads: [
        ['books.invoices', { status: 'AUTHORISED' }],
        ['ledger.events', { entityId: invoice.id }],
      ],
      answer: owedAnswer,
    });
    const before = await head(s.client);
    const result = expectOk('books.ask', await s.client.rpc('books.ask', { question: 'Who owes us money?' }));
    expect(result).toMatchObject({
      status: 'answered',
      answer: 'Harbour Cafe owes $1,100.00.',
      reason: null,
      notice: ASK_NOTICE,
      actOnWith: ['books.invoices', 'GET /api/v1/events'],
      provider: 'openai',
      model: 'gpt-4o',
    });
    expect(result.notice).toMatch(/^For analysis only/);
    expect(result.claims).toEqual((owedAnswer([{ invoices: [invoice] }]) as any).claims);
    expect(await head(s.client)).toBe(before);
    const audit = await lastAudit(s.client);
    expect(result.audit).toEqual({ id: audit.id, seq: audit.seq });
    expect(audit.record).toMatchObject({
      actor: expect.stringMatching(/^usr_/),
      verdict: 'grounded',
      reads: [
        { name: 'books.invoices', ok: true, error: null },
        { name: 'ledger.events', ok: true, error: null },
      ],
    });
  });

  it('a refusal still carries the notice and names the books reads when none were used', async () => {
    s.provider.current = fakeProvider({ reads: [], answer: () => ({ kind: 'cannot_answer', reason: 'I cannot see other orgs.' }) });
    const result = expectOk('books.ask', await s.client.rpc('books.ask', { question: 'What does Globex owe?' }));
    expect(result).toMatchObject({ status: 'refused', answer: null, claims: [], reason: 'I cannot see other orgs.', notice: ASK_NOTICE });
    expect(result.actOnWith).toEqual([
      'books.invoices',
      'books.bills',
      'books.accounts',
      'books.reports',
      'books.journals',
      'books.feedLines',
      'books.assets',
      'books.taxObligations',
    ]);
  });

  it('runs the reads as the caller: a books.read-only key asks, but cannot read the ledger', async () => {
    s.provider.current = fakeProvider({ reads: [['books.invoices', {}]], answer: owedAnswer });
    expect((await s.client.ok('books.ask', { question: 'Who owes?' }, { key: s.booksOnly.apiKey })).status).toBe('answered');
    let told = '';
    s.provider.current = {
      name: 'openai',
      async answer(_i, tools) {
        told = await tools.call('ledger.events', {}).then(
          () => 'allowed',
          (e: Error) => e.message,
        );
        return {
          draft: { kind: 'cannot_answer', reason: 'no ledger access' },
          usage: { modelRequested: 'm', modelAnswered: 'm', promptTokens: 1, completionTokens: 1, retries: [] },
        };
      },
    };
    await s.client.ok('books.ask', { question: 'What happened lately?' }, { key: s.booksOnly.apiKey });
    expect(told).toBe('FORBIDDEN_SCOPE: missing scope org.read for ledger.events');
  });

  it('checks scope and params like any method', async () => {
    const orgOnly = await s.client.mint({ scopes: ['org.read'] });
    const denied = await s.client.rpc('books.ask', { question: 'Who owes?' }, { key: orgOnly.apiKey });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe('missing scope books.read for books.ask');
    const short = await s.client.rpc('books.ask', { question: 'hi' });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toBe('question: must be at least 3 characters');
    expect((await s.client.rpc('books.ask', { question: 'Who owes?', sql: 'select 1' })).body.error.message).toBe('sql: unknown field');
    expect((await s.client.rpc('books.ask', {})).body.error.message).toBe('question: required');
  });

  it('an answerer that crashes is an INTERNAL error, and the ask is still audited', async () => {
    s.provider.current = {
      name: 'local',
      answer: async () => {
        throw new TypeError('boom');
      },
    };
    const res = await s.client.rpc('books.ask', { question: 'Who owes us money?' });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('INTERNAL');
    expect((await lastAudit(s.client)).record).toMatchObject({
      verdict: 'provider_error',
      reason: 'the answerer failed (an internal error)',
      provider: 'local',
    });
  });

  it('is documented in the OpenAPI document, with /ops and /cost.rollup', async () => {
    const doc = (await s.app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.paths['/api/v1/books.ask'].post.description).toMatch(/For analysis/);
    expect(doc.paths['/api/v1/ops'].get).toBeDefined();
    expect(doc.paths['/api/v1/cost.rollup'].get).toBeDefined();
  });
});

describe('books.ask with the default provider', () => {
  let d: TestServer;
  beforeAll(async () => {
    d = await testServer({ clock: new TestClock('2026-11-02') });
    await sentInvoice(d.client);
  });
  afterAll(() => d.close());

  it('is the offline local answerer, audited at no charge', async () => {
    expect(d.runtime.deps.ai.provider.name).toBe('local');
    const result = expectOk('books.ask', await d.client.rpc('books.ask', { question: 'Who owes us money?' }));
    expect(result.provider).toBe('local');
    expect(result.notice).toBe(ASK_NOTICE);
    const audit = await lastAudit(d.client);
    expect(audit.record).toMatchObject({ provider: 'local', costMicroUsd: 0, priceSource: 'local: no charge' });
    expect(['grounded', 'cannot_answer']).toContain(audit.record.verdict);
    if (result.status === 'answered') expect(result.claims.length).toBeGreaterThan(0);
  });
});
