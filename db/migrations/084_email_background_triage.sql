-- Email's background triage (decision 0084): after mail lands in a mailbox's Inbox, a job triages the Inbox threads
-- with new mail as the mailbox's agent seat named here, through the AI gateway and the org's AI budget, as
-- email.triageNow does when called. NULL (the default): no background pass; triage runs only when called. The seat
-- must be a member of the mailbox (the key below), so removing that member first turns the pass off
-- (npm run cli -- mailbox-triage).
ALTER TABLE email_mailboxes ADD COLUMN triage_as text;
ALTER TABLE email_mailboxes ADD CONSTRAINT email_mailboxes_triage_as
  FOREIGN KEY (org_id, mailbox_id, triage_as) REFERENCES email_mailbox_members (org_id, mailbox_id, principal_id);
