import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENV_HELP, loadConfig } from '../../cli/config.js';
import { loadMailConfig, parseSmtpUrl } from '../../mail/config.js';
import { createMailService } from '../../mail/service.js';
import { tempDir } from './kit.js';

const pem = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('mail settings from the environment', () => {
  it('no SMTP_URL: no relay, the outbox under DATA_DIR (./.data when unset, as on PostgreSQL)', () => {
    expect(loadMailConfig({}, './.data')).toEqual({ smtp: undefined, dkim: undefined, outboxDir: '.data/outbox' });
    expect(loadConfig({ DATABASE_URL: 'postgres://x@h/db' }).mail.outboxDir).toBe('.data/outbox');
    expect(loadConfig({ DATA_DIR: '/srv/wops' }).mail.outboxDir).toBe('/srv/wops/outbox');
    // In memory, nothing is written under the working directory (a ./memory folder appeared before).
    expect(loadConfig({ DATA_DIR: 'memory' }).mail.outboxDir).toBe(join(tmpdir(), 'wops-memory-outbox'));
    expect(loadConfig({ DATA_DIR: 'memory' }).blobs.dir).toBe(join(tmpdir(), 'wops-memory-blobs'));
    expect(loadConfig({ DATA_DIR: '/srv/wops', MAIL_OUTBOX_DIR: '/var/spool/wops' }).mail.outboxDir).toBe('/var/spool/wops');
  });

  it('every variable is in the help text', () => {
    for (const name of [
      'SMTP_URL',
      'SMTP_REQUIRE_TLS',
      'SMTP_TIMEOUT_MS',
      'SMTP_POOL_SIZE',
      'DKIM_DOMAIN',
      'DKIM_SELECTOR',
      'DKIM_PRIVATE_KEY',
      'MAIL_OUTBOX_DIR',
    ])
      expect(ENV_HELP).toContain(name);
  });

  it('SMTP_URL: scheme, default ports, URL-encoded credentials, and the other knobs', () => {
    expect(parseSmtpUrl('smtp://relay.example.test')).toEqual({ host: 'relay.example.test', port: 587, secure: false, user: undefined, pass: undefined });
    expect(parseSmtpUrl('smtps://u%40x.test:p%3Aw@relay.example.test')).toEqual({
      host: 'relay.example.test',
      port: 465,
      secure: true,
      user: 'u@x.test',
      pass: 'p:w',
    });
    expect(parseSmtpUrl('smtp://[::1]:2525').host).toBe('::1');
    const c = loadConfig({ SMTP_URL: 'smtp://u:p@relay.example.test:2525', SMTP_REQUIRE_TLS: 'true', SMTP_TIMEOUT_MS: '1500', SMTP_POOL_SIZE: '2' }).mail.smtp;
    expect(c).toEqual({ host: 'relay.example.test', port: 2525, secure: false, user: 'u', pass: 'p', requireTls: true, timeoutMs: 1500, poolSize: 2 });
  });

  it.each([
    ['http://relay.example.test', 'SMTP_URL: the scheme must be smtp or smtps, got http'],
    ['relay.example.test:25', 'SMTP_URL: the scheme must be smtp or smtps, got relay.example.test'],
    ['smtp://relay.example.test/?tls=off', 'SMTP_URL: a path or query is not read; use SMTP_REQUIRE_TLS, SMTP_TIMEOUT_MS, SMTP_POOL_SIZE'],
    ['smtp://:secret@relay.example.test', 'SMTP_URL: a password without a user'],
    ['not a url', 'SMTP_URL: not a URL (smtp://user:pass@host:port or smtps://...)'],
  ])('refuses SMTP_URL=%s', (url, text) => {
    expect(() => loadMailConfig({ SMTP_URL: url }, '.data')).toThrow(text);
  });

  it('refuses bad numbers and flags by name', () => {
    expect(() => loadMailConfig({ SMTP_URL: 'smtp://h', SMTP_TIMEOUT_MS: '0' }, '.data')).toThrow('SMTP_TIMEOUT_MS: must be an integer >= 1, got "0"');
    expect(() => loadMailConfig({ SMTP_URL: 'smtp://h', SMTP_REQUIRE_TLS: 'yes' }, '.data')).toThrow('SMTP_REQUIRE_TLS: must be true or false, got "yes"');
  });

  it('DKIM: all three variables or none; the key as PEM text, \\n-escaped PEM, or a file', () => {
    const file = join(tempDir(), 'dkim.pem');
    writeFileSync(file, pem);
    for (const key of [pem, pem.replace(/\n/g, '\\n'), file]) {
      const { dkim } = loadMailConfig({ DKIM_DOMAIN: 'Example.test', DKIM_SELECTOR: 'wops1', DKIM_PRIVATE_KEY: key }, '.data');
      expect(dkim).toEqual({ domainName: 'example.test', keySelector: 'wops1', privateKey: pem });
    }
    expect(() => loadMailConfig({ DKIM_DOMAIN: 'example.test' }, '.data')).toThrow(
      'DKIM_SELECTOR, DKIM_PRIVATE_KEY: DKIM needs all of DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY',
    );
    expect(() =>
      loadMailConfig(
        { DKIM_DOMAIN: 'example.test', DKIM_SELECTOR: 's', DKIM_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----' },
        '.data',
      ),
    ).toThrow('DKIM_PRIVATE_KEY: not a private key (PEM text, or a path to a PEM file)');
    expect(() => loadMailConfig({ DKIM_DOMAIN: 'example.test', DKIM_SELECTOR: 's', DKIM_PRIVATE_KEY: '/nonexistent/key.pem' }, '.data')).toThrow(
      'DKIM_PRIVATE_KEY: neither PEM text nor a readable file (ENOENT)',
    );
    expect(() => loadMailConfig({ DKIM_DOMAIN: 'not a domain', DKIM_SELECTOR: 's', DKIM_PRIVATE_KEY: pem }, '.data')).toThrow(
      'DKIM_DOMAIN: not a domain name, got "not a domain"',
    );
  });

  it('describe() says where mail goes and never shows the password or key', () => {
    const smtp = loadMailConfig(
      { SMTP_URL: 'smtp://u:hunter2@relay.example.test', DKIM_DOMAIN: 'example.test', DKIM_SELECTOR: 'wops1', DKIM_PRIVATE_KEY: pem },
      '/srv',
    );
    const line = createMailService(smtp).describe();
    expect(line).toBe('outbound mail: relay smtp://relay.example.test:587, DKIM-signed for example.test (selector wops1)');
    expect(createMailService(loadMailConfig({}, '/srv')).describe()).toBe(
      'outbound mail: no relay (SMTP_URL unset); mail for other servers is written to /srv/outbox, not delivered',
    );
  });
});
