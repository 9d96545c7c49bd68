/** No relay: the message as it would have gone out, written as an RFC 5322 .eml file. */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

export class Outbox {
  constructor(readonly dir: string) {}

  /**
   * Write the composed message (mail/compose.ts; Bcc kept, as a submission would carry it) to
   * `<dir>/<time>-<random>.eml`, whole or not at all: a temporary file is written and synced, then renamed.
   * Returns the file's path.
   */
  async write(raw: Buffer): Promise<string> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const name = `${new Date().toISOString().replace(/[-:.]/g, '')}-${randomBytes(6).toString('hex')}.eml`;
    const file = join(this.dir, name);
    const temp = join(this.dir, `.${name}.tmp`);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(raw);
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
