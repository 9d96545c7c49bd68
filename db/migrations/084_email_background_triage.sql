-- Email's background triage (decision 0084): after mail lands in a mailbox's Inbox, a job triages the Inbox threads
-- with new mail as the mailbox's agent seat named here, through the AI gateway and the org's AI budget, as
-- email.triageNow does when called. NULL (the default): no background pass; triage runs only when called. The seat
-- must be a member of the mailbox (the key below), so removing that member first turns the pass off
-- (npm run cli -- mailbox-triage).
ALTER TABLE email_mailboxes ADD COLUMN triage_as text;
ALTER TABLE email_mailboxes ADD CONSTRAINT email_mailboxes_triage_as
  FOREIGN KEY (org_id, mailbox_id, triage_as) REFERENCES email_mailbox_members (org_id, mailbox_id, principal_id);

-- Mail's GIN indexes write each message's entries into the index as it is stored (fastupdate off), instead of into a
-- pending list that every search reads whole until a vacuum or a 4 MB overflow merges it (decision 0084: 3,000 new
-- messages left about 300 pending pages and doubled search p95; storing them directly cost no ingest rate the bench
-- could tell). Entries already pending are merged now.
ALTER INDEX email_messages_from SET (fastupdate = off);
ALTER INDEX email_messages_search_doc SET (fastupdate = off);
ALTER INDEX email_messages_search_stem SET (fastupdate = off);
SELECT gin_clean_pending_list('email_messages_from'::regclass);
SELECT gin_clean_pending_list('email_messages_search_doc'::regclass);
SELECT gin_clean_pending_list('email_messages_search_stem'::regclass);
