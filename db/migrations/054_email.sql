-- tables: email: email_mailboxes, email_mailbox_members, email_folders, email_threads, email_thread_folders
-- tables: email: email_messages, email_message_reads, email_reactions, email_attachments, email_submissions
-- tables: email: email_rules, email_signatures, email_decisions
-- Email (docs/families/email.md): shared mailboxes on the org's domains, their folders, threads and messages.
-- Addresses, subjects, bodies, folder names and decision texts live only in these rows, never in the ledger. A
-- message's raw bytes and its attachments are blobs of the org (blobs/), held by the message row: one inbound
-- message to N mailboxes is N message rows over one blob. Read state and reactions are per principal.

CREATE TABLE email_mailboxes (
  org_id text NOT NULL REFERENCES orgs(org_id),
  mailbox_id text NOT NULL,
  -- Lower-cased; one mailbox per address in an org. Not unique across orgs by key (the instance's inbound
  -- listener looks an address up through email_mailboxes_address and refuses an address two orgs claim).
  address text NOT NULL CHECK (address = lower(address) AND address ~ '^[^@\s]+@[^@\s]+$'),
  display_name text NOT NULL DEFAULT '',
  -- Which agent mail waits for a human before it leaves (docs/families/email.md, the gate).
  policy text NOT NULL DEFAULT 'review_external' CHECK (policy IN ('review_all', 'review_external', 'review_new_contacts')),
  undo_seconds integer NOT NULL DEFAULT 10 CHECK (undo_seconds BETWEEN 0 AND 300),
  -- holdReplies on the whole mailbox: agent mail is held until lifted (or until hold_until).
  hold boolean NOT NULL DEFAULT false,
  hold_until timestamptz,
  hold_by text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, mailbox_id)
);
CREATE UNIQUE INDEX email_mailboxes_org_address ON email_mailboxes (org_id, address);
CREATE INDEX email_mailboxes_address ON email_mailboxes (address);

CREATE TABLE email_mailbox_members (
  org_id text NOT NULL REFERENCES orgs(org_id),
  mailbox_id text NOT NULL,
  principal_id text NOT NULL,
  -- owner: everything; reviewer: a human who approves agent mail; member: reads, drafts, files; agent: an agent's seat.
  role text NOT NULL CHECK (role IN ('owner', 'reviewer', 'member', 'agent')),
  added_by text NOT NULL,
  added_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, mailbox_id, principal_id),
  FOREIGN KEY (org_id, mailbox_id) REFERENCES email_mailboxes (org_id, mailbox_id)
);
-- Every read starts from the caller's mailboxes.
CREATE INDEX email_mailbox_members_principal ON email_mailbox_members (org_id, principal_id, mailbox_id);

CREATE TABLE email_folders (
  org_id text NOT NULL REFERENCES orgs(org_id),
  folder_id text NOT NULL,
  mailbox_id text NOT NULL,
  -- Segments joined by '/', e.g. Clients/Acme. System folders are named after their role.
  path text NOT NULL CHECK (length(path) BETWEEN 1 AND 200),
  role text NOT NULL DEFAULT 'none' CHECK (role IN ('inbox', 'drafts', 'sent', 'archive', 'spam', 'trash', 'none')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, folder_id),
  UNIQUE (org_id, mailbox_id, folder_id),
  FOREIGN KEY (org_id, mailbox_id) REFERENCES email_mailboxes (org_id, mailbox_id)
);
CREATE UNIQUE INDEX email_folders_path ON email_folders (org_id, mailbox_id, lower(path));
CREATE UNIQUE INDEX email_folders_role ON email_folders (org_id, mailbox_id, role) WHERE role <> 'none';

CREATE TABLE email_threads (
  org_id text NOT NULL REFERENCES orgs(org_id),
  thread_id text NOT NULL,
  mailbox_id text NOT NULL,
  subject text NOT NULL DEFAULT '',
  -- The subject without Re:/Fwd: prefixes, lower-cased: the fallback match of a header-less reply.
  subject_key text NOT NULL DEFAULT '',
  -- Lower-cased addresses seen on the thread (senders and recipients).
  participants text[] NOT NULL DEFAULT '{}',
  message_count integer NOT NULL DEFAULT 0,
  last_message_at timestamptz NOT NULL,
  -- Who answers (email.delegate): a member of the mailbox.
  assignee_id text,
  -- Triage (a later slice): category, priority and whether it needs a reply.
  triage_category text,
  triage_priority text CHECK (triage_priority IS NULL OR triage_priority IN ('low', 'normal', 'high', 'urgent')),
  needs_reply boolean NOT NULL DEFAULT false,
  -- summarise's answer (points, open questions) and the state of the thread it was made from.
  summary jsonb,
  summary_hash text,
  -- holdReplies on one thread.
  hold boolean NOT NULL DEFAULT false,
  hold_until timestamptz,
  hold_by text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, thread_id),
  UNIQUE (org_id, mailbox_id, thread_id),
  FOREIGN KEY (org_id, mailbox_id) REFERENCES email_mailboxes (org_id, mailbox_id)
);
CREATE INDEX email_threads_subject ON email_threads (org_id, mailbox_id, subject_key, last_message_at DESC);
CREATE INDEX email_threads_assignee ON email_threads (org_id, assignee_id, last_message_at DESC) WHERE assignee_id IS NOT NULL;

-- Which folders a thread has live messages in (a thread shows in each), kept with its newest message there: the
-- folder listing (email.threads, email.inbox) walks (org, mailbox, folder, last_message_at desc) and stops at a page.
CREATE TABLE email_thread_folders (
  org_id text NOT NULL REFERENCES orgs(org_id),
  mailbox_id text NOT NULL,
  folder_id text NOT NULL,
  thread_id text NOT NULL,
  last_message_at timestamptz NOT NULL,
  message_count integer NOT NULL,
  PRIMARY KEY (org_id, folder_id, thread_id),
  FOREIGN KEY (org_id, thread_id) REFERENCES email_threads (org_id, thread_id)
);
CREATE INDEX email_thread_folders_recent ON email_thread_folders (org_id, mailbox_id, folder_id, last_message_at DESC, thread_id);
CREATE INDEX email_thread_folders_thread ON email_thread_folders (org_id, thread_id);

CREATE TABLE email_messages (
  org_id text NOT NULL REFERENCES orgs(org_id),
  message_id text NOT NULL,
  mailbox_id text NOT NULL,
  thread_id text NOT NULL,
  folder_id text NOT NULL,
  state text NOT NULL CHECK (state IN ('draft', 'held', 'scheduled', 'sent', 'received', 'discarded')),
  -- RFC 5322 ids without angle brackets: Message-ID, In-Reply-To, References (oldest first).
  rfc_message_id text NOT NULL,
  in_reply_to text,
  rfc_references text[] NOT NULL DEFAULT '{}',
  from_address text NOT NULL DEFAULT '',
  from_name text NOT NULL DEFAULT '',
  -- The sender's domain (the one fact about a sender an event may carry).
  from_domain text NOT NULL DEFAULT '',
  -- [{address, name}], addresses lower-cased.
  to_addresses jsonb NOT NULL DEFAULT '[]',
  cc_addresses jsonb NOT NULL DEFAULT '[]',
  bcc_addresses jsonb NOT NULL DEFAULT '[]',
  reply_to jsonb NOT NULL DEFAULT '[]',
  subject text NOT NULL DEFAULT '',
  text text NOT NULL DEFAULT '',
  html text,
  -- The member who wrote it (drafts, sent mail); NULL for mail received.
  author_id text,
  -- A draft's version: 1 at creation, +1 each save (email.draftSave expectedVersion).
  version integer NOT NULL DEFAULT 1,
  -- A reply's original (drafts).
  reply_to_message_id text,
  -- Workspace files attached to outbound mail (files family ids).
  file_ids text[] NOT NULL DEFAULT '{}',
  has_attachments boolean NOT NULL DEFAULT false,
  -- Inbound authentication verdicts (pass, fail, softfail, neutral, none, temperror, permerror).
  auth_spf text,
  auth_dkim text,
  auth_dmarc text,
  -- The raw RFC 5322 bytes as received or sent: a blob of the org held by this row.
  raw_sha256 text,
  size_bytes bigint NOT NULL DEFAULT 0,
  sent_at timestamptz,
  received_at timestamptz,
  -- What lists sort by: received_at, sent_at, or the draft's last save.
  sort_at timestamptz NOT NULL,
  discarded_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, message_id),
  FOREIGN KEY (org_id, mailbox_id, thread_id) REFERENCES email_threads (org_id, mailbox_id, thread_id),
  FOREIGN KEY (org_id, mailbox_id, folder_id) REFERENCES email_folders (org_id, mailbox_id, folder_id),
  CHECK ((state = 'received') <= (received_at IS NOT NULL)),
  CHECK ((state = 'discarded') = (discarded_at IS NOT NULL))
);
-- A thread read in order; threading by Message-ID within a mailbox; a folder's messages newest first.
CREATE INDEX email_messages_thread ON email_messages (org_id, thread_id, sort_at);
CREATE INDEX email_messages_rfc_id ON email_messages (org_id, mailbox_id, rfc_message_id);
CREATE INDEX email_messages_folder ON email_messages (org_id, mailbox_id, folder_id, sort_at DESC, message_id);
CREATE INDEX email_messages_recent ON email_messages (org_id, sort_at DESC) WHERE state <> 'discarded';
CREATE INDEX email_messages_drafts ON email_messages (org_id, mailbox_id, sort_at DESC) WHERE state = 'draft';
-- Subject first, then the sender and the words: ranked by db/search.ts over the newest matches. No trigram column:
-- bodies are long, and typo matching belongs to short names.
SELECT wops_search_indexes('email_messages', ARRAY['subject'], ARRAY['from_name', 'from_address', 'text'], ARRAY[]::text[], ARRAY[]::text[]);

-- Read state per principal: an agent reading leaves mail unread for humans.
CREATE TABLE email_message_reads (
  org_id text NOT NULL REFERENCES orgs(org_id),
  principal_id text NOT NULL,
  message_id text NOT NULL,
  read_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, principal_id, message_id),
  FOREIGN KEY (org_id, message_id) REFERENCES email_messages (org_id, message_id)
);

-- Internal reactions, never sent.
CREATE TABLE email_reactions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  message_id text NOT NULL,
  emoji text NOT NULL,
  principal_id text NOT NULL,
  reacted_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, message_id, emoji, principal_id),
  FOREIGN KEY (org_id, message_id) REFERENCES email_messages (org_id, message_id)
);

-- A message's attachments: blobs of the org, held by the message (blob_refs holder = the message id).
CREATE TABLE email_attachments (
  org_id text NOT NULL REFERENCES orgs(org_id),
  attachment_id text NOT NULL,
  message_id text NOT NULL,
  position integer NOT NULL,
  sha256 text NOT NULL,
  filename text NOT NULL DEFAULT '',
  content_type text NOT NULL,
  size_bytes bigint NOT NULL,
  content_id text,
  inline boolean NOT NULL DEFAULT false,
  -- email.fileAttachment: the workspace file made of it (filing again is a no-op).
  file_id text,
  PRIMARY KEY (org_id, attachment_id),
  UNIQUE (org_id, message_id, position),
  FOREIGN KEY (org_id, message_id) REFERENCES email_messages (org_id, message_id)
);

-- A send: the undo window (send_at), then delivery. The row is the truth a delivery job locks.
CREATE TABLE email_submissions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  submission_id text NOT NULL,
  message_id text NOT NULL,
  send_at timestamptz NOT NULL,
  undo_status text NOT NULL DEFAULT 'pending' CHECK (undo_status IN ('pending', 'final', 'canceled')),
  delivery text CHECK (delivery IS NULL OR delivery IN ('sent', 'internal', 'outboxed', 'deferred', 'failed', 'bounced')),
  -- The review an agent's message waited for (an approvals row), if any.
  approval_id text,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  params_hash text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, submission_id),
  FOREIGN KEY (org_id, message_id) REFERENCES email_messages (org_id, message_id)
);
CREATE INDEX email_submissions_message ON email_submissions (org_id, message_id);
CREATE INDEX email_submissions_pending ON email_submissions (org_id, send_at) WHERE undo_status = 'pending';

-- Rules in words: when (all/any/not over enumerated fields) then (move, markRead, assign, spam, holdReplies, triage).
CREATE TABLE email_rules (
  org_id text NOT NULL REFERENCES orgs(org_id),
  rule_id text NOT NULL,
  mailbox_id text NOT NULL,
  position integer NOT NULL,
  name text NOT NULL DEFAULT '',
  conditions jsonb NOT NULL,
  actions jsonb NOT NULL,
  enabled boolean NOT NULL DEFAULT false,
  author_id text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  PRIMARY KEY (org_id, rule_id),
  FOREIGN KEY (org_id, mailbox_id) REFERENCES email_mailboxes (org_id, mailbox_id)
);
CREATE INDEX email_rules_mailbox ON email_rules (org_id, mailbox_id, position) WHERE deleted_at IS NULL;

-- A member's own signature in a mailbox, or the mailbox's shared one (principal_id NULL, kept by its owners).
CREATE TABLE email_signatures (
  org_id text NOT NULL REFERENCES orgs(org_id),
  signature_id text NOT NULL,
  mailbox_id text NOT NULL,
  principal_id text,
  name text NOT NULL,
  text text NOT NULL,
  html text,
  is_default boolean NOT NULL DEFAULT false,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz,
  PRIMARY KEY (org_id, signature_id),
  FOREIGN KEY (org_id, mailbox_id) REFERENCES email_mailboxes (org_id, mailbox_id)
);
CREATE INDEX email_signatures_mailbox ON email_signatures (org_id, mailbox_id, principal_id) WHERE deleted_at IS NULL;

-- Why a thread was handled (email.logDecision): the text stays here; the event carries its SHA-256.
CREATE TABLE email_decisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  decision_id text NOT NULL,
  thread_id text NOT NULL,
  kind text NOT NULL,
  text text NOT NULL,
  author_id text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, decision_id),
  FOREIGN KEY (org_id, thread_id) REFERENCES email_threads (org_id, thread_id)
);
CREATE INDEX email_decisions_thread ON email_decisions (org_id, thread_id, created_at);
