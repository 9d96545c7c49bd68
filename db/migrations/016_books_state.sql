-- Payday Super (issue 14): super is due a number of business days after payday, and business days skip the
-- public holidays of the org's state as well as the national ones. Nothing recorded the org's state before;
-- NSW is the default until an operator sets it (npm run cli -- books-settings --org <slug> --state <STATE>).
ALTER TABLE books_settings
  ADD COLUMN state text NOT NULL DEFAULT 'NSW' CHECK (state IN ('ACT', 'NSW', 'NT', 'QLD', 'SA', 'TAS', 'VIC', 'WA'));
