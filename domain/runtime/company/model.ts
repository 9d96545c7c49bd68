import type { z } from 'zod';
import { notFound } from '../../../protocol/errors.js';
import type { Address, CompanyProfile, OfficeLocation } from '../../../protocol/methods/runtime/company.js';
import type { Queryable } from '../../../db/types.js';

/* The company profile (one row per org, absent until first saved) and its offices as rows. */

export interface ProfileRow {
  legal_name: string | null;
  trading_name: string | null;
  abn: string | null;
  time_zone: string | null;
  currency: string | null;
  phone: string | null;
  website: string | null;
  version: number;
  updated_at: string | Date | null;
}

export interface OfficeRow {
  location_id: string;
  name: string;
  address: z.output<typeof Address> | string;
  time_zone: string;
  is_head_office: boolean;
  status: 'active' | 'archived';
  updated_at: string | Date;
}

export const PROFILE_COLUMNS = 'legal_name, trading_name, abn, time_zone, currency, phone, website, version, updated_at';
export const OFFICE_COLUMNS = 'location_id, name, address, time_zone, is_head_office, status, updated_at';

/** Profile fields by their column. */
export const PROFILE_COLUMN = {
  legalName: 'legal_name',
  tradingName: 'trading_name',
  abn: 'abn',
  timeZone: 'time_zone',
  currency: 'currency',
  phone: 'phone',
  website: 'website',
} as const;

const EMPTY: ProfileRow = {
  legal_name: null,
  trading_name: null,
  abn: null,
  time_zone: null,
  currency: null,
  phone: null,
  website: null,
  version: 0,
  updated_at: null,
};

export async function loadProfile(q: Queryable, orgId: string, lock = false): Promise<ProfileRow> {
  const [row] = await q.query<ProfileRow>(`SELECT ${PROFILE_COLUMNS} FROM company_profiles WHERE org_id = $1 ${lock ? 'FOR UPDATE' : ''}`, [orgId]);
  return row ?? EMPTY;
}

export const toProfile = (r: ProfileRow): z.output<typeof CompanyProfile> => ({
  legalName: r.legal_name,
  tradingName: r.trading_name,
  abn: r.abn,
  timeZone: r.time_zone,
  currency: r.currency,
  phone: r.phone,
  website: r.website,
  version: Number(r.version),
  updatedAt: r.updated_at ? new Date(r.updated_at).toISOString() : null,
});

export const toOffice = (r: OfficeRow): z.output<typeof OfficeLocation> => ({
  id: r.location_id,
  name: r.name,
  address: typeof r.address === 'string' ? (JSON.parse(r.address) as z.output<typeof Address>) : r.address,
  timeZone: r.time_zone,
  isHeadOffice: r.is_head_office,
  status: r.status,
  updatedAt: new Date(r.updated_at).toISOString(),
});

export async function loadOffice(q: Queryable, orgId: string, locationId: string): Promise<OfficeRow> {
  const [row] = await q.query<OfficeRow>(`SELECT ${OFFICE_COLUMNS} FROM office_locations WHERE org_id = $1 AND location_id = $2`, [orgId, locationId]);
  if (!row) throw notFound(`office ${locationId}`);
  return row;
}

/** Offices change one at a time per org: head office moves and the last-office rule read the others. */
export const lockOffices = (q: Queryable, orgId: string) => q.query(`SELECT pg_advisory_xact_lock(hashtext('offices:' || $1))`, [orgId]);

/** Whether an active office other than this one exists. */
export async function othersActive(q: Queryable, orgId: string, locationId: string): Promise<boolean> {
  const rows = await q.query(`SELECT 1 FROM office_locations WHERE org_id = $1 AND status = 'active' AND location_id <> $2 LIMIT 1`, [orgId, locationId]);
  return rows.length > 0;
}
