import { describe, expect, it } from 'vitest';
import { cachedResolver } from '../../../domain/email/inbound/dns-cache.js';
import type { DnsResolver } from '../../../domain/email/index.js';

/*
 * The listener's lookups kept a minute (domain/email/inbound/dns-cache.ts): a burst from one domain asks each name
 * once, "no such name" is kept like an answer, a failure of the moment is not, and nothing outlives its minute.
 */

function world() {
  let clock = 0;
  const asked: string[] = [];
  const fail = new Map<string, string>();
  let release: (() => void) | undefined;
  let held: Promise<void> | undefined;
  const resolver: DnsResolver = async (name, type) => {
    asked.push(`${type} ${name}`);
    if (held) await held;
    const code = fail.get(name);
    if (code) throw Object.assign(new Error(`${code} ${name}`), { code });
    return [[`v=spf1 -all ${name}`]];
  };
  return {
    asked,
    fail,
    hold() {
      held = new Promise((r) => (release = r));
    },
    release() {
      held = undefined;
      release?.();
    },
    advance: (ms: number) => (clock += ms),
    cached: (maxEntries?: number) => cachedResolver(resolver, { ttlMs: 60_000, maxEntries, now: () => clock }),
  };
}

describe('the listener’s DNS cache', () => {
  it('asks a name once while the answer is kept, and once for callers arriving while it is asked', async () => {
    const w = world();
    const dns = w.cached();
    w.hold();
    const burst = Promise.all([dns('client.example', 'TXT'), dns('Client.Example', 'TXT'), dns('client.example', 'TXT')]);
    w.release();
    expect(await burst).toEqual(Array(3).fill([['v=spf1 -all client.example']]));
    expect(await dns('client.example', 'TXT')).toEqual([['v=spf1 -all client.example']]);
    expect(await dns('client.example', 'MX')).toEqual([['v=spf1 -all client.example']]);
    expect(w.asked).toEqual(['TXT client.example', 'MX client.example']);
    w.advance(60_001);
    await dns('client.example', 'TXT');
    expect(w.asked).toEqual(['TXT client.example', 'MX client.example', 'TXT client.example']);
  });

  it('keeps "no such name" as an answer, never a failure of the moment', async () => {
    const w = world();
    const dns = w.cached();
    w.fail.set('_dmarc.client.example', 'ENOTFOUND');
    w.fail.set('down.example', 'ESERVFAIL');
    for (let i = 0; i < 2; i++) {
      await expect(dns('_dmarc.client.example', 'TXT')).rejects.toMatchObject({ code: 'ENOTFOUND' });
      await expect(dns('down.example', 'TXT')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    }
    expect(w.asked).toEqual(['TXT _dmarc.client.example', 'TXT down.example', 'TXT down.example']);
  });

  it('hands each caller its own copy, and keeps at most maxEntries names', async () => {
    const w = world();
    const dns = w.cached(2);
    const first = (await dns('a.example', 'TXT')) as string[][];
    first[0][0] = 'changed by a reader';
    expect(await dns('a.example', 'TXT')).toEqual([['v=spf1 -all a.example']]);
    await dns('b.example', 'TXT');
    await dns('c.example', 'TXT'); // a.example, the oldest, goes
    await dns('a.example', 'TXT');
    expect(w.asked).toEqual(['TXT a.example', 'TXT b.example', 'TXT c.example', 'TXT a.example']);
  });
});
