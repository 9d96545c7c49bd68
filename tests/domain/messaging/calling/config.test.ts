import { describe, expect, it } from 'vitest';
import { loadLivekitConfig } from '../../../../domain/messaging/calling/config.js';
import { loadConfig } from '../../../../cli/config.js';

/* LIVEKIT_*: unset is control plane only; set, all three are needed and a bad value is refused naming its variable. */

describe('LiveKit settings', () => {
  it('unset: null (calls are control plane and record only); the server config carries it', () => {
    expect(loadLivekitConfig({})).toBeNull();
    expect(loadConfig({}).livekit).toBeNull();
  });

  it('set: the URL, key and secret, with defaults for the token lifetime and timeout', () => {
    const env = { LIVEKIT_URL: 'wss://lk.example.com/', LIVEKIT_API_KEY: 'APIkey', LIVEKIT_API_SECRET: 'secret' };
    expect(loadLivekitConfig(env)).toEqual({
      url: 'wss://lk.example.com',
      apiKey: 'APIkey',
      apiSecret: 'secret',
      tokenTtlSeconds: 21600,
      requestTimeoutSeconds: 10,
    });
    expect(loadConfig({ ...env, LIVEKIT_TOKEN_TTL_SECONDS: '600' }).livekit?.tokenTtlSeconds).toBe(600);
  });

  it('refuses half a configuration and bad values, naming the variable', () => {
    expect(() => loadLivekitConfig({ LIVEKIT_API_KEY: 'k' })).toThrow(/set LIVEKIT_URL too/);
    expect(() => loadLivekitConfig({ LIVEKIT_URL: 'wss://lk.example.com' })).toThrow(/LIVEKIT_API_KEY, LIVEKIT_API_SECRET: both are required/);
    expect(() => loadLivekitConfig({ LIVEKIT_URL: 'not a url', LIVEKIT_API_KEY: 'k', LIVEKIT_API_SECRET: 's' })).toThrow(/^LIVEKIT_URL: not a URL/);
    expect(() => loadLivekitConfig({ LIVEKIT_URL: 'ftp://lk', LIVEKIT_API_KEY: 'k', LIVEKIT_API_SECRET: 's' })).toThrow(/^LIVEKIT_URL: the scheme/);
    expect(() => loadLivekitConfig({ LIVEKIT_URL: 'https://lk', LIVEKIT_API_KEY: 'k', LIVEKIT_API_SECRET: 's', LIVEKIT_TOKEN_TTL_SECONDS: '5' })).toThrow(
      /^LIVEKIT_TOKEN_TTL_SECONDS/,
    );
  });
});
