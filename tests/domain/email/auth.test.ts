import { describe, expect, it } from 'vitest';
import { checkAuth, loadEmailInboundConfig, type DnsResolver } from '../../../domain/email/index.js';
import { compose, dnsFor } from './inbound-kit.js';

/*
 * SPF, DKIM and DMARC of arriving mail (domain/email/inbound/auth.ts) by mailauth, with DNS answered by an injected
 * resolver so nothing leaves the machine: a DKIM key generated here, the domain's SPF and DMARC records. Signed mail
 * from the domain's own address passes; a spoof of its From fails DMARC; a body changed in transit fails DKIM; DNS
 * trouble gives temperror, in bounded time; EMAIL_SMTP_DNS=none looks nothing up.
 */

const base = { ip: '127.0.0.1', helo: 'mail.client.example', mta: 'mx.test', timeoutMs: 5000 };

describe('checkAuth (mailauth, offline DNS)', () => {
  it('mail signed with the domain’s key from its SPF address passes SPF, DKIM and DMARC', async () => {
    const dns = dnsFor('client.example');
    const raw = await compose({ from: 'ann@client.example', to: 'sales@acme.example', sign: dns.dkim });
    expect(await checkAuth({ ...base, raw, mailFrom: 'ann@client.example', resolver: dns.resolver })).toEqual({ spf: 'pass', dkim: 'pass', dmarc: 'pass' });
    expect(dns.lookups).toContain('TXT test1._domainkey.client.example');
    expect(dns.lookups).toContain('TXT _dmarc.client.example');
  });

  it('a spoofed From (unsigned, another envelope domain, another address) fails DMARC; SPF says what it found', async () => {
    const dns = dnsFor('client.example');
    const raw = await compose({ from: 'ceo@client.example', to: 'sales@acme.example', subject: 'Wire the money' });
    expect(await checkAuth({ ...base, ip: '203.0.113.9', helo: 'evil.example', raw, mailFrom: 'x@evil.example', resolver: dns.resolver })).toEqual({
      spf: 'fail',
      dkim: 'none',
      dmarc: 'fail',
    });
    // The domain's own envelope from an address its SPF does not list: SPF fails, and without DKIM so does DMARC.
    expect(await checkAuth({ ...base, ip: '203.0.113.9', raw, mailFrom: 'ceo@client.example', resolver: dns.resolver })).toMatchObject({
      spf: 'fail',
      dmarc: 'fail',
    });
  });

  it('a body changed after signing does not pass DKIM (mailauth: neutral, body hash mismatch); SPF alone still aligns DMARC', async () => {
    const dns = dnsFor('client.example');
    const raw = await compose({ from: 'ann@client.example', to: 'sales@acme.example', text: 'Pay 100', sign: dns.dkim });
    const tampered = Buffer.from(raw.toString('utf8').replace('Pay 100', 'Pay 900'));
    expect(await checkAuth({ ...base, raw: tampered, mailFrom: 'ann@client.example', resolver: dns.resolver })).toEqual({
      spf: 'pass',
      dkim: 'neutral',
      dmarc: 'pass',
    });
    expect(await checkAuth({ ...base, ip: '203.0.113.9', raw: tampered, mailFrom: 'ann@client.example', resolver: dns.resolver })).toEqual({
      spf: 'fail',
      dkim: 'neutral',
      dmarc: 'fail',
    });
  });

  it('DNS failing or hanging gives temperror, within the time allowed', async () => {
    const raw = await compose({ from: 'ann@client.example', to: 'sales@acme.example' });
    const failing: DnsResolver = async () => {
      throw Object.assign(new Error('server failure'), { code: 'ESERVFAIL' });
    };
    const verdicts = await checkAuth({ ...base, raw, mailFrom: 'ann@client.example', resolver: failing });
    expect(verdicts.spf).toBe('temperror');
    const hanging: DnsResolver = () => new Promise(() => undefined);
    const started = Date.now();
    expect(await checkAuth({ ...base, raw, mailFrom: 'ann@client.example', resolver: hanging, timeoutMs: 300 })).toEqual({
      spf: 'temperror',
      dkim: 'temperror',
      dmarc: 'temperror',
    });
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('EMAIL_SMTP_DNS=none looks nothing up: every name is unknown, so unsigned mail has no verdicts, at once', async () => {
    const { resolver } = loadEmailInboundConfig({ EMAIL_SMTP_DNS: 'none' });
    const raw = await compose({ from: 'ann@client.example', to: 'sales@acme.example' });
    const started = Date.now();
    expect(await checkAuth({ ...base, raw, mailFrom: 'ann@client.example', resolver })).toEqual({ spf: 'none', dkim: 'none', dmarc: 'none' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(loadEmailInboundConfig({}).resolver).toBeUndefined();
    expect(() => loadEmailInboundConfig({ EMAIL_SMTP_DNS: 'not a resolver' })).toThrow(/^EMAIL_SMTP_DNS: give none or resolver addresses/);
  });
});
