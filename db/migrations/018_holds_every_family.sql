-- Holds for every family (issue 15). A hold says how it completes and who may decide it; the approval bound to it
-- copies that, like the held call (migration 011).
--   completion 'retry':   the caller files approval.request, a human approves, the caller retries with the proof.
--   completion 'release': the server files the approval when it holds; a human's approve runs the held act in the
--                         decision's own transaction, with the params the human may amend (amendable).
--   deciders:             the humans (principal ids) entitled to decide; NULL: any human with approval.decide.
ALTER TABLE signature_holds
  ADD COLUMN completion text NOT NULL DEFAULT 'retry' CHECK (completion IN ('retry', 'release')),
  ADD COLUMN deciders text[],
  ADD COLUMN amendable text[];

-- requested_key: the key a release-mode act was held under; the release runs as that key's principal, so a revoked
-- key releases nothing. released_*: what the approve ran (the held params with the human's amendments, their hash,
-- and which fields the human changed), recorded once at the decision.
ALTER TABLE approvals
  ADD COLUMN completion text NOT NULL DEFAULT 'retry' CHECK (completion IN ('retry', 'release')),
  ADD COLUMN deciders text[],
  ADD COLUMN amendable text[],
  ADD COLUMN requested_key text,
  ADD COLUMN released_params jsonb,
  ADD COLUMN released_hash text,
  ADD COLUMN amended text[];

ALTER TABLE approvals ADD CONSTRAINT approvals_release_whole CHECK (
  (released_params IS NULL AND released_hash IS NULL AND amended IS NULL) OR
  (completion = 'release' AND status = 'approved' AND released_params IS NOT NULL AND released_hash IS NOT NULL AND amended IS NOT NULL));

-- What a human was shown never changes after filing (011), now with how it completes and who decides; what a
-- release ran is written once.
CREATE OR REPLACE FUNCTION approvals_shown_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (NEW.org_id, NEW.approval_id, NEW.action_class, NEW.payload_hash, NEW.subject_kind, NEW.subject_id, NEW.summary,
      NEW.requested_by, NEW.requested_at, NEW.held_method, NEW.held_params, NEW.held_at,
      NEW.completion, NEW.deciders, NEW.amendable, NEW.requested_key)
     IS DISTINCT FROM
     (OLD.org_id, OLD.approval_id, OLD.action_class, OLD.payload_hash, OLD.subject_kind, OLD.subject_id, OLD.summary,
      OLD.requested_by, OLD.requested_at, OLD.held_method, OLD.held_params, OLD.held_at,
      OLD.completion, OLD.deciders, OLD.amendable, OLD.requested_key) THEN
    RAISE EXCEPTION 'approval % keeps what its human was shown: its act, subject, summary and held call never change', OLD.approval_id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  IF OLD.released_params IS NOT NULL AND (NEW.released_params, NEW.released_hash, NEW.amended)
       IS DISTINCT FROM (OLD.released_params, OLD.released_hash, OLD.amended) THEN
    RAISE EXCEPTION 'approval % released its act once: what ran is never rewritten', OLD.approval_id
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END;
$$;
