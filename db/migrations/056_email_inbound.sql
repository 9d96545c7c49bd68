-- tables: email: email_blocked_senders, email_imap_syncs
-- Email inbound (docs/families/email.md: Receiving over SMTP, Spam, Rules, IMAP sync): the senders and domains a
-- mailbox's people blocked (their mail lands in Spam), where each IMAP import of a mailbox folder got to, and what
-- rules need from a message (its List-Id) and from a rule (who changed and who enabled it).

-- email.reportSpam {block}: later mail from the sender (its address) or the domain (and those under it) lands in Spam.
CREATE TABLE email_blocked_senders (
  org_id text NOT NULL REFERENCES orgs(org_id),
  mailbox_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('sender', 'domain')),
  -- A lower-cased address (sender) or domain.
  value text NOT NULL CHECK (value = lower(value) AND length(value) BETWEEN 1 AND 320),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, mailbox_id, kind, value),
  FOREIGN KEY (org_id, mailbox_id) REFERENCES email_mailboxes (org_id, mailbox_id)
);

-- npm run cli -- mailbox-sync: per mailbox, IMAP account and folder, the UIDVALIDITY seen and the highest UID
-- imported, so a second run fetches only what is new (and starts over, deduplicated, when UIDVALIDITY changes).
CREATE TABLE email_imap_syncs (
  org_id text NOT NULL REFERENCES orgs(org_id),
  mailbox_id text NOT NULL,
  -- user@host:port of the IMAP server, lower-cased (never the password).
  account text NOT NULL,
  folder text NOT NULL,
  uid_validity bigint NOT NULL,
  last_uid bigint NOT NULL DEFAULT 0,
  imported integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, mailbox_id, account, folder),
  FOREIGN KEY (org_id, mailbox_id) REFERENCES email_mailboxes (org_id, mailbox_id)
);

-- The List-Id a rule's listId condition compares (the id inside the angle brackets, lower-cased).
ALTER TABLE email_messages ADD COLUMN list_id text;

-- Who last changed a rule, and the person who enabled it (an agent's rule waits for one).
ALTER TABLE email_rules ADD COLUMN updated_by text;
ALTER TABLE email_rules ADD COLUMN enabled_by text;
ALTER TABLE email_rules ADD COLUMN enabled_at timestamptz;
