-- tables: files: sheet_revisions, sheet_cells
-- Native sheets (docs/families/files.md, Sheets): tabs of cells, each cell's input a literal or `=formula`. A revision is
-- immutable: its tabs in order, their hashes and the content hash. Cells are versioned rows: a row holds one
-- cell's input from revision from_rev until the revision that replaced or cleared it (to_rev, NULL while it is the
-- head's), so a write stores only the cells it changed and any revision reads as the cells live at it. Computed
-- values are not stored: the engine (IronCalc) recomputes them from the inputs, kept evaluated in a process cache
-- keyed by content hash. The inputs live only in these rows; events carry ids, counts and hashes.

CREATE TABLE sheet_revisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  file_id text NOT NULL,
  revision integer NOT NULL CHECK (revision >= 1),
  -- [{id, title, sha256, cells}] in tab order: sha256 of the canonical JSON of the tab's {A1: input}, cells its count.
  tabs json NOT NULL,
  -- SHA-256 of the canonical JSON of {tabs:[{id, title, cells:{A1: input}}]}.
  content_sha256 text NOT NULL,
  size_bytes integer NOT NULL,
  source text NOT NULL CHECK (source IN ('create', 'duplicate', 'write', 'tab', 'restore')),
  base_revision integer,
  -- Cells written (write) or cells whose input changed.
  cells integer NOT NULL DEFAULT 0,
  author_id text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, file_id, revision),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id) ON DELETE CASCADE
);

CREATE TABLE sheet_cells (
  org_id text NOT NULL REFERENCES orgs(org_id),
  file_id text NOT NULL,
  tab_id text NOT NULL,
  -- 1-based, as in A1 (row 1 048 576 and column 16 384 at most).
  row integer NOT NULL CHECK (row BETWEEN 1 AND 1048576),
  col integer NOT NULL CHECK (col BETWEEN 1 AND 16384),
  from_rev integer NOT NULL,
  -- The revision that replaced or cleared it; NULL: the head's.
  to_rev integer CHECK (to_rev > from_rev),
  -- A literal as written, or a formula as the engine normalises it (`=SUM(A1:A3)`).
  input text NOT NULL,
  PRIMARY KEY (org_id, file_id, tab_id, row, col, from_rev),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX sheet_cells_head ON sheet_cells (org_id, file_id, tab_id, row, col) WHERE to_rev IS NULL;
CREATE INDEX sheet_cells_by_revision ON sheet_cells (org_id, file_id, from_rev);
