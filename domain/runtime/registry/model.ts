import type { z } from 'zod';
import { notFound } from '../../../protocol/errors.js';
import type { HEALTH, Registration } from '../../../protocol/methods/runtime/registry.js';
import type { Queryable } from '../../../db/types.js';

/* Registrations as rows of agent_health: the table with its health computed on the database's clock (070_runtime.sql). */

export type Health = (typeof HEALTH)[number];

export interface HealthRow {
  registration_id: string;
  principal_id: string;
  instance: string;
  name: string;
  version: string;
  capabilities: string[];
  ttl_seconds: number;
  reported_status: Health;
  status: Health;
  lapsed: boolean;
  note: string | null;
  last_beat_at: string | Date;
  expires_at: string | Date;
  critical_from: string | Date | null;
  registered_at: string | Date;
  since_beat_seconds: number;
}

export const HEALTH_COLUMNS = `registration_id, principal_id, instance, name, version, capabilities, ttl_seconds, reported_status, status, lapsed, note,
  last_beat_at, expires_at, critical_from, registered_at, since_beat_seconds`;

const iso = (t: string | Date) => new Date(t).toISOString();

export const toRegistration = (r: HealthRow): z.output<typeof Registration> => ({
  id: r.registration_id,
  principalId: r.principal_id,
  instance: r.instance,
  name: r.name,
  version: r.version,
  capabilities: r.capabilities,
  ttlSeconds: Number(r.ttl_seconds),
  status: r.status,
  reportedStatus: r.reported_status,
  lapsed: r.lapsed,
  lastBeatAt: iso(r.last_beat_at),
  expiresAt: iso(r.expires_at),
  criticalSince: r.status === 'critical' && r.critical_from ? iso(r.critical_from) : null,
  note: r.note,
  registeredAt: iso(r.registered_at),
});

/** A registration of the org with its health now; `lock` takes its row first (the health is read after the lock). */
export async function loadRegistration(q: Queryable, orgId: string, registrationId: string, lock = false): Promise<HealthRow> {
  if (lock) await q.query('SELECT 1 FROM agent_registrations WHERE org_id = $1 AND registration_id = $2 FOR UPDATE', [orgId, registrationId]);
  const [row] = await q.query<HealthRow>(`SELECT ${HEALTH_COLUMNS} FROM agent_health WHERE org_id = $1 AND registration_id = $2`, [orgId, registrationId]);
  if (!row) throw notFound(`registration ${registrationId}`);
  return row;
}
