-- The signature law's binding (issue 13). An approval is a proof only when approval.request found the held act the
-- server recorded and copied it here: the held method and params (what the inbox shows behind the payload hash) and
-- which hold it was (held_at, with org_id and payload_hash). The server sets these, never the requester; NULL means
-- the approval is bound to no hold and can never release an act.
ALTER TABLE approvals
  ADD COLUMN held_method text,
  ADD COLUMN held_params jsonb,
  ADD COLUMN held_at timestamptz;

ALTER TABLE approvals ADD CONSTRAINT approvals_binding_whole CHECK (
  (held_method IS NULL AND held_params IS NULL AND held_at IS NULL) OR
  (held_method IS NOT NULL AND held_params IS NOT NULL AND held_at IS NOT NULL));

-- Approvals filed before the binding existed are bound only where they are exactly what a hold recorded: its class,
-- subject, the canonical kind and the server's own summary. Any other one (filed under another kind, or carrying the
-- requester's words) stays unbound and can never prove an act.
UPDATE approvals a SET held_method = h.method, held_params = h.params, held_at = h.held_at
  FROM signature_holds h
 WHERE h.org_id = a.org_id AND h.payload_hash = a.payload_hash AND h.action_class = a.action_class
   AND h.subject_id = a.subject_id AND a.subject_kind = 'books.signature' AND a.summary = h.summary;

-- What a human was shown never changes after filing: a decision, its use and its expiry may be recorded, nothing else.
CREATE FUNCTION approvals_shown_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.org_id, NEW.approval_id, NEW.action_class, NEW.payload_hash, NEW.subject_kind, NEW.subject_id, NEW.summary,
      NEW.requested_by, NEW.requested_at, NEW.held_method, NEW.held_params, NEW.held_at)
     IS DISTINCT FROM
     (OLD.org_id, OLD.approval_id, OLD.action_class, OLD.payload_hash, OLD.subject_kind, OLD.subject_id, OLD.summary,
      OLD.requested_by, OLD.requested_at, OLD.held_method, OLD.held_params, OLD.held_at) THEN
    RAISE EXCEPTION 'approval % keeps what its human was shown: its act, subject, summary and held call never change', OLD.approval_id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$;
CREATE TRIGGER approvals_shown_immutable BEFORE UPDATE ON approvals
  FOR EACH ROW EXECUTE FUNCTION approvals_shown_immutable();
