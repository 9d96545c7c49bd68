/**
 * The relay: one pooled nodemailer transport per service (so per server process), made at the first send. It is
 * handed the message's composed bytes (mail/compose.ts, signed there) and sends exactly those.
 */
import type { SmtpSettings } from './config.js';
import type { Refusal } from './types.js';

export interface RelayResult {
  accepted: string[];
  refusals: Refusal[];
  /** Set when nothing was accepted. */
  error?: { message: string; temporary: boolean };
}

interface SmtpError extends Error {
  code?: string;
  response?: string;
  responseCode?: number;
  recipient?: string;
  rejectedErrors?: SmtpError[];
}

/** A reply code makes 4xx temporary and 5xx final; no reply at all (network, timeout, TLS) is temporary. */
const temporary = (err: SmtpError) => (err.responseCode ? err.responseCode < 500 || err.responseCode === 503 : true);

function refusal(err: SmtpError): Refusal {
  return { address: (err.recipient ?? '').toLowerCase(), response: err.response ?? err.message, temporary: temporary(err) };
}

function openPool(settings: SmtpSettings) {
  return import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport({
      pool: true,
      maxConnections: settings.poolSize,
      host: settings.host,
      port: settings.port,
      secure: settings.secure,
      requireTLS: settings.requireTls,
      ...(settings.user !== undefined ? { auth: { user: settings.user, pass: settings.pass ?? '' } } : {}),
      connectionTimeout: settings.timeoutMs,
      greetingTimeout: settings.timeoutMs,
      socketTimeout: settings.timeoutMs,
      disableFileAccess: true,
      disableUrlAccess: true,
    }),
  );
}

export class Relay {
  private transport?: ReturnType<typeof openPool>;

  constructor(readonly settings: SmtpSettings) {}

  /** Send `raw` as it is to the envelope's recipients (MAIL FROM `envelope.from`). */
  async send(envelope: { from: string; to: string[] }, raw: Buffer): Promise<RelayResult> {
    const transport = await (this.transport ??= openPool(this.settings));
    try {
      const info = await transport.sendMail({ envelope, raw, disableFileAccess: true, disableUrlAccess: true });
      const refusals = ((info as { rejectedErrors?: SmtpError[] }).rejectedErrors ?? []).map(refusal);
      return { accepted: (info.accepted as Array<string | { address: string }>).map((a) => (typeof a === 'string' ? a : a.address).toLowerCase()), refusals };
    } catch (e) {
      const err = e as SmtpError;
      const refusals = (err.rejectedErrors ?? []).map(refusal);
      const what = err.code === 'EAUTH' ? 'the relay refused the credentials in SMTP_URL' : 'not sent';
      return {
        accepted: [],
        refusals,
        error: { message: `${what}: ${err.message}`, temporary: refusals.length ? refusals.some((r) => r.temporary) : temporary(err) },
      };
    }
  }

  close(): void {
    // A transport that never opened (nodemailer failed to load) has nothing to close; its send already failed.
    void this.transport?.then(
      (t) => t.close(),
      () => {},
    );
  }
}
