import type { Db } from '../db/types.js';
import { operatorCreateMailbox, operatorSetMembers, operatorSetTriage, parseSeat, type Seat } from '../domain/email/index.js';

/*
 * The operator's mailbox commands: a mailbox is an address on the org's domain (MX records, the relay), so it is
 * made here and not by an API key. Each prints what it did; errors name the flag to fix.
 */

const seats = (members: readonly string[] | undefined): Seat[] => (members ?? []).map(parseSeat);
const listed = (members: readonly Seat[]) => members.map((s) => `  ${s.principalId}  ${s.role}`).join('\n');

/** `mailbox-create --org <slug> --address <a@b> --member <id>:<role> … [--name <display name>] [--policy …] [--undo-seconds n]` */
export async function mailboxCreateCommand(
  db: Db,
  slug: string,
  opts: { address: string; members?: string[]; displayName?: string; policy?: string; undoSeconds?: string },
): Promise<string> {
  const undo = opts.undoSeconds === undefined ? undefined : Number(opts.undoSeconds);
  const made = await operatorCreateMailbox(db, slug, {
    address: opts.address,
    members: seats(opts.members),
    displayName: opts.displayName,
    policy: opts.policy,
    undoSeconds: undo,
  });
  return `Created mailbox ${made.address} (${made.mailboxId}) in ${slug}, with folders Inbox, Drafts, Sent, Archive, Spam and Trash.\nMembers:\n${listed(made.members)}`;
}

/** `mailbox-members --org <slug> --address <a@b> [--member <id>:<role> …] [--remove <id> …]` */
export async function mailboxMembersCommand(db: Db, slug: string, opts: { address: string; members?: string[]; remove?: string[] }): Promise<string> {
  const set = await operatorSetMembers(db, slug, { address: opts.address, set: seats(opts.members), remove: opts.remove ?? [] });
  return `${set.changed ? 'Changed' : 'No change to'} the members of ${set.address} (${set.mailboxId}) in ${slug}.\nMembers:\n${listed(set.members)}`;
}

/** `mailbox-triage --org <slug> --address <a@b> (--as <agt_…> | --off)` */
export async function mailboxTriageCommand(db: Db, slug: string, opts: { address: string; as: string | null }): Promise<string> {
  const set = await operatorSetTriage(db, slug, opts);
  const what =
    set.triageAs === null
      ? 'off: its threads are triaged only when someone calls email.triage or email.triageNow'
      : `on, as ${set.triageAs}: Inbox threads with new mail are triaged a short while after it arrives (never moved)`;
  return `${set.changed ? 'Set' : 'No change to'} the background triage of ${set.address} (${set.mailboxId}) in ${slug}: ${what}.`;
}
