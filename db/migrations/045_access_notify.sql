-- The kill switch reaches open streams at once (gateway/stream.ts, gateway/inbox): whatever path cuts a key's
-- access (a key revoked or its scopes changed, a member suspended, deactivated, offboarded or archived, SCIM
-- active:false, an org deleted, inbox sessions ended), the change itself sends `access.changed` on the notifier's
-- channel (db/notifier.ts: {"t": topic, "p": payload}, ids only) when its transaction commits. Every process
-- listens, and re-checks the keys of the streams the message names (org, and principal or key when given): a stream
-- whose key no longer authenticates ends within the notification's delivery instead of at the next heartbeat.
-- A trigger rather than each write path: a path added later (or a manual UPDATE) cannot forget it. Such changes
-- are rare, so the commit-time cost of a notifying transaction does not matter here.

CREATE FUNCTION notify_access_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  principal text := NULL;
  key text := NULL;
  session text := NULL;
BEGIN
  IF TG_TABLE_NAME = 'principals' THEN
    principal := NEW.principal_id;
  ELSIF TG_TABLE_NAME = 'api_keys' THEN
    principal := NEW.principal_id;
    key := NEW.key_id;
  ELSIF TG_TABLE_NAME = 'inbox_sessions' THEN
    principal := OLD.principal_id;
    session := OLD.session_id;
    PERFORM pg_notify('wops_notify', json_build_object('t', 'access.changed',
      'p', json_build_object('orgId', OLD.org_id, 'principalId', principal, 'keyId', key, 'sessionId', session))::text);
    RETURN OLD;
  END IF;
  PERFORM pg_notify('wops_notify', json_build_object('t', 'access.changed',
    'p', json_build_object('orgId', NEW.org_id, 'principalId', principal, 'keyId', key, 'sessionId', session))::text);
  RETURN NEW;
END $$;

CREATE TRIGGER principals_access_changed AFTER UPDATE OF status ON principals
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION notify_access_changed();

CREATE TRIGGER api_keys_access_changed AFTER UPDATE OF revoked_at, scopes, tier ON api_keys
  FOR EACH ROW WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at OR OLD.scopes IS DISTINCT FROM NEW.scopes OR OLD.tier IS DISTINCT FROM NEW.tier)
  EXECUTE FUNCTION notify_access_changed();

CREATE TRIGGER orgs_access_changed AFTER UPDATE OF deleted_at ON orgs
  FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at) EXECUTE FUNCTION notify_access_changed();

CREATE TRIGGER inbox_sessions_access_changed AFTER DELETE ON inbox_sessions
  FOR EACH ROW EXECUTE FUNCTION notify_access_changed();
