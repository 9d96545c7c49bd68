-- tables: files: doc_blocks, doc_revisions, doc_suggestions
-- Native docs (files.md section 1, Doc model): ProseMirror JSON in tabs of top-level blocks with stable ids. A
-- revision is immutable: the doc's tabs in order, each its blocks as (blockId, hash). A block's content is stored
-- once per file under the SHA-256 of its canonical JSON, so a revision costs its block list, an edit stores only
-- the blocks it changed, and comparing two revisions block by block (concurrent writes, stale suggestions,
-- re-anchoring) is comparing hashes. The text lives only in these rows; events carry ids, counts and hashes.

CREATE TABLE doc_blocks (
  org_id text NOT NULL REFERENCES orgs(org_id),
  file_id text NOT NULL,
  -- SHA-256 hex of body.
  hash text NOT NULL,
  -- The block node as canonical JSON (RFC 8785), exactly the bytes its tab's hash covers.
  body text NOT NULL,
  -- Its plain text (doc-schema blockText): search, the text format, annotation offsets.
  plain text NOT NULL,
  PRIMARY KEY (org_id, file_id, hash),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id) ON DELETE CASCADE
);

CREATE TABLE doc_revisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  file_id text NOT NULL,
  revision integer NOT NULL CHECK (revision >= 1),
  -- [{id, title, parentTabId, sha256, blocks: [[blockId, hash], …]}] in reading order.
  -- json, not jsonb: stored as written (a 1k-block revision is ~90 KB; nothing queries inside it).
  tabs json NOT NULL,
  -- SHA-256 of the canonical JSON of {tabs:[{id, title, parentTabId, content}]} (what files.docRead json returns).
  content_sha256 text NOT NULL,
  size_bytes integer NOT NULL,
  -- create, duplicate, edit, tab, accept, restore.
  source text NOT NULL CHECK (source IN ('create', 'duplicate', 'edit', 'tab', 'accept', 'restore')),
  base_revision integer,
  ops integer NOT NULL DEFAULT 0,
  -- accept: the suggestion it came from (its author is the revision's author; accepted_by decided).
  suggestion_id text,
  author_id text NOT NULL,
  accepted_by text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, file_id, revision),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id) ON DELETE CASCADE
);

-- An edit proposed against a base revision (an agent on a review-mode doc, or mode suggest): its ops as they will
-- apply (markdown already parsed, new blocks already given ids), what each op changes, and the hashes its targets
-- had at the base, so staleness is computed against the head at any time.
CREATE TABLE doc_suggestions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  suggestion_id text NOT NULL,
  file_id text NOT NULL,
  base_revision integer NOT NULL,
  ops jsonb NOT NULL,
  op_count integer NOT NULL,
  -- {blocks: {blockId: hash}, anchors: [blockId], tabs: {tabId: sha256 or ""}}: what must be unchanged to accept.
  targets jsonb NOT NULL,
  -- Per op: {op, tabId, before: [[blockId, hash]], after: [[blockId, hash]]} (blocks stored in doc_blocks).
  changes jsonb NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'rejected')),
  author_id text NOT NULL,
  created_at timestamptz NOT NULL,
  resolved_by text,
  resolved_at timestamptz,
  -- accepted: the revision it made.
  revision integer,
  PRIMARY KEY (org_id, suggestion_id),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id) ON DELETE CASCADE,
  CHECK ((status = 'open') = (resolved_at IS NULL)),
  CHECK ((status = 'accepted') = (revision IS NOT NULL))
);
CREATE INDEX doc_suggestions_by_file ON doc_suggestions (org_id, file_id, created_at DESC, suggestion_id DESC);
