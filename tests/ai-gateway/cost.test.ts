import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setAiSettings } from '../../domain/ai-settings.js';
import { costOf } from '../../ai-gateway/prices.js';
import { formatMicroUsd } from '../../ai-gateway/budget.js';
import { freshOrg, testServer, TestClient, type TestServer } from '../helpers/harness.js';
import { TestClock } from '../helpers/clock.js';
import { SwitchProvider, auditChain, fakeProvider, owedAnswer, sentInvoice } from './kit.js';

/** Cost (GET /cost.rollup) and the per-org monthly budget, which fails closed. */
let s: TestServer;
const provider = new SwitchProvider();
let now = new Date();

beforeAll(async () => {
  s = await testServer({ clock: new TestClock('2026-11-02'), aiProvider: provider, aiNow: () => now, ai: { monthlyBudgetMicroUsd: 50_000_000 } });
});
afterAll(() => s.close());

async function org(): Promise<{ client: TestClient; slug: string }> {
  const o = await freshOrg(s.runtime, 'cost');
  const client = new TestClient(s.app, o.adminKey);
  await sentInvoice(client);
  return { client, slug: o.slug };
}

describe('prices', () => {
  it('prices from the table by the answering model, from config when set, nothing for local, and says so', () => {
    const usage = { modelRequested: 'gpt-4o', modelAnswered: 'gpt-4o-2024-08-06', promptTokens: 1000, completionTokens: 500 };
    expect(costOf('openai', usage)).toEqual({ costMicroUsd: 7500, priceSource: 'table:gpt-4o' });
    expect(costOf('openai', { ...usage, modelAnswered: 'gpt-4o-mini-2024-07-18' })).toEqual({ costMicroUsd: 450, priceSource: 'table:gpt-4o-mini' });
    expect(costOf('openai', usage, { inputMicroUsdPerMTok: 1_000_000, outputMicroUsdPerMTok: 2_000_000 })).toEqual({
      costMicroUsd: 2000,
      priceSource: 'config',
    });
    expect(costOf('openai', { ...usage, modelRequested: 'llama3', modelAnswered: 'llama3:8b' })).toEqual({
      costMicroUsd: 0,
      priceSource: expect.stringMatching(/^unpriced: llama3:8b/),
    });
    expect(costOf('local', usage)).toEqual({ costMicroUsd: 0, priceSource: 'local: no charge' });
    // Rounded up: a single token of a priced model is never free.
    expect(costOf('openai', { ...usage, promptTokens: 1, completionTokens: 0 }).costMicroUsd).toBe(3);
    expect(formatMicroUsd(7500)).toBe('$0.0075');
    expect(formatMicroUsd(1_500_000)).toBe('$1.50');
    expect(formatMicroUsd(12_345_678_900)).toBe('$12,345.6789');
  });
});

describe('GET /cost.rollup', () => {
  it('totals cost by model and by period, with the budget', async () => {
    now = new Date();
    const { client } = await org();
    provider.current = fakeProvider({ answer: owedAnswer }); // gpt-4o, 1000 + 500 tokens: 7500 micro-dollars
    await client.ok('books.ask', { question: 'Who owes us?' });
    await client.ok('books.ask', { question: 'Who owes us now?' });
    provider.current = fakeProvider({ name: 'local', model: 'local-rules-v1', answer: owedAnswer });
    await client.ok('books.ask', { question: 'And locally?' });
    const today = now.toISOString().slice(0, 10);
    const res = await client.get('cost.rollup');
    expect(res.status, res.raw).toBe(200);
    expect(res.body).toEqual({
      from: `${today.slice(0, 7)}-01`,
      to: today,
      currency: 'USD',
      totals: { asks: 3, reports: 0, promptTokens: 3000, completionTokens: 1500, costMicroUsd: 15000 },
      byModel: [
        { source: 'ask', provider: 'openai', model: 'gpt-4o', asks: 2, reports: 0, promptTokens: 2000, completionTokens: 1000, costMicroUsd: 15000 },
        { source: 'ask', provider: 'local', model: 'local-rules-v1', asks: 1, reports: 0, promptTokens: 1000, completionTokens: 500, costMicroUsd: 0 },
      ],
      byActor: [{ actor: expect.stringMatching(/^usr_/), asks: 3, reports: 0, promptTokens: 3000, completionTokens: 1500, costMicroUsd: 15000 }],
      byMethod: [{ method: 'books.ask', asks: 3, reports: 0, promptTokens: 3000, completionTokens: 1500, costMicroUsd: 15000 }],
      byPeriod: [{ period: today, asks: 3, reports: 0, promptTokens: 3000, completionTokens: 1500, costMicroUsd: 15000 }],
      budget: {
        monthlyBudgetMicroUsd: 50_000_000,
        source: 'server',
        spentThisMonthMicroUsd: 15000,
        remainingMicroUsd: 50_000_000 - 15000,
        resetsAt: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      },
    });
    const byMonth = await client.get('cost.rollup', { groupBy: 'month', from: '2000-01-01', to: today });
    expect(byMonth.body.byPeriod).toEqual([
      { period: today.slice(0, 7), asks: 3, reports: 0, promptTokens: 3000, completionTokens: 1500, costMicroUsd: 15000 },
    ]);
    const before = await client.get('cost.rollup', { from: '2000-01-01', to: '2000-01-31' });
    expect(before.body.totals).toEqual({ asks: 0, reports: 0, promptTokens: 0, completionTokens: 0, costMicroUsd: 0 });
    expect(before.body.byModel).toEqual([]);
    const backwards = await client.get('cost.rollup', { from: '2026-02-01', to: '2026-01-01' });
    expect(backwards.status).toBe(400);
    expect(backwards.body.error.message).toBe('from: must be on or before to (2026-01-01)');
  });

  it('needs org.read', async () => {
    const { client } = await org();
    const booksOnly = await client.mint({ scopes: ['books.read'] });
    const denied = await client.get('cost.rollup', {}, { key: booksOnly.apiKey });
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toBe('missing scope org.read for /cost.rollup');
    const reader = await client.mint({ tier: 'reader' });
    expect((await client.get('cost.rollup', {}, { key: reader.apiKey })).status).toBe(200);
  });
});

describe('monthly AI budget', () => {
  it('fails closed with RATE_LIMITED and the wait once spent, appends no audit, and resets with the month', async () => {
    now = new Date();
    const { client, slug } = await org();
    provider.current = fakeProvider({ answer: owedAnswer }); // 7500 micro-dollars an ask
    await setAiSettings(s.runtime.db, slug, { monthlyBudgetMicroUsd: 10_000 });
    expect((await client.ok('books.ask', { question: 'Who owes us?' })).status).toBe('answered');
    expect((await client.ok('books.ask', { question: 'Who owes us? (2)' })).status).toBe('answered'); // 7500 < 10000: allowed, overshoots
    const refused = await client.rpc('books.ask', { question: 'Who owes us? (3)' });
    expect(refused.status).toBe(429);
    const resets = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const wait = Math.ceil((resets.getTime() - now.getTime()) / 1000);
    expect(refused.headers['retry-after']).toBe(String(wait));
    expect(refused.body.error).toEqual({
      code: 'RATE_LIMITED',
      message: `the org's monthly AI budget of $0.01 is spent ($0.015 since ${now.toISOString().slice(0, 7)}-01); it resets at ${resets.toISOString()}: retry in ${wait} seconds, or use the typed books reads`,
    });
    expect(await auditChain(client)).toHaveLength(2);
    const rollup = await client.get('cost.rollup');
    expect(rollup.body.budget).toMatchObject({ monthlyBudgetMicroUsd: 10_000, source: 'org', spentThisMonthMicroUsd: 15_000, remainingMicroUsd: 0 });

    // Next month the budget is whole again.
    now = new Date(resets.getTime() + 3_600_000);
    expect((await client.ok('books.ask', { question: 'Who owes us? (4)' })).status).toBe('answered');
    now = new Date();

    // A budget of 0 turns books.ask off; back to the server default turns it on.
    await setAiSettings(s.runtime.db, slug, { monthlyBudgetMicroUsd: 0 });
    const off = await client.rpc('books.ask', { question: 'Who owes us? (5)' });
    expect(off.status).toBe(429);
    expect(off.body.error.message).toMatch(/^books.ask is off for this org \(its monthly AI budget is \$0\)/);
    await setAiSettings(s.runtime.db, slug, { monthlyBudgetMicroUsd: null });
    expect((await client.ok('books.ask', { question: 'Who owes us? (6)' })).status).toBe('answered');
  });

  it('a local provider costs nothing, so only a budget of 0 stops it', async () => {
    now = new Date();
    const { client, slug } = await org();
    provider.current = fakeProvider({ name: 'local', model: 'local-rules-v1', answer: owedAnswer });
    await setAiSettings(s.runtime.db, slug, { monthlyBudgetMicroUsd: 1 });
    for (let i = 0; i < 3; i++) expect((await client.rpc('books.ask', { question: `Who owes us? ${i}` })).status).toBe(200);
  });
});
