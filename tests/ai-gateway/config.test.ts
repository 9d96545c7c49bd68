import { describe, expect, it } from 'vitest';
import { DEFAULT_AI_CONFIG, loadAiConfig } from '../../ai-gateway/config.js';
import { loadConfig } from '../../cli/config.js';
import { createProvider } from '../../ai-gateway/providers.js';

describe('AI configuration', () => {
  it('defaults to the local provider and reads nothing else', () => {
    expect(loadAiConfig({})).toEqual(DEFAULT_AI_CONFIG);
    expect(loadConfig({}).ai.provider).toBe('local');
    // The openai client's own variables are not configuration.
    expect(loadAiConfig({ OPENAI_API_KEY: 'sk-x', OPENAI_BASE_URL: 'http://x/v1' }).openai).toBeUndefined();
  });

  it('reads the openai settings, prices and budget explicitly', () => {
    const c = loadAiConfig({
      AI_PROVIDER: 'openai',
      AI_BASE_URL: 'http://127.0.0.1:11434/v1',
      AI_MODEL: 'gpt-4o-mini',
      AI_API_KEY: 'k',
      AI_STREAM: 'true',
      AI_MAX_RETRIES: '0',
      AI_REQUEST_TIMEOUT_MS: '1500',
      AI_TIMEOUT_MS: '9000',
      AI_MAX_STEPS: '3',
      AI_PRICE_INPUT_USD_PER_MTOK: '0.15',
      AI_PRICE_OUTPUT_USD_PER_MTOK: '0.6',
      AI_MONTHLY_BUDGET_USD: '12.5',
    });
    expect(c).toEqual({
      provider: 'openai',
      openai: { baseURL: 'http://127.0.0.1:11434/v1', model: 'gpt-4o-mini', apiKey: 'k', stream: true, maxRetries: 0, requestTimeoutMs: 1500 },
      timeoutMs: 9000,
      maxSteps: 3,
      priceOverride: { inputMicroUsdPerMTok: 150_000, outputMicroUsdPerMTok: 600_000 },
      monthlyBudgetMicroUsd: 12_500_000,
    });
  });

  it('names the variable that is wrong', () => {
    expect(() => loadAiConfig({ AI_PROVIDER: 'anthropic' })).toThrow('AI_PROVIDER: must be local or openai, got "anthropic"');
    expect(() => loadAiConfig({ AI_PROVIDER: 'openai', AI_MODEL: 'm', AI_API_KEY: 'k' })).toThrow('AI_BASE_URL: required when AI_PROVIDER=openai');
    expect(() => loadAiConfig({ AI_PROVIDER: 'openai', AI_BASE_URL: 'http://x/v1', AI_MODEL: 'm' })).toThrow('AI_API_KEY: required when AI_PROVIDER=openai');
    expect(() => loadAiConfig({ AI_PROVIDER: 'openai', AI_BASE_URL: 'x', AI_MODEL: 'm', AI_API_KEY: 'k' })).toThrow(/^AI_BASE_URL: must be an http\(s\) URL/);
    expect(() => loadAiConfig({ AI_MAX_STEPS: '0' })).toThrow('AI_MAX_STEPS: must be an integer >= 1, got "0"');
    expect(() => loadAiConfig({ AI_PRICE_INPUT_USD_PER_MTOK: '1' })).toThrow(/set both or neither/);
    expect(() => loadAiConfig({ AI_MONTHLY_BUDGET_USD: '-3' })).toThrow(/^AI_MONTHLY_BUDGET_USD: must be a dollar amount/);
    expect(() => loadAiConfig({ AI_PROVIDER: 'openai', AI_BASE_URL: 'http://x/v1', AI_MODEL: 'm', AI_API_KEY: 'k', AI_STREAM: 'yes' })).toThrow(
      'AI_STREAM: must be true or false, got "yes"',
    );
  });

  it('creates the configured provider (the openai client is loaded only then) and refuses openai without its settings', async () => {
    expect((await createProvider(DEFAULT_AI_CONFIG)).name).toBe('local');
    const openai = loadAiConfig({ AI_PROVIDER: 'openai', AI_BASE_URL: 'http://127.0.0.1:9/v1', AI_MODEL: 'm', AI_API_KEY: 'k' });
    expect((await createProvider(openai)).name).toBe('openai');
    await expect(createProvider({ ...DEFAULT_AI_CONFIG, provider: 'openai' })).rejects.toThrow('AI_PROVIDER=openai needs AI_BASE_URL, AI_MODEL and AI_API_KEY');
  });
});
