-- tables: email: email_action_tasks
-- Email's AI and filing (docs/families/email.md, AI and filing). A thread remembers up to which message it was
-- triaged, so the background pass (email.triageNow) takes only threads with mail newer than their triage; an action
-- extracted from a message remembers the board task made of it, so asking for tasks again makes none twice.

-- The last_message_at of the thread when it was last triaged: untriaged is NULL or older than last_message_at.
ALTER TABLE email_threads ADD COLUMN triaged_at timestamptz;

-- A board task made by email.extractAction from one action of a message: the action is named by the SHA-256 of its
-- quote (the words of the message it rests on), never by the words themselves.
CREATE TABLE email_action_tasks (
  org_id text NOT NULL REFERENCES orgs(org_id),
  message_id text NOT NULL,
  quote_sha256 text NOT NULL CHECK (quote_sha256 ~ '^[0-9a-f]{64}$'),
  task_id text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, message_id, quote_sha256),
  FOREIGN KEY (org_id, message_id) REFERENCES email_messages (org_id, message_id)
);
