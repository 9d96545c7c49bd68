/**
 * The inbound SMTP listener's settings (docs/families/email.md, Receiving over SMTP), read once from the environment
 * by the CLI (loadEmailInboundConfig) and passed down as runtime options (DomainConfig.emailInbound, declared below).
 * Unset EMAIL_SMTP_LISTEN: no listener. STARTTLS is offered only with a key and certificate; there is no AUTH (an MX
 * takes mail for its own mailboxes from anyone).
 */
import { Resolver } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { envInt } from '../../../config/env.js';

/** mailauth's DNS lookup: `dns.promises.resolve(name, type)` by default; tests inject one that answers offline. */
export type DnsResolver = (name: string, type: string) => Promise<unknown>;

export interface EmailInboundConfig {
  /** Where to listen (EMAIL_SMTP_LISTEN host:port); null: no listener. Port 0 takes a free port (tests). */
  listen: { host: string; port: number } | null;
  /** The name it greets with and writes in Authentication-Results (EMAIL_SMTP_HOSTNAME; default the machine's). */
  hostname: string;
  /** PEM key and certificate for STARTTLS (EMAIL_SMTP_TLS_KEY, EMAIL_SMTP_TLS_CERT: files); null: no STARTTLS. */
  tls: { key: string; cert: string } | null;
  /** Recipients one message may name (RCPT TO beyond it: 452, send the rest in another message). */
  maxRecipients: number;
  /** Connections open at once (EMAIL_SMTP_MAX_CLIENTS). */
  maxClients: number;
  /** SPF, DKIM and DMARC lookups (EMAIL_SMTP_DNS; default: the system's DNS). */
  resolver?: DnsResolver;
  /** Longest wait for SPF, DKIM and DMARC before the verdicts are temperror and the mail goes on (ms). */
  authTimeoutMs: number;
}

declare module '../../core/deps.js' {
  interface FamilyConfig {
    /** The inbound SMTP listener (EMAIL_SMTP_*); its `listen` null: none. */
    emailInbound: EmailInboundConfig;
  }
}

export const DEFAULT_INBOUND: EmailInboundConfig = {
  listen: null,
  hostname: hostname(),
  tls: null,
  maxRecipients: 100,
  maxClients: 200,
  authTimeoutMs: 20_000,
};

export const EMAIL_INBOUND_ENV_HELP = `Inbound mail (the SMTP listener, an MX for the org's mailboxes; unset = no listener):
  EMAIL_SMTP_LISTEN       host:port to take mail on, e.g. 0.0.0.0:25 or 127.0.0.1:2525 behind a relay
  EMAIL_SMTP_HOSTNAME     the name it greets with and writes in Authentication-Results (default: this machine's)
  EMAIL_SMTP_TLS_KEY      a PEM key file; with EMAIL_SMTP_TLS_CERT, STARTTLS is offered (otherwise it is not)
  EMAIL_SMTP_TLS_CERT     the PEM certificate (chain) file for it
  EMAIL_SMTP_MAX_CLIENTS  connections open at once (default 200)
  EMAIL_SMTP_DNS          where SPF, DKIM and DMARC are looked up: resolver addresses (ip or ip:port, comma-separated),
                          or none (no lookups: every name is unknown, so the verdicts are none; a host without DNS);
                          default the system's resolver`;

/** `host:port`, `[v6]:port` or `:port` (all interfaces). */
export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`EMAIL_SMTP_LISTEN: give host:port, e.g. 127.0.0.1:2525, got ${JSON.stringify(text)}`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

/** No lookups: every name answers as unknown at once (mailauth reads ENOTFOUND as no record: verdict none). */
const noDns: DnsResolver = (name) => Promise.reject(Object.assign(new Error(`no DNS lookups here (EMAIL_SMTP_DNS=none): ${name}`), { code: 'ENOTFOUND' }));

/** EMAIL_SMTP_DNS: none, or resolver addresses; unset, mailauth's default (the system's resolver). */
export function parseDns(text: string | undefined): DnsResolver | undefined {
  const value = text?.trim();
  if (!value) return undefined;
  if (value === 'none') return noDns;
  const servers = value.split(',').map((x) => x.trim());
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  try {
    resolver.setServers(servers);
  } catch (err) {
    throw new Error(`EMAIL_SMTP_DNS: give none or resolver addresses such as 127.0.0.1 or 10.0.0.2:53 (${(err as Error).message})`, { cause: err });
  }
  return (name, type) => resolver.resolve(name, type);
}

export function loadEmailInboundConfig(env: NodeJS.ProcessEnv): EmailInboundConfig {
  const listen = env.EMAIL_SMTP_LISTEN?.trim();
  const keyFile = env.EMAIL_SMTP_TLS_KEY?.trim();
  const certFile = env.EMAIL_SMTP_TLS_CERT?.trim();
  if (Boolean(keyFile) !== Boolean(certFile)) throw new Error('EMAIL_SMTP_TLS_KEY, EMAIL_SMTP_TLS_CERT: give both files, or neither (no STARTTLS)');
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`${name}: cannot read ${file}: ${(err as Error).message}`, { cause: err });
    }
  };
  return {
    ...DEFAULT_INBOUND,
    listen: listen ? parseListen(listen) : null,
    hostname: env.EMAIL_SMTP_HOSTNAME?.trim() || DEFAULT_INBOUND.hostname,
    tls: keyFile && certFile ? { key: read('EMAIL_SMTP_TLS_KEY', keyFile), cert: read('EMAIL_SMTP_TLS_CERT', certFile) } : null,
    maxClients: envInt(env, 'EMAIL_SMTP_MAX_CLIENTS', DEFAULT_INBOUND.maxClients, 1),
    resolver: parseDns(env.EMAIL_SMTP_DNS),
  };
}
