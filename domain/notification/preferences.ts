import { ApiError, badRequest } from '../../protocol/errors.js';
import { NOTIFICATION_TYPES, notification as c, type Mode, type NotificationType } from '../../protocol/methods/notification.js';
import type { Queryable } from '../../db/types.js';
import type { Principal } from '../core/auth.js';
import { handler } from '../core/handler.js';
import { getMember, laneSignature } from '../people/index.js';

/*
 * Preferences are a sparse overlay: built-in defaults, then the org's (target 'org'), then the member's own.
 * A row stores only what its target set, so a later change of the org's defaults reaches everyone who did not
 * choose otherwise.
 */

export interface Digest {
  frequency: 'daily' | 'weekly';
  hour: number;
  weekday?: 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
}
export interface QuietHours {
  start: string;
  end: string;
  timezone: string;
}
export interface Preferences {
  events: Record<NotificationType, Mode>;
  digest: Digest;
  quietHours: QuietHours | null;
}
interface Own {
  events: Partial<Record<NotificationType, Mode>>;
  digest: Digest | null;
  quietHours: QuietHours | null;
}

/** Without any setting: what needs the member now comes at once, news about others comes in the daily digest. */
export const DEFAULT_PREFERENCES: Preferences = {
  events: {
    'task.assigned': 'instant',
    mention: 'instant',
    'approval.requested': 'instant',
    'approval.decided': 'instant',
    'hold.waiting': 'instant',
    'member.joined': 'digest',
    'reports.changed': 'digest',
    security: 'instant',
  },
  digest: { frequency: 'daily', hour: 9 },
  quietHours: null,
};

interface PrefRow {
  target: string;
  events: Own['events'] | string;
  digest: Digest | string | null;
  quiet_hours: QuietHours | string | null;
  version: number;
}

const json = <T>(v: T | string): T => (typeof v === 'string' ? (JSON.parse(v) as T) : v);
const ownOf = (r: PrefRow | undefined): Own => ({
  events: r ? json(r.events) : {},
  digest: r?.digest ? json(r.digest) : null,
  quietHours: r?.quiet_hours ? json(r.quiet_hours) : null,
});

/** Defaults, overlaid by each layer in turn (org first, then the member). */
export function overlay(...layers: Own[]): Preferences {
  const out: Preferences = { events: { ...DEFAULT_PREFERENCES.events }, digest: DEFAULT_PREFERENCES.digest, quietHours: DEFAULT_PREFERENCES.quietHours };
  for (const l of layers) {
    for (const t of NOTIFICATION_TYPES) if (l.events[t]) out.events[t] = l.events[t]!;
    if (l.digest) out.digest = l.digest;
    if (l.quietHours) out.quietHours = l.quietHours;
  }
  // Security notices are never off, whatever a stored row says.
  if (out.events.security === 'off') out.events.security = 'instant';
  return out;
}

async function readRows(q: Queryable, orgId: string, targets: readonly string[], lock = ''): Promise<Map<string, PrefRow>> {
  const rows = await q.query<PrefRow>(
    `SELECT target, events, digest, quiet_hours, version FROM notification_preferences WHERE org_id = $1 AND target = ANY($2::text[]) ${lock}`,
    [orgId, targets],
  );
  return new Map(rows.map((r) => [r.target, r]));
}

/** The effective preferences of several members at once (the notifier). */
export async function effectivePreferences(q: Queryable, orgId: string, memberIds: readonly string[]): Promise<Map<string, Preferences>> {
  const rows = await readRows(q, orgId, ['org', ...memberIds]);
  const org = ownOf(rows.get('org'));
  return new Map(memberIds.map((id) => [id, overlay(org, ownOf(rows.get(id)))]));
}

/** Your own preferences; the org's defaults may be read by anyone and set by an admin; another member's need admin. */
async function resolveTarget(q: Queryable, principal: Principal, method: string, orgId: string, target: string | undefined, writing: boolean): Promise<string> {
  const t = target ?? principal.id;
  if (t === 'org') {
    if (writing && !principal.scopes.has('admin'))
      throw new ApiError('FORBIDDEN_SCOPE', `missing scope admin for ${method}: the org's defaults are set by an admin`);
    return t;
  }
  await getMember(q, orgId, t);
  if (t !== principal.id && !principal.scopes.has('admin'))
    throw new ApiError('FORBIDDEN_SCOPE', `missing scope admin for ${method}: ${t} is another member's preferences`);
  return t;
}

export const getPreferences = handler(c.getPreferences, async (ctx, p) => {
  const target = await resolveTarget(ctx.q, ctx.principal, 'notification.getPreferences', ctx.orgId, p.target, false);
  const rows = await readRows(ctx.q, ctx.orgId, target === 'org' ? ['org'] : ['org', target]);
  const own = ownOf(rows.get(target));
  const preferences = target === 'org' ? overlay(own) : overlay(ownOf(rows.get('org')), own);
  return { target, preferences, own, version: Number(rows.get(target)?.version ?? 0) };
});

export const updatePreferences = handler(c.updatePreferences, async (ctx, p) => {
  const target = await resolveTarget(ctx.q, ctx.principal, 'notification.updatePreferences', ctx.orgId, p.target, true);
  if (p.events?.security === 'off') throw badRequest('events.security', 'security notices cannot be turned off (instant or digest)');
  await ctx.q.query(`INSERT INTO notification_preferences (org_id, target, version) VALUES ($1, $2, 0) ON CONFLICT DO NOTHING`, [ctx.orgId, target]);
  const rows = await readRows(ctx.q, ctx.orgId, target === 'org' ? ['org'] : ['org', target], 'FOR UPDATE');
  const before = ownOf(rows.get(target));
  const after: Own = { events: { ...before.events }, digest: before.digest, quietHours: before.quietHours };
  const fields: string[] = [];
  for (const t of NOTIFICATION_TYPES) {
    const v = p.events?.[t];
    if (v === undefined || (v ?? undefined) === before.events[t]) continue;
    if (v === null) delete after.events[t];
    else after.events[t] = v;
    fields.push(`events.${t}`);
  }
  const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
  if (p.digest !== undefined && !same(p.digest, before.digest)) {
    after.digest = p.digest;
    fields.push('digest');
  }
  if (p.quietHours !== undefined && !same(p.quietHours, before.quietHours)) {
    after.quietHours = p.quietHours;
    fields.push('quietHours');
  }
  const version = Number(rows.get(target)?.version ?? 0);
  const effective = (own: Own) => (target === 'org' ? overlay(own) : overlay(ownOf(rows.get('org')), own));
  if (fields.length === 0) {
    await ctx.emit('notification.preferences.update', target, { target, fields: [], version, noop: true });
    return { target, preferences: effective(before), changed: false };
  }
  // The agent lane (domain/people/member/lane.ts): what a human is told (or every human, the org's defaults) is a human's to change.
  const member = target === 'org' ? null : await getMember(ctx.q, ctx.orgId, target);
  await laneSignature(ctx, member === null || member.kind === 'human', {
    subjectId: target,
    summary: `Change ${fields.join(', ')} in the notification preferences of ${member ? `${member.name} (${target}), a human` : "the org (every member's defaults)"}`,
    params: p,
    completion: 'release',
  });
  await ctx.q.query(
    `UPDATE notification_preferences SET events = $3::jsonb, digest = $4::jsonb, quiet_hours = $5::jsonb, version = version + 1, updated_at = now()
      WHERE org_id = $1 AND target = $2`,
    [ctx.orgId, target, JSON.stringify(after.events), after.digest && JSON.stringify(after.digest), after.quietHours && JSON.stringify(after.quietHours)],
  );
  await ctx.emit('notification.preferences.update', target, { target, fields, version: version + 1 });
  return { target, preferences: effective(after), changed: true };
});
