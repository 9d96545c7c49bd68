-- tables: email: email_reviews
-- Email sending and review (docs/families/email.md, Sending and review; decision 0061). An agent's message the gate
-- holds waits for a human in an approvals row (subject kind email.outbound) that the email family files and decides
-- itself; email_reviews is the family's own record of it (reasons, the content's hash, what the sender asked for),
-- kept in step with the approval in the same transaction. Addresses, subjects and bodies stay in email_messages and
-- in the approval's held call, never in the ledger.

-- The author withdrew a held message (email.undoSend) before anyone decided it.
ALTER TABLE approvals DROP CONSTRAINT approvals_status_check;
ALTER TABLE approvals ADD CONSTRAINT approvals_status_check CHECK (status IN ('pending', 'approved', 'rejected', 'withdrawn'));

-- A redirect (email.redirect) is a row of its own in the sender's mailbox: the original (redirect_of) goes out
-- unchanged to resent_to, with Resent-* fields; its rfc_message_id is the Resent-Message-ID.
ALTER TABLE email_messages
  ADD COLUMN redirect_of text,
  ADD COLUMN resent_to jsonb NOT NULL DEFAULT '[]';

-- What a submission carries beyond 054: how many recipients are outside the org's domains (the hourly cap counts
-- them) or mailboxes of the org (delivered directly, once: internal_done), and when delivery finished.
ALTER TABLE email_submissions
  ADD COLUMN external_count integer NOT NULL DEFAULT 0,
  ADD COLUMN internal_count integer NOT NULL DEFAULT 0,
  ADD COLUMN internal_done boolean NOT NULL DEFAULT false,
  ADD COLUMN delivered_at timestamptz;
-- The duplicate guard (the same content to the same recipients within 10 minutes) and the hourly cap of an agent.
CREATE INDEX email_submissions_content ON email_submissions (org_id, params_hash, created_at DESC);
CREATE INDEX email_submissions_author ON email_submissions (org_id, created_by, created_at DESC);

CREATE TABLE email_reviews (
  org_id text NOT NULL REFERENCES orgs(org_id),
  -- The approvals row this review is (one id for both).
  approval_id text NOT NULL,
  message_id text NOT NULL,
  mailbox_id text NOT NULL,
  thread_id text NOT NULL,
  -- send (send, draftSend, a send pulled back by holdReplies) or redirect.
  kind text NOT NULL CHECK (kind IN ('send', 'redirect')),
  requested_by text NOT NULL,
  -- pending until a human approves (approved), returns it (returned), the author withdraws it (withdrawn) or it expires.
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'returned', 'withdrawn', 'expired')),
  -- Why the gate held it: [{code, text}].
  reasons jsonb NOT NULL,
  -- SHA-256 of the held content as the approval binds it (its payload hash), and of what was released when amended.
  payload_hash text NOT NULL,
  released_hash text,
  amended text[] NOT NULL DEFAULT '{}',
  -- The same content to the same recipients (the duplicate guard's key, independent of the message id).
  content_key text NOT NULL,
  -- What the sender asked for: a later send time, an undo window of its own.
  send_at timestamptz,
  undo_seconds integer,
  note text,
  decided_by text,
  decided_at timestamptz,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, approval_id),
  FOREIGN KEY (org_id, message_id) REFERENCES email_messages (org_id, message_id),
  FOREIGN KEY (org_id, mailbox_id) REFERENCES email_mailboxes (org_id, mailbox_id)
);
CREATE INDEX email_reviews_mailbox ON email_reviews (org_id, mailbox_id, created_at DESC, approval_id);
CREATE INDEX email_reviews_message ON email_reviews (org_id, message_id, created_at DESC);
CREATE INDEX email_reviews_pending ON email_reviews (org_id, mailbox_id, content_key) WHERE status = 'pending';
