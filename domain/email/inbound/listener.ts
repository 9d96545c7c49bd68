import type { AddressInfo } from 'node:net';
import type { SMTPServer, SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import { MAX_MESSAGE_BYTES } from '../../../protocol/methods/email/shapes.js';
import type { Queryable } from '../../../db/types.js';
import type { Deps } from '../../core/deps.js';
import type { Background } from '../../core/family.js';
import { ReceiveError, receiveMessage } from '../receive.js';
import { checkAuth, plainIp, type AuthVerdicts } from './auth.js';
import type { EmailInboundConfig } from './config.js';
import { cachedResolver, systemResolver } from './dns-cache.js';

/*
 * The inbound SMTP listener (smtp-server), an MX for the org's mailboxes, run as the email family's background work
 * where EMAIL_SMTP_LISTEN is set. RCPT TO is checked against the mailboxes of every org (550 when none has the
 * address); one message goes to one org's mailboxes (a recipient of another org gets 452 and the client sends it in
 * another transaction). SIZE is announced (25 MB; more is 552). At the end of DATA: SPF, DKIM and DMARC
 * (inbound/auth.ts, its lookups kept a minute: inbound/dns-cache.ts), then receiveMessage, and 250 only once it has
 * committed; any other failure (the database down) is 451, so the sender keeps the message and tries again: nothing
 * is lost, and the retry is stored once. One log line per message: ids, verdicts and the reply code, never an address.
 */

export interface InboundListener extends Background {
  /** Where it listens, once it does (rejects if it cannot, e.g. the port is taken). */
  ready: Promise<{ host: string; port: number }>;
}

type Reply = Error & { responseCode?: number };
const reply = (code: number, message: string): Reply => Object.assign(new Error(message), { responseCode: code });

/** The org and mailbox an address belongs to, across orgs (the email_mailboxes_address index). */
async function owners(q: Queryable, address: string): Promise<{ org_id: string; mailbox_id: string }[]> {
  return q.query<{ org_id: string; mailbox_id: string }>('SELECT org_id, mailbox_id FROM email_mailboxes WHERE address = $1 ORDER BY org_id LIMIT 2', [
    address.trim().toLowerCase(),
  ]);
}

/** The org a transaction delivers to, set by its first accepted recipient. */
const orgOf = new WeakMap<SMTPServerSession, { transaction: number; orgId: string }>();

export function startInbound(deps: Deps, config: EmailInboundConfig): InboundListener {
  const listen = config.listen ?? { host: '127.0.0.1', port: 0 };
  // Lookups kept a minute and shared while in flight (inbound/dns-cache.ts): a burst asks each name once.
  const resolver = cachedResolver(config.resolver ?? systemResolver);
  let server: SMTPServer | undefined;
  const log = deps.log;

  const onRcptTo = async (address: { address: string }, session: SMTPServerSession): Promise<void> => {
    if (session.envelope.rcptTo.length >= config.maxRecipients) {
      throw reply(452, `4.5.3 Too many recipients: at most ${config.maxRecipients} a message; send the rest in another message`);
    }
    let found: { org_id: string; mailbox_id: string }[];
    try {
      found = await owners(deps.db, address.address);
    } catch (err) {
      log.error({ email: { via: 'smtp', session: session.id, stage: 'rcpt', error: (err as Error).message } }, 'email: inbound recipient lookup failed');
      throw reply(451, '4.3.0 Temporary failure looking up the recipient: try again later');
    }
    if (found.length === 0) throw reply(550, '5.1.1 No mailbox here has this address');
    if (found.length > 1) {
      log.warn({ email: { via: 'smtp', session: session.id, mailboxIds: found.map((f) => f.mailbox_id) } }, 'email: an inbound address belongs to two orgs');
      throw reply(550, '5.1.1 This address is not deliverable here');
    }
    const held = orgOf.get(session);
    if (held && held.transaction === session.transaction && held.orgId !== found[0].org_id) {
      throw reply(452, '4.5.3 Recipients of one organisation a message: send this recipient in another message');
    }
    orgOf.set(session, { transaction: session.transaction, orgId: found[0].org_id });
  };

  const onData = async (raw: Buffer, oversized: boolean, session: SMTPServerSession): Promise<string> => {
    const started = Date.now();
    const line = { via: 'smtp', session: session.id, bytes: raw.length } as Record<string, unknown>;
    let code = 250;
    let auth: AuthVerdicts | undefined;
    try {
      if (oversized) throw reply(552, `5.3.4 Message too big: at most ${MAX_MESSAGE_BYTES} bytes`);
      const target = orgOf.get(session);
      if (!target || target.transaction !== session.transaction) throw reply(503, '5.5.1 No valid recipients');
      auth = await checkAuth({
        raw,
        ip: session.remoteAddress,
        helo: session.hostNameAppearsAs || plainIp(session.remoteAddress),
        mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
        mta: config.hostname,
        resolver,
        timeoutMs: config.authTimeoutMs,
      });
      const got = await receiveMessage(deps, {
        orgId: target.orgId,
        raw,
        envelope: { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address) },
        auth,
        via: 'smtp',
      });
      Object.assign(line, { orgId: target.orgId, messageIds: got.messages.map((m) => m.messageId), spam: got.messages.map((m) => m.spam) });
      return `2.0.0 Accepted for ${got.messages.length} mailbox${got.messages.length === 1 ? '' : 'es'}`;
    } catch (err) {
      if (err instanceof ReceiveError) {
        code = err.smtpCode;
        throw reply(err.smtpCode, `${err.smtpCode === 552 ? '5.3.4' : '5.1.1'} ${err.message}`);
      }
      if ((err as Reply).responseCode) {
        code = (err as Reply).responseCode!;
        throw err;
      }
      // The database down, a disk full: the sender keeps the message and tries again.
      code = 451;
      line.error = (err as Error).message;
      throw reply(451, '4.3.0 Temporary failure storing the message: try again later');
    } finally {
      Object.assign(line, { code, ms: Date.now() - started, ...(auth ? { spf: auth.spf, dkim: auth.dkim, dmarc: auth.dmarc } : {}) });
      if (code === 250) log.info({ email: line }, 'email: inbound message');
      else log.warn({ email: line }, 'email: inbound message refused');
    }
  };

  const ready = (async () => {
    const { SMTPServer } = await import('smtp-server');
    server = new SMTPServer({
      name: config.hostname,
      banner: 'mail for the mailboxes of this server',
      logger: false,
      size: MAX_MESSAGE_BYTES,
      rejectOversized: true,
      // An MX: anyone may hand it mail for its mailboxes; nobody logs in.
      authOptional: true,
      disabledCommands: config.tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      ...(config.tls ? { key: config.tls.key, cert: config.tls.cert } : {}),
      maxClients: config.maxClients,
      // At shutdown a connection still open after 5 s gets 421; its sender tries again (a 250 never went out).
      closeTimeout: 5_000,
      disableReverseLookup: true,
      onRcptTo(address, session, cb) {
        onRcptTo(address, session).then(() => cb(), cb);
      },
      onData(stream: SMTPServerDataStream, session, cb) {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => {
          if (!stream.sizeExceeded) chunks.push(c);
        });
        stream.on('end', () => {
          onData(Buffer.concat(chunks), stream.sizeExceeded, session).then((message) => cb(null, message), cb);
        });
      },
    });
    server.on('error', (err) => log.warn({ email: { via: 'smtp', error: err.message } }, 'email: inbound listener error'));
    await new Promise<void>((resolve, reject) => {
      server!.server.once('error', reject);
      server!.listen(listen.port, listen.host, () => {
        server!.server.off('error', reject);
        resolve();
      });
    });
    const address = server.server.address() as AddressInfo;
    log.info({ email: { via: 'smtp', host: address.address, port: address.port, starttls: config.tls !== null } }, 'email: inbound listener ready');
    return { host: address.address, port: address.port };
  })();
  ready.catch((err: Error) => log.error({ email: { via: 'smtp', error: err.message } }, 'email: inbound listener did not start'));

  return {
    ready,
    async stop() {
      await ready.catch(() => undefined);
      const s = server;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
}
