import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { parseImapUrl, type DnsResolver, type ImapSource } from '../../../domain/email/index.js';
import { freePort } from '../../helpers/ports.js';

/*
 * What the inbound tests share: a sending domain's DNS answered offline (a DKIM key generated here, its SPF record
 * listing 127.0.0.1, a DMARC record p=reject) as mailauth's injected resolver, and mail composed (and signed) by
 * nodemailer as a sending server would; a real dovecot IMAP server (Debian's dovecot-imapd) to import from.
 */

/** The DNS of `domain` (and of evil.example, whose SPF lists nobody); every other name is not found. */
export function dnsFor(domain: string, selector = 'test1') {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const records: Record<string, string> = {
    [`${selector}._domainkey.${domain}`]: `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
    [`_dmarc.${domain}`]: 'v=DMARC1; p=reject',
    [domain]: 'v=spf1 ip4:127.0.0.1 -all',
    'evil.example': 'v=spf1 -all',
  };
  const lookups: string[] = [];
  const resolver: DnsResolver = async (name, type) => {
    lookups.push(`${type} ${name}`);
    const txt = records[name.toLowerCase()];
    if (type === 'TXT' && txt) return [[txt]];
    throw Object.assign(new Error(`no ${type} record for ${name}`), { code: 'ENOTFOUND' });
  };
  const dkim = { domainName: domain, keySelector: selector, privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
  return { resolver, dkim, lookups };
}

/** RFC 5322 bytes, DKIM-signed when `sign` is given. */
export async function compose(opts: SendMailOptions & { sign?: ReturnType<typeof dnsFor>['dkim'] }): Promise<Buffer> {
  const { sign, ...mail } = opts;
  const t = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows', ...(sign ? { dkim: sign } : {}) });
  return (await t.sendMail({ subject: 'Hello', text: 'Hello there.', ...mail })).message as Buffer;
}

/** Debian's dovecot-imapd; the IMAP tests are skipped, saying so, without it. */
export const DOVECOT = '/usr/sbin/dovecot';

export interface Dovecot {
  source: ImapSource;
  url: string;
  stop(): Promise<void>;
}

/** dovecot in the foreground on a free loopback port; root runs it with Debian's dovecot and dovenull users. */
export async function startDovecot(user: string, pass: string): Promise<Dovecot> {
  const dir = mkdtempSync(join(tmpdir(), 'wops-dovecot-'));
  const port = await freePort();
  const root = process.getuid?.() === 0;
  const me = root ? null : (process.env.USER ?? 'nobody');
  // Dovecot's own processes (its internal user) read the config and the passwd-file.
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'home'), { recursive: true });
  // Dovecot will not keep mail as root: the mail belongs to its own user.
  if (root) chownSync(join(dir, 'home'), idOf('/etc/passwd', 'dovecot'), idOf('/etc/group', 'dovecot'));
  writeFileSync(join(dir, 'passwd'), `${user}:{PLAIN}${pass}\n`);
  writeFileSync(
    join(dir, 'dovecot.conf'),
    `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = ${me ?? 'dovecot'}
default_internal_group = ${me ?? 'dovecot'}
default_login_user = ${me ?? 'dovenull'}
first_valid_uid = 1
first_valid_gid = 1
mail_location = maildir:${dir}/home/%u/Maildir
namespace inbox {
  inbox = yes
  separator = /
  mailbox Junk {
    special_use = \\Junk
  }
  mailbox Sent {
    special_use = \\Sent
  }
}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${me ?? 'dovecot'} gid=${me ?? 'dovecot'} home=${dir}/home/%u
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    port = 0
  }
}
service anvil {
  chroot =
}
`,
  );
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', join(dir, 'dovecot.conf')], { stdio: 'ignore' });
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1', () => {
        s.end();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`dovecot did not start (see ${dir}/dovecot.log)`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const url = `imap://${encodeURIComponent(user)}:${encodeURIComponent(pass)}@127.0.0.1:${port}`;
  return {
    source: parseImapUrl(url),
    url,
    async stop() {
      if (child.exitCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      if (!process.env.KEEP_DOVECOT) rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
    },
  };
}

/** A user's or group's id from /etc/passwd or /etc/group (name:x:id:…). */
function idOf(file: string, name: string): number {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));
  if (!line) throw new Error(`no ${name} in ${file}: install dovecot-imapd`);
  return Number(line.split(':')[2]);
}
