-- Invitations as iTIP mail (docs/families/calendar.md, "Invitations and the feed"). A calendar invitation, reply or
-- cancellation is an email message like any other (drafted, gated, reviewed, delivered by the email family); these
-- columns carry its text/calendar part, sent as the multipart/alternative's second part beside the text.
ALTER TABLE email_messages ADD COLUMN calendar_method text CHECK (calendar_method IN ('REQUEST', 'CANCEL', 'REPLY'));
ALTER TABLE email_messages ADD COLUMN calendar_ics text;
