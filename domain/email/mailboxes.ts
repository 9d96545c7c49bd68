import { isSqlError, SQLSTATE, type Db, type Queryable } from '../../db/types.js';
import { appendEvent } from '../../ledger/append.js';
import { newId } from '../core/ids.js';
import { findOrgBySlug, getMembers } from '../people/index.js';
import type { MailboxRole } from './access.js';
import { createSystemFolders } from './folders.js';

/*
 * Mailboxes are the operator's (npm run cli -- mailbox-create / mailbox-members): an address on the org's domain
 * is infrastructure (MX records, the relay), not something a key creates. Each act is ledgered with the system
 * actor and counts only. Roles follow the principal: an agent's seat is always `agent`, a human is never one; a
 * mailbox keeps at least one human owner.
 */

export const ROLES: readonly MailboxRole[] = ['owner', 'reviewer', 'member', 'agent'];
const ADDRESS = /^[^@\s<>()",;]{1,64}@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

export interface Seat {
  principalId: string;
  role: MailboxRole;
}

export class OperatorError extends Error {}

/** `usr_…:owner` as given on the command line. */
export function parseSeat(text: string): Seat {
  const at = text.lastIndexOf(':');
  const principalId = text.slice(0, at).trim();
  const role = text.slice(at + 1).trim() as MailboxRole;
  if (at < 0 || !/^(usr|agt)_[A-Za-z0-9]+$/.test(principalId) || !ROLES.includes(role)) {
    throw new OperatorError(`--member ${JSON.stringify(text)}: give <member id>:<role>, e.g. usr_abc:owner; roles: ${ROLES.join(', ')}`);
  }
  return { principalId, role };
}

export function cleanAddress(address: string): string {
  const a = address.trim().toLowerCase();
  if (!ADDRESS.test(a)) throw new OperatorError(`--address ${JSON.stringify(address)}: must be an email address such as sales@example.com`);
  return a;
}

async function checkSeats(q: Queryable, orgId: string, seats: readonly Seat[]): Promise<void> {
  const members = new Map((await getMembers(q, orgId, [...new Set(seats.map((s) => s.principalId))])).map((m) => [m.id, m]));
  for (const s of seats) {
    const m = members.get(s.principalId);
    if (!m) throw new OperatorError(`--member ${s.principalId}: no member of this org has that id (see member.list)`);
    if (m.kind === 'agent' && s.role !== 'agent') throw new OperatorError(`--member ${s.principalId}: an agent's role is agent, not ${s.role}`);
    if (m.kind === 'human' && s.role === 'agent') throw new OperatorError(`--member ${s.principalId}: a human's role is owner, reviewer or member`);
  }
}

async function orgOf(q: Queryable, slug: string): Promise<string> {
  const org = await findOrgBySlug(q, slug);
  if (!org) throw new OperatorError(`org ${slug} not found`);
  return org.orgId;
}

async function seatsOf(q: Queryable, orgId: string, mailboxId: string): Promise<Seat[]> {
  return (
    await q.query<{ principal_id: string; role: MailboxRole }>(
      'SELECT principal_id, role FROM email_mailbox_members WHERE org_id = $1 AND mailbox_id = $2 ORDER BY principal_id',
      [orgId, mailboxId],
    )
  ).map((r) => ({ principalId: r.principal_id, role: r.role }));
}

export interface CreatedMailbox {
  orgId: string;
  mailboxId: string;
  address: string;
  members: Seat[];
}

/** A mailbox with its members and system folders, in the caller's transaction (the CLI's, a test's). */
export async function createMailbox(
  q: Queryable,
  orgId: string,
  p: { address: string; displayName?: string; policy?: string; undoSeconds?: number; members: readonly Seat[]; now?: Date },
): Promise<CreatedMailbox> {
  const address = cleanAddress(p.address);
  const policy = p.policy ?? 'review_external';
  if (!['review_all', 'review_external', 'review_new_contacts'].includes(policy)) {
    throw new OperatorError(`--policy ${JSON.stringify(policy)}: review_all, review_external or review_new_contacts`);
  }
  const undo = p.undoSeconds ?? 10;
  if (!Number.isInteger(undo) || undo < 0 || undo > 300) throw new OperatorError('--undo-seconds: a whole number from 0 to 300');
  if (!p.members.some((s) => s.role === 'owner')) throw new OperatorError('a mailbox needs an owner: add --member <usr_…>:owner');
  await checkSeats(q, orgId, p.members);
  const now = (p.now ?? new Date()).toISOString();
  const mailboxId = newId('mbx');
  try {
    await q.query(
      `INSERT INTO email_mailboxes (org_id, mailbox_id, address, display_name, policy, undo_seconds, created_by, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, '', $7, $7)`,
      [orgId, mailboxId, address, p.displayName ?? '', policy, undo, now],
    );
  } catch (err) {
    if (isSqlError(err, SQLSTATE.uniqueViolation)) throw new OperatorError(`the org already has a mailbox ${address}: change its members with mailbox-members`);
    throw err;
  }
  const seats = [...new Map(p.members.map((s) => [s.principalId, s])).values()];
  for (const s of seats) {
    await q.query(`INSERT INTO email_mailbox_members (org_id, mailbox_id, principal_id, role, added_by, added_at) VALUES ($1, $2, $3, $4, '', $5)`, [
      orgId,
      mailboxId,
      s.principalId,
      s.role,
      now,
    ]);
  }
  await createSystemFolders(q, orgId, mailboxId, '', now);
  await appendEvent(q, orgId, {
    family: 'email',
    kind: 'email.mailbox.create',
    entityId: mailboxId,
    actor: '',
    payload: { mailboxId, members: seats.length, policy, undoSeconds: undo, by: 'system' },
  });
  return { orgId, mailboxId, address, members: await seatsOf(q, orgId, mailboxId) };
}

/** Set members' roles (adding them) and remove others; a mailbox keeps an owner. */
export async function setMailboxMembers(
  q: Queryable,
  orgId: string,
  p: { address: string; set: readonly Seat[]; remove: readonly string[]; now?: Date },
): Promise<CreatedMailbox & { changed: boolean }> {
  const address = cleanAddress(p.address);
  const box = await mailboxNamed(q, orgId, address);
  if (p.set.length === 0 && p.remove.length === 0) throw new OperatorError('give --member <id>:<role> to add or change, and/or --remove <id>');
  await checkSeats(q, orgId, p.set);
  const before = await seatsOf(q, orgId, box.mailbox_id);
  if (box.triage_as !== null && p.remove.includes(box.triage_as)) {
    throw new OperatorError(`--remove ${box.triage_as}: the background triage runs as this agent; turn it off first with mailbox-triage --off`);
  }
  const now = (p.now ?? new Date()).toISOString();
  for (const s of p.set) {
    await q.query(
      `INSERT INTO email_mailbox_members (org_id, mailbox_id, principal_id, role, added_by, added_at) VALUES ($1, $2, $3, $4, '', $5)
       ON CONFLICT (org_id, mailbox_id, principal_id) DO UPDATE SET role = EXCLUDED.role`,
      [orgId, box.mailbox_id, s.principalId, s.role, now],
    );
  }
  if (p.remove.length > 0) {
    await q.query('DELETE FROM email_mailbox_members WHERE org_id = $1 AND mailbox_id = $2 AND principal_id = ANY($3::text[])', [
      orgId,
      box.mailbox_id,
      p.remove,
    ]);
  }
  const after = await seatsOf(q, orgId, box.mailbox_id);
  if (!after.some((s) => s.role === 'owner')) throw new OperatorError('a mailbox keeps at least one owner: add another owner first');
  const key = (seats: Seat[]) => seats.map((s) => `${s.principalId}:${s.role}`).join(',');
  const changed = key(before) !== key(after);
  await appendEvent(q, orgId, {
    family: 'email',
    kind: 'email.mailbox.set_members',
    entityId: box.mailbox_id,
    actor: '',
    payload: {
      mailboxId: box.mailbox_id,
      members: after.length,
      set: p.set.length,
      removed: p.remove.length,
      by: 'system',
      ...(changed ? {} : { noop: true }),
    },
  });
  return { orgId, mailboxId: box.mailbox_id, address, members: after, changed };
}

async function mailboxNamed(q: Queryable, orgId: string, address: string): Promise<{ mailbox_id: string; triage_as: string | null }> {
  const [box] = await q.query<{ mailbox_id: string; triage_as: string | null }>(
    'SELECT mailbox_id, triage_as FROM email_mailboxes WHERE org_id = $1 AND address = $2 FOR UPDATE',
    [orgId, address],
  );
  if (!box) throw new OperatorError(`no mailbox ${address} in this org: create it with mailbox-create`);
  return box;
}

/**
 * Turn the background triage on, as an agent seat of the mailbox (`as`), or off (null). On, the Inbox threads with
 * new mail are triaged a short while after mail arrives (ai/background.ts), read as that agent.
 */
export async function setMailboxTriage(
  q: Queryable,
  orgId: string,
  p: { address: string; as: string | null; now?: Date },
): Promise<{ mailboxId: string; address: string; triageAs: string | null; changed: boolean }> {
  const address = cleanAddress(p.address);
  const box = await mailboxNamed(q, orgId, address);
  if (p.as !== null) {
    const seat = (await seatsOf(q, orgId, box.mailbox_id)).find((s) => s.principalId === p.as);
    if (seat?.role !== 'agent') {
      throw new OperatorError(
        `--as ${p.as}: not an agent seat of ${address}; add the agent first (mailbox-members --member ${p.as}:agent), then turn the triage on as it`,
      );
    }
  }
  const changed = box.triage_as !== p.as;
  const now = (p.now ?? new Date()).toISOString();
  if (changed)
    await q.query('UPDATE email_mailboxes SET triage_as = $3, updated_at = $4 WHERE org_id = $1 AND mailbox_id = $2', [orgId, box.mailbox_id, p.as, now]);
  await appendEvent(q, orgId, {
    family: 'email',
    kind: 'email.mailbox.set_triage',
    entityId: box.mailbox_id,
    actor: '',
    payload: { mailboxId: box.mailbox_id, triageAs: p.as, by: 'system', ...(changed ? {} : { noop: true }) },
  });
  return { mailboxId: box.mailbox_id, address, triageAs: p.as, changed };
}

/** The operator's commands: by org slug, in one transaction each. */
export async function operatorCreateMailbox(db: Db, slug: string, p: Parameters<typeof createMailbox>[2]): Promise<CreatedMailbox> {
  return db.tx(async (q) => createMailbox(q, await orgOf(q, slug), p));
}

export async function operatorSetMembers(db: Db, slug: string, p: Parameters<typeof setMailboxMembers>[2]): Promise<CreatedMailbox & { changed: boolean }> {
  return db.tx(async (q) => setMailboxMembers(q, await orgOf(q, slug), p));
}

export async function operatorSetTriage(db: Db, slug: string, p: Parameters<typeof setMailboxTriage>[2]): ReturnType<typeof setMailboxTriage> {
  return db.tx(async (q) => setMailboxTriage(q, await orgOf(q, slug), p));
}

/** The mailboxes of the org at these addresses (lower-cased): what an inbound recipient resolves to, and who triages it. */
export async function mailboxesAt(
  q: Queryable,
  orgId: string,
  addresses: readonly string[],
): Promise<{ mailbox_id: string; address: string; triage_as: string | null }[]> {
  const list = [...new Set(addresses.map((a) => a.trim().toLowerCase()))];
  return q.query<{ mailbox_id: string; address: string; triage_as: string | null }>(
    'SELECT mailbox_id, address, triage_as FROM email_mailboxes WHERE org_id = $1 AND address = ANY($2::text[]) ORDER BY mailbox_id',
    [orgId, list],
  );
}
