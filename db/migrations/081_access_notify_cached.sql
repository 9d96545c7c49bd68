-- A key's principal is cached for reads (domain/core/key-cache.ts, decision 0081), so what a cached principal
-- holds besides its access (migration 045) announces its changes too: an org's decision rights (the governance
-- gate) and a member's name and kind. The same `access.changed` message, at commit, to every process, which drops
-- the entries it names (the org's keys, or the member's). Such changes are rare.

CREATE TRIGGER orgs_decision_rights_changed AFTER UPDATE OF decision_rights, slug ON orgs
  FOR EACH ROW WHEN (OLD.decision_rights IS DISTINCT FROM NEW.decision_rights OR OLD.slug IS DISTINCT FROM NEW.slug)
  EXECUTE FUNCTION notify_access_changed();

CREATE TRIGGER principals_identity_changed AFTER UPDATE OF name, kind ON principals
  FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.kind IS DISTINCT FROM NEW.kind)
  EXECUTE FUNCTION notify_access_changed();
