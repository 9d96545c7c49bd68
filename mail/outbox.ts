/** No relay: the message as it would have gone out, written as an RFC 5322 .eml file. */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SendMailOptions } from 'nodemailer';
import type { DkimSettings } from './config.js';

const openComposer = (dkim?: DkimSettings) =>
  import('nodemailer').then(({ default: nodemailer }) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows', ...(dkim ? { dkim } : {}) }),
  );

export class Outbox {
  // nodemailer's stream transport composes (and DKIM-signs) exactly what the SMTP transport would send; made at the
  // first write, so nodemailer loads only when a message is outboxed.
  private composer?: ReturnType<typeof openComposer>;

  constructor(
    readonly dir: string,
    private readonly dkim?: DkimSettings,
  ) {}

  /**
   * Write the message (Bcc kept, as a submission would carry it) to `<dir>/<time>-<random>.eml`, whole or not at
   * all: a temporary file is written and synced, then renamed. Returns the file's path.
   */
  async write(options: SendMailOptions): Promise<string> {
    const composer = await (this.composer ??= openComposer(this.dkim));
    const info = await composer.sendMail(options);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replace(/[-:.]/g, '')}-${randomBytes(6).toString('hex')}.eml`;
    const file = join(this.dir, name);
    const temp = join(this.dir, `.${name}.tmp`);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(info.message as Buffer);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, file);
    } catch (err) {
      await rm(temp, { force: true });
      throw err;
    }
    return file;
  }
}
