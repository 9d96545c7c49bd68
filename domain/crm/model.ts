import type { z } from 'zod';
import { conflict, notFound } from '../../protocol/errors.js';
import { PIPELINE, type Account, type Contact, type Deal, type ForecastCategory, type Role, type Stage } from '../../protocol/methods/crm/index.js';
import type { Queryable } from '../../db/types.js';
import { partyCards } from '../directory/index.js';
import { daysSince, forecastOf, rotting, weighted } from './pipeline.js';

/* Accounts, contacts and deals as rows, and as the contract shows them (names and emails read from the directory). */

const iso = (v: string | Date): string => new Date(v).toISOString();
const day = (v: string | Date | null): string | null => (v === null ? null : typeof v === 'string' ? v.slice(0, 10) : v.toISOString().slice(0, 10));

export interface AccountRow {
  account_id: string;
  party_id: string;
  owner_id: string;
  status: 'active' | 'archived' | 'merged';
  merged_into: string | null;
  version: number;
  created_at: string | Date;
  updated_at: string | Date;
}
export const ACCOUNT_COLUMNS = 'account_id, party_id, owner_id, status, merged_into, version, created_at, updated_at';

export interface ContactRow {
  contact_id: string;
  person_id: string;
  account_id: string | null;
  title: string | null;
  status: 'active' | 'deleted' | 'merged';
  merged_into: string | null;
  version: number;
  created_at: string | Date;
  updated_at: string | Date;
}
export const CONTACT_COLUMNS = 'contact_id, person_id, account_id, title, status, merged_into, version, created_at, updated_at';

export interface DealRow {
  deal_id: string;
  name: string;
  account_id: string;
  owner_id: string;
  delegate_id: string | null;
  stage: Stage;
  status: 'open' | 'won' | 'lost' | 'deleted';
  amount_cents: string | number;
  currency: string;
  close_date: string;
  forecast_category: ForecastCategory | null;
  next_step: string | null;
  offer_terms_id: string | null;
  lost_reason: string | null;
  closed_on: string | null;
  close_date_pushes: number;
  stage_entered_at: string | Date;
  last_activity_at: string | Date;
  version: number;
  created_at: string | Date;
  updated_at: string | Date;
}
export const DEAL_COLUMNS = `deal_id, name, account_id, owner_id, delegate_id, stage, status, amount_cents, currency, close_date::text AS close_date,
  forecast_category, next_step, offer_terms_id, lost_reason, closed_on::text AS closed_on, close_date_pushes, stage_entered_at, last_activity_at, version,
  created_at, updated_at`;

type Out<T extends z.ZodType> = z.output<T>;

export async function toAccounts(q: Queryable, orgId: string, rows: readonly AccountRow[]): Promise<Out<typeof Account>[]> {
  const cards = await partyCards(
    q,
    orgId,
    rows.map((r) => r.party_id),
  );
  return rows.map((r) => ({
    id: r.account_id,
    partyId: r.party_id,
    name: cards.get(r.party_id)?.name ?? '',
    domain: cards.get(r.party_id)?.domain ?? null,
    ownerId: r.owner_id,
    status: r.status,
    mergedInto: r.merged_into,
    version: Number(r.version),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

/** Contacts with names and emails from the directory, and their deal roles (only `dealId`'s when given). */
export async function toContacts(q: Queryable, orgId: string, rows: readonly ContactRow[], dealId?: string): Promise<Out<typeof Contact>[]> {
  const cards = await partyCards(
    q,
    orgId,
    rows.map((r) => r.person_id),
  );
  const ids = rows.map((r) => r.contact_id);
  const roles = ids.length
    ? await q.query<{ contact_id: string; deal_id: string; role: Role }>(
        `SELECT contact_id, deal_id, role FROM crm_deal_contacts WHERE org_id = $1 AND contact_id = ANY($2::text[]) ${dealId ? 'AND deal_id = $3' : ''}
          ORDER BY deal_id, role`,
        dealId ? [orgId, ids, dealId] : [orgId, ids],
      )
    : [];
  return rows.map((r) => ({
    id: r.contact_id,
    personId: r.person_id,
    name: cards.get(r.person_id)?.name ?? '',
    email: cards.get(r.person_id)?.email ?? null,
    accountId: r.account_id,
    title: r.title,
    status: r.status,
    mergedInto: r.merged_into,
    roles: roles.filter((x) => x.contact_id === r.contact_id).map((x) => ({ dealId: x.deal_id, role: x.role })),
    version: Number(r.version),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  }));
}

export function toDeal(r: DealRow, now: Date): Out<typeof Deal> {
  const amount = Number(r.amount_cents);
  return {
    id: r.deal_id,
    name: r.name,
    accountId: r.account_id,
    ownerId: r.owner_id,
    delegateId: r.delegate_id,
    stage: r.stage,
    status: r.status,
    amountCents: amount,
    currency: r.currency,
    closeDate: day(r.close_date)!,
    probability: r.status === 'deleted' ? 0 : PIPELINE[r.stage].probability,
    weightedCents: r.status === 'open' || r.status === 'won' ? weighted(amount, r.stage) : 0,
    forecastCategory: forecastOf(r.stage, r.forecast_category),
    nextStep: r.next_step,
    offerTermsId: r.offer_terms_id,
    lostReason: r.lost_reason,
    closedOn: day(r.closed_on),
    closeDatePushes: Number(r.close_date_pushes),
    daysInStage: daysSince(r.stage_entered_at, now),
    rotting: rotting(r.status, r.stage, r.stage_entered_at, now),
    version: Number(r.version),
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
  };
}

export async function loadAccount(q: Queryable, orgId: string, accountId: string, lock = false): Promise<AccountRow> {
  const [row] = await q.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM crm_accounts WHERE org_id = $1 AND account_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [
    orgId,
    accountId,
  ]);
  if (!row) throw notFound(`account ${accountId}`);
  return row;
}

export async function loadContact(q: Queryable, orgId: string, contactId: string, lock = false): Promise<ContactRow> {
  const [row] = await q.query<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM crm_contacts WHERE org_id = $1 AND contact_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [
    orgId,
    contactId,
  ]);
  if (!row) throw notFound(`contact ${contactId}`);
  return row;
}

export async function loadDeal(q: Queryable, orgId: string, dealId: string, lock = false): Promise<DealRow> {
  const [row] = await q.query<DealRow>(`SELECT ${DEAL_COLUMNS} FROM crm_deals WHERE org_id = $1 AND deal_id = $2 ${lock ? 'FOR UPDATE' : ''}`, [orgId, dealId]);
  if (!row) throw notFound(`deal ${dealId}`);
  return row;
}

/** CONFLICT unless the caller read the current version. */
export function checkVersion(noun: string, id: string, version: number, expected: number | undefined, read: string): void {
  if (expected !== undefined && expected !== Number(version)) {
    throw conflict(
      `${noun} ${id} is at version ${Number(version)}, not ${expected}: read it again (${read}) and retry with expectedVersion ${Number(version)}`,
    );
  }
}

/** A live account to attach things to: NOT_FOUND, or CONFLICT for an archived or merged one naming the way forward. */
export async function liveAccount(q: Queryable, orgId: string, accountId: string, field: string, lock = false): Promise<AccountRow> {
  const row = await loadAccount(q, orgId, accountId, lock);
  if (row.status === 'merged') throw conflict(`${field}: account ${accountId} was merged into ${row.merged_into}; use ${row.merged_into}`);
  if (row.status === 'archived') throw conflict(`${field}: account ${accountId} is archived; restore it (crm.archiveAccount with archived: false) first`);
  return row;
}

/** A deal that can be written: deleted -> CONFLICT (design: any write to a deleted deal). */
export function requireNotDeleted(r: DealRow): void {
  if (r.status === 'deleted') throw conflict(`deal ${r.deal_id} is deleted; nothing can change it (create a new deal)`);
}
