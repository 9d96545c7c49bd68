import { canonicalJson } from '../../../protocol/hashing.js';
import { conflict } from '../../../protocol/errors.js';
import { PROFILE_FIELDS, settingsCompany as c } from '../../../protocol/methods/runtime/company.js';
import { one } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { newId } from '../../core/ids.js';
import { checkAbn, checkCountry, checkCurrency, checkPhone, checkZone } from './checks.js';
import {
  loadOffice,
  loadProfile,
  lockOffices,
  othersActive,
  OFFICE_COLUMNS,
  PROFILE_COLUMN,
  PROFILE_COLUMNS,
  toOffice,
  toProfile,
  type OfficeRow,
  type ProfileRow,
} from './model.js';

/*
 * settings.saveCompanyProfile, upsertOfficeLocation and deleteOfficeLocation. While any office is active exactly
 * one is the head office: the first active one becomes it, a new head office clears the old in the same call, and
 * the head office is archived only when it is the last. Events carry field names, ids and flags, never an address.
 */

type Field = (typeof PROFILE_FIELDS)[number];
const CHECKS: Partial<Record<Field, (field: string, value: string) => string>> = {
  abn: checkAbn,
  timeZone: checkZone,
  currency: checkCurrency,
  phone: checkPhone,
};

export const saveCompanyProfile = handler(c.saveCompanyProfile, async (ctx, p) => {
  const before = await loadProfile(ctx.q, ctx.orgId, true);
  const next: ProfileRow = { ...before };
  const fields: Field[] = [];
  for (const f of PROFILE_FIELDS) {
    const given = p[f];
    if (given === undefined) continue;
    const value = given === null ? null : (CHECKS[f]?.(f, given) ?? given);
    if (value !== before[PROFILE_COLUMN[f]]) fields.push(f);
    next[PROFILE_COLUMN[f]] = value;
  }
  if (fields.length === 0) {
    await ctx.emit('settings.profile.save', ctx.orgId, { fields: [], version: Number(before.version), changed: false, noop: true });
    return { profile: toProfile(before), fields, changed: false };
  }
  const values = PROFILE_FIELDS.map((f) => next[PROFILE_COLUMN[f]]);
  const row = one(
    await ctx.q.query<ProfileRow>(
      `INSERT INTO company_profiles (org_id, legal_name, trading_name, abn, time_zone, currency, phone, website, version, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 1, now())
       ON CONFLICT (org_id) DO UPDATE SET legal_name = $2, trading_name = $3, abn = $4, time_zone = $5, currency = $6, phone = $7, website = $8,
              version = company_profiles.version + 1, updated_at = now()
       RETURNING ${PROFILE_COLUMNS}`,
      [ctx.orgId, ...values],
    ),
  );
  await ctx.emit('settings.profile.save', ctx.orgId, { fields, version: Number(row.version), changed: true });
  return { profile: toProfile(row), fields, changed: true };
});

export const upsertOfficeLocation = handler(c.upsertOfficeLocation, async (ctx, p) => {
  checkZone('timeZone', p.timeZone);
  checkCountry('address.country', p.address.country);
  await lockOffices(ctx.q, ctx.orgId);
  const was = p.locationId ? await loadOffice(ctx.q, ctx.orgId, p.locationId) : undefined;
  const [head] = await ctx.q.query<{ location_id: string }>(
    `SELECT location_id FROM office_locations WHERE org_id = $1 AND is_head_office AND status = 'active'`,
    [ctx.orgId],
  );
  const isHead = p.isHeadOffice || !head || head.location_id === was?.location_id;
  if (was && head?.location_id === was.location_id && !p.isHeadOffice && was.status === 'active') {
    if (await othersActive(ctx.q, ctx.orgId, was.location_id))
      throw conflict(`office ${was.location_id} is the head office: make another office the head office (isHeadOffice: true) first`);
  }
  const address = canonicalJson(p.address);
  const restored = was?.status === 'archived';
  const same =
    was &&
    !restored &&
    was.name === p.name &&
    canonicalJson(toOffice(was).address) === address &&
    was.time_zone === p.timeZone &&
    was.is_head_office === isHead;
  const event = { locationId: was?.location_id ?? '', isHeadOffice: isHead, created: !was, restored, previousHeadOfficeId: null as string | null };
  if (was && same) {
    await ctx.emit('settings.location.upsert', was.location_id, { ...event, changed: false, noop: true });
    return { location: toOffice(was), previousHeadOfficeId: null, created: false, restored: false, changed: false };
  }
  const previousHeadOfficeId = isHead && head && head.location_id !== was?.location_id ? head.location_id : null;
  if (previousHeadOfficeId) {
    await ctx.q.query('UPDATE office_locations SET is_head_office = false, updated_at = now() WHERE org_id = $1 AND location_id = $2', [
      ctx.orgId,
      previousHeadOfficeId,
    ]);
  }
  const locationId = was?.location_id ?? newId('loc');
  const row = one(
    await ctx.q.query<OfficeRow>(
      `INSERT INTO office_locations (org_id, location_id, name, address, time_zone, is_head_office, status, updated_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, 'active', now())
       ON CONFLICT (org_id, location_id) DO UPDATE SET name = $3, address = $4::jsonb, time_zone = $5, is_head_office = $6, status = 'active', updated_at = now()
       RETURNING ${OFFICE_COLUMNS}`,
      [ctx.orgId, locationId, p.name, address, p.timeZone, isHead],
    ),
  );
  await ctx.emit('settings.location.upsert', locationId, { ...event, locationId, previousHeadOfficeId, changed: true });
  return { location: toOffice(row), previousHeadOfficeId, created: !was, restored, changed: true };
});

export const deleteOfficeLocation = handler(c.deleteOfficeLocation, async (ctx, p) => {
  await lockOffices(ctx.q, ctx.orgId);
  const was = await loadOffice(ctx.q, ctx.orgId, p.locationId);
  if (was.status === 'archived') {
    await ctx.emit('settings.location.delete', was.location_id, { locationId: was.location_id, wasHeadOffice: false, changed: false, noop: true });
    return { location: toOffice(was), changed: false };
  }
  if (was.is_head_office) {
    if (await othersActive(ctx.q, ctx.orgId, was.location_id))
      throw conflict(
        `office ${was.location_id} is the head office while other offices are active: make another the head office (settings.upsertOfficeLocation with isHeadOffice: true), then archive it`,
      );
  }
  const row = one(
    await ctx.q.query<OfficeRow>(
      `UPDATE office_locations SET status = 'archived', is_head_office = false, updated_at = now() WHERE org_id = $1 AND location_id = $2 RETURNING ${OFFICE_COLUMNS}`,
      [ctx.orgId, was.location_id],
    ),
  );
  await ctx.emit('settings.location.delete', was.location_id, { locationId: was.location_id, wasHeadOffice: was.is_head_office, changed: true });
  return { location: toOffice(row), changed: true };
});
