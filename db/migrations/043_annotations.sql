-- tables: files: annotations, annotation_replies
-- tables: files: file_pins
-- Annotations and pins (files.md section 3): the one store of threads on any record (annotation.*; files.comment*
-- and file.*Comment(s) are views of it), and pins of records to places (file.pin, files.pin). Targets are ids of
-- other families (fil_, task_, evt_<seq>, ...), checked through their families' functions (domain/refs.ts), so no
-- foreign key reaches them. Bodies, quotes and selectors' text live only in these rows, never in the ledger.

CREATE TABLE annotations (
  org_id text NOT NULL REFERENCES orgs(org_id),
  annotation_id text NOT NULL,
  target_id text NOT NULL,
  target_type text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('comment', 'highlight', 'flag')),
  -- Where on the target (a W3C-like selector as the contract spells it); NULL: the whole target.
  selector jsonb,
  selector_type text CHECK (selector_type IN ('block', 'cell', 'slide', 'line', 'time')),
  -- Doc block selectors: the tab and block the anchor sits in now (re-anchoring moves them).
  anchor_tab text,
  anchor_block text,
  anchor_status text NOT NULL DEFAULT 'anchored' CHECK (anchor_status IN ('anchored', 'orphaned')),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved', 'dismissed')),
  -- The target's unanchored discussion (file.addComment): one per target, no selector.
  discussion boolean NOT NULL DEFAULT false,
  -- Comments in the thread; the next comment's seq is comment_count + 1 (under this row's lock).
  comment_count integer NOT NULL DEFAULT 0,
  last_comment_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  resolved_by text,
  resolved_at timestamptz,
  dismissed_by text,
  dismissed_at timestamptz,
  PRIMARY KEY (org_id, annotation_id),
  CHECK ((selector IS NULL) = (selector_type IS NULL)),
  CHECK ((selector_type = 'block') = (anchor_tab IS NOT NULL)),
  CHECK (NOT discussion OR selector IS NULL),
  CHECK ((status = 'resolved') = (resolved_at IS NOT NULL)),
  CHECK ((status = 'dismissed') = (dismissed_at IS NOT NULL))
);
-- A target's threads, newest first (annotation.list targetId, files.comments).
CREATE INDEX annotations_by_target ON annotations (org_id, target_id, created_at DESC, annotation_id DESC);
-- Every thread, newest first (annotation.list without a target).
CREATE INDEX annotations_recent ON annotations (org_id, created_at DESC, annotation_id DESC);
-- Re-anchoring a doc tab's open threads.
CREATE INDEX annotations_doc_open ON annotations (org_id, target_id, anchor_tab) WHERE status = 'open' AND anchor_tab IS NOT NULL;
CREATE UNIQUE INDEX annotations_discussion ON annotations (org_id, target_id) WHERE discussion;

CREATE TABLE annotation_replies (
  org_id text NOT NULL REFERENCES orgs(org_id),
  reply_id text NOT NULL,
  annotation_id text NOT NULL,
  seq integer NOT NULL CHECK (seq >= 1),
  author_id text NOT NULL,
  body text NOT NULL,
  -- The author's own id for the comment: the same author sending it again gets the first one back.
  client_msg_id text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, reply_id),
  FOREIGN KEY (org_id, annotation_id) REFERENCES annotations (org_id, annotation_id)
);
CREATE UNIQUE INDEX annotation_replies_order ON annotation_replies (org_id, annotation_id, seq);
CREATE UNIQUE INDEX annotation_replies_client ON annotation_replies (org_id, author_id, client_msg_id) WHERE client_msg_id IS NOT NULL;

-- A record pinned to a place: 'org' (the org home), a team_, a ws_ workstream or a fil_ folder; at most 50 live
-- per place. Unpinning keeps the row (removed_at), so a second unpin is a no-op, not NOT_FOUND.
CREATE TABLE file_pins (
  org_id text NOT NULL REFERENCES orgs(org_id),
  pin_id text NOT NULL,
  place text NOT NULL,
  place_type text NOT NULL CHECK (place_type IN ('org', 'team', 'workstream', 'folder')),
  target_id text NOT NULL,
  target_type text NOT NULL,
  pinned_by text NOT NULL,
  pinned_at timestamptz NOT NULL,
  removed_by text,
  removed_at timestamptz,
  PRIMARY KEY (org_id, pin_id),
  CHECK ((removed_at IS NULL) = (removed_by IS NULL))
);
CREATE UNIQUE INDEX file_pins_live ON file_pins (org_id, place, target_id) WHERE removed_at IS NULL;
CREATE INDEX file_pins_by_place ON file_pins (org_id, place, pinned_at DESC, pin_id DESC) WHERE removed_at IS NULL;
