import { createRuntime } from '../domain/deployed.js';
import { parseImapUrl, syncImap } from '../domain/email/index.js';
import type { ServerConfig } from './config.js';

/*
 * `mailbox-sync`: import an existing mailbox's mail over IMAP into a mailbox of the org, through the same receive
 * path as the SMTP listener (blobs where the server keeps them, one email.message.receive event a message). It
 * prints its progress; running it again imports only what is new.
 */

export async function mailboxSyncCommand(
  config: ServerConfig,
  slug: string,
  opts: { address: string; imap: string; folder?: string; since?: string },
  out: (line: string) => void,
): Promise<string> {
  const source = parseImapUrl(opts.imap);
  const runtime = await createRuntime({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteTemplateDir: config.pgliteTemplateDir,
    poolSize: 4,
    blobs: config.blobs,
  });
  try {
    const r = await syncImap(runtime.deps, slug, opts.address, source, { folder: opts.folder, since: opts.since, out });
    const skipped = [...(r.present > 0 ? [`${r.present} already here`] : []), ...(r.tooLarge > 0 ? [`${r.tooLarge} over 25 MB left out`] : [])];
    return (
      `Imported ${r.imported} new message${r.imported === 1 ? '' : 's'} from ${r.folder} into ${opts.address} (${r.mailboxId})` +
      `${skipped.length ? `; ${skipped.join(', ')}` : ''}. The next run starts after UID ${r.lastUid} (UIDVALIDITY ${r.uidValidity}).`
    );
  } finally {
    await runtime.close();
  }
}
