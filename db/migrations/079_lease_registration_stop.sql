-- tables: runtime: lease_state
-- A lease claimed under a registration ends with it: a registration that reads stopped (it beat stopped, or stayed
-- critical for 72 hours, computed at read in agent_health) leaves its held leases lapsed, so another holder may
-- claim the name (with the next fencing token) and the old holder's renewal is refused. registration_stopped says
-- why a lease lapsed before its expiry. Both on the database's clock, like the rest of the view.
CREATE OR REPLACE VIEW lease_state AS
SELECT l.*,
       CASE WHEN l.status = 'held' AND (l.expires_at <= clock_timestamp() OR s.stopped) THEN 'lapsed' ELSE l.status END AS state,
       coalesce(s.stopped, false) AS registration_stopped
  FROM leases l
  LEFT JOIN LATERAL (
    SELECT h.status = 'stopped' AS stopped FROM agent_health h WHERE h.org_id = l.org_id AND h.registration_id = l.registration_id
  ) s ON l.registration_id IS NOT NULL AND l.status = 'held';
