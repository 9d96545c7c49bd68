/** A message's RFC 5322 bytes, composed once: what the relay is handed and what the outbox file holds. */
import type { SendMailOptions } from 'nodemailer';
import type { DkimSettings } from './config.js';

const openComposer = (dkim?: DkimSettings) =>
  import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows', ...(dkim ? { dkim } : {}) }),
  );

export class Composer {
  // nodemailer's stream transport does the MIME (and the DKIM signature) as its SMTP transport would; made at the
  // first message, so nodemailer loads only when mail is sent.
  private transport?: ReturnType<typeof openComposer>;

  constructor(private readonly dkim?: DkimSettings) {}

  /**
   * The bytes of `options`, CRLF line ends, DKIM-signed when configured. A Bcc field in `options` is written into
   * them (the stream transport keeps it): leave bcc out, and name those recipients in the envelope, for bytes that
   * go to a relay.
   */
  async compose(options: SendMailOptions): Promise<Buffer> {
    const transport = await (this.transport ??= openComposer(this.dkim));
    const info = await transport.sendMail(options);
    return info.message as Buffer;
  }
}
