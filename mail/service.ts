/**
 * The one outbound mail service every family sends through (invitations, email, notifications).
 *
 * With a relay (SMTP_URL) every message goes through it. Without one, recipients a family claims as its own
 * (registerLocalRecipients) are delivered internally and the message for everyone else is written to the
 * outbox as an .eml file and reported `outboxed`: not delivered, never `sent`.
 *
 * The service appends no ledger events and logs nothing: the calling family records its own event in its own
 * transaction, with ids and statuses only (never addresses, subjects or bodies: the ledger cannot be erased).
 * Sending never throws for a delivery problem (that is a `failed` Delivery); a malformed message is a
 * BAD_REQUEST naming the field.
 *
 * A message is composed once (mail/compose.ts, DKIM-signed there): the relay is handed those bytes, or the outbox
 * file holds them, and the Delivery carries them back (`raw`), so the caller can keep what left.
 */
import type { MailConfig } from './config.js';
import { Composer } from './compose.js';
import { prepareMessage } from './message.js';
import { Outbox } from './outbox.js';
import { Relay } from './smtp.js';
import type { Delivery, LocalRecipients, MailMessage, MailService, Refusal } from './types.js';

export const NO_RELAY = 'not delivered: no relay configured (SMTP_URL)';

export function createMailService(config: MailConfig): MailService {
  const relay = config.smtp ? new Relay(config.smtp) : undefined;
  const outbox = new Outbox(config.outboxDir);
  const composer = new Composer(config.dkim);
  const hooks: LocalRecipients[] = [];

  async function viaRelay(r: Relay, prepared: ReturnType<typeof prepareMessage>): Promise<Delivery> {
    // What goes to a relay carries no Bcc field: those recipients are in the envelope only.
    let raw: Buffer;
    try {
      raw = await composer.compose({ ...prepared.options, bcc: [], envelope: prepared.envelope });
    } catch (err) {
      // As when the relay's transport fails before any reply (nodemailer not loading): worth trying again.
      const error = `not sent: the message could not be composed: ${(err as Error).message}`;
      return { messageId: prepared.messageId, accepted: [], internal: [], outboxed: [], rejected: [], refusals: [], status: 'failed', error, temporary: true };
    }
    const result = await r.send(prepared.envelope, raw);
    const base = {
      messageId: prepared.messageId,
      accepted: result.accepted,
      internal: [],
      outboxed: [],
      rejected: result.refusals.map((x) => x.address),
      refusals: result.refusals,
    };
    if (result.error) return { ...base, status: 'failed', error: result.error.message, temporary: result.error.temporary };
    if (base.rejected.length)
      return { ...base, status: 'sent', raw, error: `the relay refused ${base.rejected.length} of ${prepared.recipients.length} recipients` };
    return { ...base, status: 'sent', raw };
  }

  /** Each registered family, in order, delivers the recipients it claims; a throw refuses those, temporarily. */
  async function deliverLocally(message: MailMessage, recipients: string[], messageId: string) {
    const delivered: string[] = [];
    const refusals: Refusal[] = [];
    let rest = recipients;
    for (const hook of hooks) {
      if (rest.length === 0) break;
      const claimed = new Set((await hook.claim(rest)).map((a) => a.toLowerCase()));
      const mine = rest.filter((a) => claimed.has(a));
      if (mine.length === 0) continue;
      rest = rest.filter((a) => !claimed.has(a));
      try {
        await hook.deliver(message, mine, messageId);
        delivered.push(...mine);
      } catch (err) {
        refusals.push(...mine.map((address) => ({ address, response: `not delivered internally: ${(err as Error).message}`, temporary: true })));
      }
    }
    return { delivered, refusals, external: rest };
  }

  async function withoutRelay(message: MailMessage, prepared: ReturnType<typeof prepareMessage>): Promise<Delivery> {
    const local = await deliverLocally(message, prepared.recipients, prepared.messageId);
    const base = {
      messageId: prepared.messageId,
      accepted: local.delivered,
      internal: local.delivered,
      outboxed: [] as string[],
      rejected: local.refusals.map((r) => r.address),
      refusals: local.refusals,
    };
    if (local.external.length === 0) {
      if (local.delivered.length)
        return { ...base, status: 'internal', ...(base.rejected.length ? { error: `${base.rejected.length} recipients not delivered internally` } : {}) };
      return { ...base, status: 'failed', error: 'not delivered internally', temporary: true };
    }
    try {
      const raw = await composer.compose(prepared.options);
      const file = await outbox.write(raw);
      return { ...base, outboxed: local.external, status: 'outboxed', file, raw, error: NO_RELAY };
    } catch (err) {
      const error = `${NO_RELAY}, and the outbox file could not be written: ${(err as Error).message}`;
      const refusals = [...base.refusals, ...local.external.map((address) => ({ address, response: error, temporary: true }))];
      const partial = { ...base, rejected: refusals.map((r) => r.address), refusals, error };
      return local.delivered.length ? { ...partial, status: 'internal' } : { ...partial, status: 'failed', temporary: true };
    }
  }

  return {
    async send(message) {
      const prepared = prepareMessage(message);
      return relay ? viaRelay(relay, prepared) : withoutRelay(message, prepared);
    },
    registerLocalRecipients(hook) {
      hooks.push(hook);
      return () => {
        const i = hooks.indexOf(hook);
        if (i >= 0) hooks.splice(i, 1);
      };
    },
    describe() {
      const dkim = config.dkim ? `, DKIM-signed for ${config.dkim.domainName} (selector ${config.dkim.keySelector})` : '';
      if (!relay) return `outbound mail: no relay (SMTP_URL unset); mail for other servers is written to ${config.outboxDir}, not delivered${dkim}`;
      const s = relay.settings;
      return `outbound mail: relay ${s.secure ? 'smtps' : 'smtp'}://${s.host}:${s.port}${s.requireTls ? ' (TLS required)' : ''}${dkim}`;
    },
    async close() {
      relay?.close();
    },
  };
}
