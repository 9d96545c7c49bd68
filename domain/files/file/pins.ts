import type { z } from 'zod';
import { ApiError, badRequest, conflict, notFound } from '../../../protocol/errors.js';
import { MAX_PINS_PER_PLACE, type Pin } from '../../../protocol/methods/file.js';
import { one, type Queryable } from '../../../db/types.js';
import type { Principal } from '../../core/auth.js';
import { roleRank } from '../access.js';
import { newId } from '../../core/ids.js';
import { readableMemo, readTarget, type Target, type TargetType } from '../../refs.js';
import type { FamilySet } from '../../core/family.js';

/*
 * Pins (file.pin, files.pin): a readable record pinned to a place, at most 50 live per place. The org
 * home takes anyone's pins; a team or workstream place must be readable; a folder place needs role editor on the
 * folder. Pins at a place are serialised on an advisory lock of the place, so two pins cannot both take the 50th.
 */

export type PlaceType = 'org' | 'team' | 'workstream' | 'folder';

export interface PinRow {
  pin_id: string;
  place: string;
  place_type: PlaceType;
  target_id: string;
  target_type: TargetType;
  pinned_by: string;
  pinned_at: string | Date;
  removed_by: string | null;
  removed_at: string | Date | null;
}

const PIN_COLUMNS = 'pin_id, place, place_type, target_id, target_type, pinned_by, pinned_at, removed_by, removed_at';

export const toPin = (r: PinRow): z.infer<typeof Pin> => ({
  id: r.pin_id,
  place: r.place,
  placeType: r.place_type,
  targetId: r.target_id,
  targetType: r.target_type,
  pinnedBy: r.pinned_by,
  pinnedAt: new Date(r.pinned_at).toISOString(),
  removedBy: r.removed_by,
  removedAt: r.removed_at === null ? null : new Date(r.removed_at).toISOString(),
});

const PLACE_TYPES: Readonly<Record<string, PlaceType>> = { team: 'team', ws: 'workstream', fil: 'folder' };

/**
 * The place as the caller may use it: NOT_FOUND (or FORBIDDEN_SCOPE for the key's missing read scope) when it
 * cannot read it; a file that is not a folder is BAD_REQUEST; pinning into a folder (`write`) needs role editor.
 */
export async function checkPlace(
  families: FamilySet,
  q: Queryable,
  orgId: string,
  place: string,
  p: Principal,
  write: boolean,
  field = 'place',
): Promise<PlaceType> {
  if (place === 'org') return 'org';
  const type = PLACE_TYPES[place.slice(0, place.indexOf('_'))];
  const t = await readTarget(families, q, orgId, place, p, `place ${place}`);
  if (type === 'folder') {
    const f = t.file!;
    if (f.file.kind !== 'folder')
      throw badRequest(
        field,
        `${place} is ${f.file.kind === 'upload' ? 'an' : 'a'} ${f.file.kind}, not a folder: pin to a folder, a team, a workstream or org`,
      );
    if (write && roleRank(f.role) < roleRank('editor')) {
      throw new ApiError('FORBIDDEN_SCOPE', `missing role editor on ${place} (you are ${f.role}): ask a manager of it to share it with you as editor`);
    }
  }
  return type;
}

/** A target that may be pinned: a file in the trash is not. */
export function requirePinnable(t: Target): void {
  if (t.file?.file.status === 'trashed') throw conflict(`${t.id} is in the trash: recover it first (files.recover), then pin it`);
}

const lockPlace = (q: Queryable, orgId: string, place: string) =>
  q.query(`SELECT pg_advisory_xact_lock(hashtext('file-pins:' || $1 || ':' || $2))`, [orgId, place]);

export const livePins = async (q: Queryable, orgId: string, place: string): Promise<number> =>
  Number(
    one(await q.query<{ n: number }>('SELECT count(*)::int AS n FROM file_pins WHERE org_id = $1 AND place = $2 AND removed_at IS NULL', [orgId, place])).n,
  );

export interface PinWrite {
  pin: PinRow;
  changed: boolean;
  /** Live pins at the place after the call. */
  pins: number;
}

/** Pin a target (checked readable and pinnable) at a place (checked writable); pinned there already: unchanged. */
export async function pinAt(q: Queryable, orgId: string, target: Target, place: string, placeType: PlaceType, by: string, now: Date): Promise<PinWrite> {
  requirePinnable(target);
  await lockPlace(q, orgId, place);
  const [live] = await q.query<PinRow>(`SELECT ${PIN_COLUMNS} FROM file_pins WHERE org_id = $1 AND place = $2 AND target_id = $3 AND removed_at IS NULL`, [
    orgId,
    place,
    target.id,
  ]);
  const count = await livePins(q, orgId, place);
  if (live) return { pin: live, changed: false, pins: count };
  if (count >= MAX_PINS_PER_PLACE) {
    throw conflict(`${place} already has ${MAX_PINS_PER_PLACE} pins, the most a place holds: unpin one first (file.unpin)`);
  }
  const pin = one(
    await q.query<PinRow>(
      `INSERT INTO file_pins (org_id, pin_id, place, place_type, target_id, target_type, pinned_by, pinned_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${PIN_COLUMNS}`,
      [orgId, newId('pin'), place, placeType, target.id, target.type, by, now.toISOString()],
    ),
  );
  return { pin, changed: true, pins: count + 1 };
}

/** Unpin (the pin locked and checked by the caller); unpinned already: unchanged. */
export async function unpinRow(q: Queryable, orgId: string, pin: PinRow, by: string, now: Date): Promise<PinWrite> {
  await lockPlace(q, orgId, pin.place);
  if (pin.removed_at !== null) return { pin, changed: false, pins: await livePins(q, orgId, pin.place) };
  const removed = one(
    await q.query<PinRow>(`UPDATE file_pins SET removed_by = $3, removed_at = $4 WHERE org_id = $1 AND pin_id = $2 RETURNING ${PIN_COLUMNS}`, [
      orgId,
      pin.pin_id,
      by,
      now.toISOString(),
    ]),
  );
  return { pin: removed, changed: true, pins: await livePins(q, orgId, pin.place) };
}

/** A pin the caller may see (its target and place readable): NOT_FOUND otherwise. */
export async function pinFor(families: FamilySet, q: Queryable, orgId: string, pinId: string, p: Principal): Promise<PinRow> {
  const [pin] = await q.query<PinRow>(`SELECT ${PIN_COLUMNS} FROM file_pins WHERE org_id = $1 AND pin_id = $2 FOR UPDATE`, [orgId, pinId]);
  if (!pin) throw notFound(`pin ${pinId}`);
  await readTarget(families, q, orgId, pin.target_id, p, `pin ${pinId}`);
  return pin;
}

/** The target's latest pin at a place (live first), or undefined. */
export async function pinOf(q: Queryable, orgId: string, place: string, targetId: string): Promise<PinRow | undefined> {
  const [pin] = await q.query<PinRow>(
    `SELECT ${PIN_COLUMNS} FROM file_pins WHERE org_id = $1 AND place = $2 AND target_id = $3
      ORDER BY removed_at IS NULL DESC, pinned_at DESC, pin_id DESC LIMIT 1 FOR UPDATE`,
    [orgId, place, targetId],
  );
  return pin;
}

/** Live pins at a place, newest first, leaving out those whose target the caller cannot read. */
export async function pinsAt(families: FamilySet, q: Queryable, orgId: string, place: string, p: Principal): Promise<PinRow[]> {
  const rows = await q.query<PinRow>(
    `SELECT ${PIN_COLUMNS} FROM file_pins WHERE org_id = $1 AND place = $2 AND removed_at IS NULL ORDER BY pinned_at DESC, pin_id DESC`,
    [orgId, place],
  );
  const readable = readableMemo(families, q, orgId, p);
  const out: PinRow[] = [];
  for (const r of rows) if (await readable(r.target_id)) out.push(r);
  return out;
}
