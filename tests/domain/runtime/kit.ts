import { castServer, person, type Cast, type Person } from '../../helpers/people.js';
import { otherOrg } from '../../helpers/calls.js';
import type { TestClient } from '../../helpers/harness.js';
import type { RuntimeOptions } from '../../../domain/deployed.js';

/*
 * The runtime families' org: the usual cast, a second agent, another org, and the words their tests share. Beats
 * are rate limited on the database's clock, so a test that beats twice moves the last beat back (`ago`) rather than
 * waiting: the same rows the clock would have aged.
 */

export interface RtOrg extends Cast {
  agent2: Person;
  other: TestClient;
}

export async function rtOrg(opts: Partial<RuntimeOptions> = {}): Promise<RtOrg> {
  const cast = await castServer(opts);
  return { ...cast, agent2: await person(cast.s, 'Agent B', { tier: 'agent' }), other: await otherOrg(cast.s) };
}

/** Move a registration's last beat (and critical time) `seconds` into the past. */
export async function registrationAgo(o: RtOrg, registrationId: string, seconds: number): Promise<void> {
  await o.s.runtime.db.query(
    `UPDATE agent_registrations SET last_beat_at = last_beat_at - make_interval(secs => $3), critical_since = critical_since - make_interval(secs => $3)
      WHERE org_id = $1 AND registration_id = $2`,
    [o.s.org.orgId, registrationId, seconds],
  );
}

/** Move a principal's last presence beat (and its expiry) `seconds` into the past. */
export async function presenceAgo(o: RtOrg, principalId: string, seconds: number): Promise<void> {
  await o.s.runtime.db.query(
    `UPDATE presence_beats SET beat_at = beat_at - make_interval(secs => $3), expires_at = expires_at - make_interval(secs => $3)
      WHERE org_id = $1 AND principal_id = $2`,
    [o.s.org.orgId, principalId, seconds],
  );
}
