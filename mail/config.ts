/**
 * Outbound mail settings, read once from the environment by the CLI and passed down (runtime options ->
 * Deps.mail). Nothing in mail/ reads process.env itself.
 */
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dataPath, envBool, envInt } from '../config/env.js';

export interface SmtpSettings {
  host: string;
  port: number;
  /** smtps: TLS from the first byte; smtp: STARTTLS when the relay offers it (required with requireTls). */
  secure: boolean;
  user?: string;
  pass?: string;
  requireTls: boolean;
  /** Connecting, the greeting, and any silence on an open connection, each. */
  timeoutMs: number;
  /** Connections the one pooled transport keeps open to the relay. */
  poolSize: number;
}

export interface DkimSettings {
  domainName: string;
  keySelector: string;
  /** PEM text. */
  privateKey: string;
}

export interface MailConfig {
  /** The relay; unset = no relay: local recipients are delivered internally, the rest written to outboxDir. */
  smtp?: SmtpSettings;
  dkim?: DkimSettings;
  outboxDir: string;
}

export const MAIL_ENV_HELP = `Outbound mail (invitations, email, notifications):
  SMTP_URL              the relay: smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host:465;
                        user and password URL-encoded. Unset = no relay: mail to people on this server is delivered
                        internally and everything else is written to the outbox, reported as not delivered
  SMTP_REQUIRE_TLS      true: refuse to send over smtp:// unless the relay accepts STARTTLS (default false)
  SMTP_TIMEOUT_MS       limit on connecting, the greeting and any silence while sending (default 30000)
  SMTP_POOL_SIZE        connections kept open to the relay (default 5)
  DKIM_DOMAIN, DKIM_SELECTOR, DKIM_PRIVATE_KEY
                        sign every message (all three or none); the key as PEM text or a path to a PEM file;
                        publish the public key as TXT at <selector>._domainkey.<domain>
  MAIL_OUTBOX_DIR       where unsent mail is written as .eml files (default DATA_DIR/outbox, ./.data/outbox)`;

/** SMTP_URL -> host, port, TLS and credentials; the message never repeats the password. */
export function parseSmtpUrl(raw: string): Pick<SmtpSettings, 'host' | 'port' | 'secure' | 'user' | 'pass'> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('SMTP_URL: not a URL (smtp://user:pass@host:port or smtps://...)');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new Error(`SMTP_URL: the scheme must be smtp or smtps, got ${url.protocol.replace(/:$/, '')}`);
  if (!url.hostname) throw new Error('SMTP_URL: names no host');
  if (url.search || (url.pathname && url.pathname !== '/'))
    throw new Error('SMTP_URL: a path or query is not read; use SMTP_REQUIRE_TLS, SMTP_TIMEOUT_MS, SMTP_POOL_SIZE');
  const secure = url.protocol === 'smtps:';
  const user = url.username ? decodeURIComponent(url.username) : undefined;
  const pass = url.password ? decodeURIComponent(url.password) : undefined;
  if (pass !== undefined && user === undefined) throw new Error('SMTP_URL: a password without a user');
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port ? Number(url.port) : secure ? 465 : 587, secure, user, pass };
}

/** DKIM_PRIVATE_KEY as PEM text (real or `\n`-escaped newlines) or a path to a PEM file; checked here, at startup. */
function dkimKey(raw: string): string {
  const text = raw.includes('-----BEGIN') ? (raw.includes('\n') ? raw : raw.replace(/\\n/g, '\n')) : readKeyFile(raw);
  try {
    createPrivateKey(text);
  } catch {
    throw new Error('DKIM_PRIVATE_KEY: not a private key (PEM text, or a path to a PEM file)');
  }
  return text;
}

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`DKIM_PRIVATE_KEY: neither PEM text nor a readable file (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
}

function loadDkim(env: NodeJS.ProcessEnv): DkimSettings | undefined {
  const names = ['DKIM_DOMAIN', 'DKIM_SELECTOR', 'DKIM_PRIVATE_KEY'] as const;
  const set = names.filter((n) => env[n]);
  if (set.length === 0) return undefined;
  if (set.length < names.length) throw new Error(`${names.filter((n) => !env[n]).join(', ')}: DKIM needs all of ${names.join(', ')}`);
  const domainName = env.DKIM_DOMAIN!.trim().toLowerCase();
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$/.test(domainName))
    throw new Error(`DKIM_DOMAIN: not a domain name, got ${JSON.stringify(env.DKIM_DOMAIN)}`);
  const keySelector = env.DKIM_SELECTOR!.trim();
  if (!/^[A-Za-z0-9]([A-Za-z0-9_-]*)(\.[A-Za-z0-9][A-Za-z0-9_-]*)*$/.test(keySelector))
    throw new Error(`DKIM_SELECTOR: not a selector, got ${JSON.stringify(env.DKIM_SELECTOR)}`);
  return { domainName, keySelector, privateKey: dkimKey(env.DKIM_PRIVATE_KEY!) };
}

export function loadMailConfig(env: NodeJS.ProcessEnv, dataDir: string): MailConfig {
  const smtpUrl = env.SMTP_URL?.trim();
  const smtp: SmtpSettings | undefined = smtpUrl
    ? {
        ...parseSmtpUrl(smtpUrl),
        requireTls: envBool(env, 'SMTP_REQUIRE_TLS'),
        timeoutMs: envInt(env, 'SMTP_TIMEOUT_MS', 30_000, 1),
        poolSize: envInt(env, 'SMTP_POOL_SIZE', 5, 1),
      }
    : undefined;
  return { smtp, dkim: loadDkim(env), outboxDir: env.MAIL_OUTBOX_DIR || dataPath(dataDir, 'outbox') };
}
