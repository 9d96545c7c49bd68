import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { parseSmtpUrl, type DkimSettings, type MailConfig } from '../../mail/config.js';
import { tempDir } from '../helpers/temp.js';

export { tempDir };

/** The service's settings for a relay at `url`; a short timeout keeps a failing test quick. */
export function relayConfig(url: string, extra: Partial<MailConfig['smtp']> = {}, dkim?: DkimSettings): MailConfig {
  return { smtp: { ...parseSmtpUrl(url), requireTls: false, timeoutMs: 5000, poolSize: 3, ...extra }, dkim, outboxDir: join(tempDir('wops-mail-'), 'outbox') };
}

/** A fresh RSA key and the DNS TXT record a verifier would find at <selector>._domainkey.<domain>. */
export function dkimKey(domainName = 'example.test', keySelector = 'wops1') {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const dkim: DkimSettings = { domainName, keySelector, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  const txt = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
  const lookups: string[] = [];
  // mailauth's injected resolver: answers only the one name, so nothing goes to the network.
  const resolver = async (name: string, type: string) => {
    lookups.push(`${type} ${name}`);
    if (type === 'TXT' && name === `${keySelector}._domainkey.${domainName}`) return [[txt]];
    throw Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' });
  };
  return { dkim, resolver, lookups };
}
