import { parseArgs } from 'node:util';
import { openDb } from '../db/index.js';
import { TIER_NAMES } from '../protocol/scopes.js';
import { parseParams } from '../protocol/schema.js';
import { MintKeyParams } from '../protocol/methods/keys.js';
import { Slug } from '../protocol/methods/org.js';
import { systemCreateOrg, systemMintKey } from '../domain/system.js';
import { ENV_HELP, loadConfig } from './config.js';
import { serve } from './serve.js';
import { verifyCommand } from './verify.js';
import { importCommand, readStatementFile } from './import.js';
import { demoCommand } from './demo-command.js';
import { aiSettingsCommand } from './ai-settings.js';
import { setBooksState } from '../domain/books/settings.js';
import { pgliteTemplateCommand } from './pglite-template.js';
import { jobsCommand } from './jobs.js';
import { paygImportCommand, readScheduleFile } from './payg-import.js';
import { blobsGcCommand } from './blobs-gc.js';
import { mailboxCreateCommand, mailboxMembersCommand, mailboxTriageCommand } from './mailbox.js';
import { mailboxSyncCommand } from './mailbox-sync.js';
import { vaultRewrapCommand } from './vault.js';

const HELP = `Usage: npm run cli -- <command> [options]   (or: node dist/cli/main.js <command> after npm run build)

Commands:
  serve [--demo]                         start the HTTP server (npm start does this); --demo also seeds the demo
                                         company (org demo) on a database that has none
  demo [--org <slug>]                    seed a demo company (default org demo) to try every books method on: a
                                         quarter of trading through the API, one of everything left waiting;
                                         prints its keys (admin, agent, approver) and what to try
  verify [--org <slug>]                  re-hash every org's ledger chain (or one org's) from the database;
                                         prints the first broken link or row by seq and exits 1 on a break
  org create --slug <slug> --name <name> create a top-level org and print its admin key (once)
  key mint --org <slug> --name <label> (--tier ${TIER_NAMES.join('|')} | --scopes <a,b,...> [--human])
                                         mint an API key and print it (once)
  import <file> [--org <slug>] [--format csv|ofx]
                                         import a bank statement (CSV or OFX) into the org's bank feed lines
                                         (org default: default; format from the extension); lines the org
                                         already has (same bank transaction id) are skipped
  ai-settings --org <slug> [--budget-usd <dollars>|default] [--store-bodies on|off]
                                         set an org's monthly books.ask budget (default: AI_MONTHLY_BUDGET_USD;
                                         0 turns books.ask off) and whether its AI audit keeps redacted bodies
  books-settings --org <slug> --state <ACT|NSW|NT|QLD|SA|TAS|VIC|WA>
                                         set the org's state (default NSW): its public holidays, with the national
                                         ones, are not business days for Payday Super due dates
  payg-import <file.json|file.csv> [--from YYYY-MM-DD]
                                         load an ATO PAYG Schedule 1 (coefficients of scales 1 and 2, the
                                         dates it applies to, its source and the ATO's sample data) for every
                                         org; refused unless valid and every sample row computes exactly
  mailbox-create --org <slug> --address <a@domain> --member <member id>:<role> [--member …]
                 [--name <display name>] [--policy review_external|review_all|review_new_contacts]
                 [--undo-seconds <0-300>]
                                         create a shared mailbox with its folders (Inbox, Drafts, Sent, Archive,
                                         Spam, Trash); roles: owner, reviewer, member (humans), agent (agents);
                                         at least one owner; policy: which agent mail waits for a human's review
                                         before it leaves (default review_external); undo window default 10 s
  mailbox-members --org <slug> --address <a@domain> [--member <member id>:<role> …] [--remove <member id> …]
                                         add members or change their roles, and remove members; the mailbox
                                         keeps at least one owner
  mailbox-triage --org <slug> --address <a@domain> (--as <agent member id> | --off)
                                         triage the Inbox threads with new mail a short while after mail
                                         arrives, as that agent seat of the mailbox (through the AI gateway and
                                         the org's AI budget; never moves mail); --off: only when called
  mailbox-sync --org <slug> --address <a@domain> --imap <imaps://user:password@host:993>
               [--folder INBOX] [--since YYYY-MM-DD]
                                         import an existing mailbox's mail over IMAP into the mailbox, as if it
                                         had arrived (INBOX through rules and spam checks; Junk, Trash, Archive
                                         and other folders into theirs); a second run imports only what is new
  jobs [--state pending|failed|done] [--org <slug>] [--limit <n>]
                                         the scheduled jobs, newest first (default 50): name, state, org,
                                         attempts, next run, the first line of the last error
  vault rewrap                           wrap every secret's data key with the first VAULT_MASTER_KEYS key (after
                                         prepending a new one), printing progress and the rows each key still
                                         wraps; drop an old key once it wraps 0 rows
  blobs-gc [--dry-run]                   delete blobs no record refers to, older than BLOB_GC_GRACE_MS (the
                                         server also does it every BLOB_GC_INTERVAL_MS); --dry-run lists them
  pglite-template                        create the migrated empty PGlite database that new data dirs (and the
                                         tests' in-memory databases) are copied from; npm install runs it
  docs-reference [--check]               write docs/reference/ (methods, reads, MCP desks, event kinds) from the registry and
                                         the contracts; --check exits 1 when they are out of date
  help                                   this text

${ENV_HELP}`;

class UsageError extends Error {}

function need(value: string | undefined, flag: string): string {
  if (!value) throw new UsageError(`missing --${flag}`);
  return value;
}

async function withDb<T>(fn: (db: Awaited<ReturnType<typeof openDb>>) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openDb({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgliteTemplateDir: config.pgliteTemplateDir,
    poolSize: 4,
    notice: (message) => process.stderr.write(`${message}\n`),
  });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

export async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      org: { type: 'string' },
      slug: { type: 'string' },
      name: { type: 'string' },
      tier: { type: 'string' },
      scopes: { type: 'string' },
      human: { type: 'boolean' },
      format: { type: 'string' },
      demo: { type: 'boolean' },
      'budget-usd': { type: 'string' },
      'store-bodies': { type: 'string' },
      state: { type: 'string' },
      from: { type: 'string' },
      'dry-run': { type: 'boolean' },
      check: { type: 'boolean' },
      limit: { type: 'string' },
      address: { type: 'string' },
      member: { type: 'string', multiple: true },
      remove: { type: 'string', multiple: true },
      policy: { type: 'string' },
      'undo-seconds': { type: 'string' },
      as: { type: 'string' },
      off: { type: 'boolean' },
      imap: { type: 'string' },
      folder: { type: 'string' },
      since: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const command = positionals.join(' ');
  if (values.help || command === 'help' || command === '') {
    process.stdout.write(`${HELP}\n`);
    return command === '' && !values.help ? 2 : 0;
  }
  if (positionals[0] === 'import') {
    if (positionals.length !== 2) throw new UsageError('import takes one file: import <file> [--org <slug>] [--format csv|ofx]');
    const statement = await readStatementFile(positionals[1], values.format);
    process.stdout.write(`${await withDb((db) => importCommand(db, values.org ?? 'default', statement))}\n`);
    return 0;
  }
  if (positionals[0] === 'payg-import') {
    if (positionals.length !== 2) throw new UsageError('payg-import takes one file: payg-import <file.json|file.csv> [--from YYYY-MM-DD]');
    const file = await readScheduleFile(positionals[1]);
    process.stdout.write(`${await withDb((db) => paygImportCommand(db, file, values.from))}\n`);
    return 0;
  }
  switch (command) {
    case 'serve':
      await serve(loadConfig(), { demo: values.demo === true });
      return -1; // keeps running
    case 'demo':
      await demoCommand(loadConfig(), parseParams(Slug, values.org ?? 'demo', 'org'), (line) => process.stdout.write(`${line}\n`));
      return 0;
    case 'verify':
      return (await withDb((db) => verifyCommand(db, { slug: values.org, databaseUrl: loadConfig().databaseUrl }))) ? 0 : 1;
    case 'jobs':
      process.stdout.write(`${await withDb((db) => jobsCommand(db, { state: values.state, org: values.org, limit: values.limit }))}\n`);
      return 0;
    case 'vault rewrap': {
      const vault = loadConfig().vault;
      return withDb((db) => vaultRewrapCommand(db, vault, (line) => process.stdout.write(`${line}\n`)));
    }
    case 'blobs-gc': {
      const blobs = loadConfig().blobs;
      process.stdout.write(`${await withDb((db) => blobsGcCommand(db, blobs, { dryRun: values['dry-run'] === true }))}\n`);
      return 0;
    }
    case 'docs-reference':
      return (await import('./reference.js')).docsReferenceCommand(values.check === true);
    case 'pglite-template':
      return pgliteTemplateCommand(loadConfig().pgliteTemplateDir, (line) => process.stdout.write(`${line}\n`));
    case 'ai-settings': {
      const slug = need(values.org, 'org');
      process.stdout.write(`${await withDb((db) => aiSettingsCommand(db, slug, { budgetUsd: values['budget-usd'], storeBodies: values['store-bodies'] }))}\n`);
      return 0;
    }
    case 'books-settings': {
      const slug = need(values.org, 'org');
      const set = await withDb((db) => setBooksState(db, slug, need(values.state, 'state')));
      process.stdout.write(
        `Books settings of ${slug}: state ${set.state} (was ${set.previous}); Payday Super due dates skip its public holidays and the national ones.\n`,
      );
      return 0;
    }
    case 'mailbox-create': {
      const slug = need(values.org, 'org');
      const address = need(values.address, 'address');
      const opts = { address, members: values.member, displayName: values.name, policy: values.policy, undoSeconds: values['undo-seconds'] };
      process.stdout.write(`${await withDb((db) => mailboxCreateCommand(db, slug, opts))}\n`);
      return 0;
    }
    case 'mailbox-members': {
      const slug = need(values.org, 'org');
      const address = need(values.address, 'address');
      process.stdout.write(`${await withDb((db) => mailboxMembersCommand(db, slug, { address, members: values.member, remove: values.remove }))}\n`);
      return 0;
    }
    case 'mailbox-triage': {
      const slug = need(values.org, 'org');
      const address = need(values.address, 'address');
      if ((values.as === undefined) === !values.off)
        throw new UsageError('mailbox-triage: give --as <agent member id> to turn the background triage on, or --off');
      process.stdout.write(`${await withDb((db) => mailboxTriageCommand(db, slug, { address, as: values.off ? null : values.as! }))}\n`);
      return 0;
    }
    case 'mailbox-sync': {
      const slug = need(values.org, 'org');
      const opts = { address: need(values.address, 'address'), imap: need(values.imap, 'imap'), folder: values.folder, since: values.since };
      process.stdout.write(`${await mailboxSyncCommand(loadConfig(), slug, opts, (line) => process.stdout.write(`${line}\n`))}\n`);
      return 0;
    }
    case 'org create': {
      const slug = parseParams(Slug, need(values.slug, 'slug'), 'slug');
      const name = need(values.name, 'name');
      const created = await withDb((db) => systemCreateOrg(db, { slug, name }));
      process.stdout.write(`Created org ${created.slug} (${created.orgId}).\nAdmin API key (shown once): ${created.admin.apiKey}\n`);
      return 0;
    }
    case 'key mint': {
      const slug = need(values.org, 'org');
      const params = parseParams(
        MintKeyParams,
        {
          name: need(values.name, 'name'),
          tier: values.tier,
          scopes:
            values.scopes === undefined
              ? undefined
              : values.scopes
                  .split(',')
                  .map((s) => s.trim())
                  .filter(Boolean),
          principalKind: values.scopes !== undefined ? (values.human ? 'human' : 'agent') : undefined,
        },
        'options',
      );
      const minted = await withDb((db) => systemMintKey(db, slug, params));
      process.stdout.write(
        `Minted ${minted.keyId} for ${minted.principal.kind} ${minted.principal.id} in ${slug}\nscopes: ${minted.scopes.join(' ') || '(none)'}\nAPI key (shown once): ${minted.apiKey}\n`,
      );
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    if (err instanceof UsageError) process.stderr.write(`\n${HELP}\n`);
    process.exitCode = err instanceof UsageError ? 2 : 1;
  },
);
