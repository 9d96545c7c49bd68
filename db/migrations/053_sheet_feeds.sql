-- tables: files: sheet_feeds
-- Fed ranges (files.sheetFedRange): a block of a sheet tab filled from a read method run as the caller who sets or
-- refreshes it (books.reports into a budget). A feed's definition and last outcome live here; where its cells are
-- at each revision lives with the revision (sheet_revisions.feeds), so any revision knows which of its cells were
-- fed and a reader without the source's scope never sees their values, at the head or in the past.

CREATE TABLE sheet_feeds (
  org_id text NOT NULL REFERENCES orgs(org_id),
  feed_id text NOT NULL,
  file_id text NOT NULL,
  -- The read method (R) and its params, the path to the rows in its result, the columns taken, a header row or not.
  source json NOT NULL,
  -- The method's scope when the feed was set: what a reader needs to see the fed values.
  scope text NOT NULL,
  status text NOT NULL CHECK (status IN ('ok', 'error')),
  -- Why the last refresh failed (the source's error or the block's), never a fed value.
  error text,
  refreshed_at timestamptz NOT NULL,
  refreshed_by text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, feed_id),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id) ON DELETE CASCADE
);
CREATE INDEX sheet_feeds_by_file ON sheet_feeds (org_id, file_id);

-- [{id, tabId, row, col, rows, cols}]: each feed attached at this revision, its block from (row, col), rows x cols
-- (0 x 0 while it has never filled).
ALTER TABLE sheet_revisions ADD COLUMN feeds json NOT NULL DEFAULT '[]';

-- A revision a feed made (set, refresh, remove).
ALTER TABLE sheet_revisions DROP CONSTRAINT sheet_revisions_source_check;
ALTER TABLE sheet_revisions ADD CONSTRAINT sheet_revisions_source_check CHECK (source IN ('create', 'duplicate', 'write', 'tab', 'restore', 'feed'));
