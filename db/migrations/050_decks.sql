-- tables: files: deck_slides, deck_revisions
-- Native decks (docs/families/files.md, Decks): an ordered list of slides (`sld_`), each a layout, a title, a Markdown
-- body, speaker notes and positioned elements (`el_`: text, image as a blob of the org, shape). As docs keep their
-- blocks, a slide is stored once per file under the SHA-256 of its canonical JSON, and a revision is immutable: the
-- deck's slides in order as (slideId, hash). An edit stores only the slides it changed, and a concurrent write is
-- checked slide by slide by comparing hashes. The text lives only in these rows; events carry ids, counts and hashes.

CREATE TABLE deck_slides (
  org_id text NOT NULL REFERENCES orgs(org_id),
  file_id text NOT NULL,
  -- SHA-256 hex of body.
  hash text NOT NULL,
  -- The slide {id, layout, title, body, notes, elements} as canonical JSON (RFC 8785): the bytes contentSha256 covers.
  body text NOT NULL,
  -- Title, body, notes and element text, for search and the Markdown outline.
  plain text NOT NULL,
  PRIMARY KEY (org_id, file_id, hash),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id) ON DELETE CASCADE
);

CREATE TABLE deck_revisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  file_id text NOT NULL,
  revision integer NOT NULL CHECK (revision >= 1),
  -- [[slideId, hash], …] in deck order (position = index). json, not jsonb: stored as written, never queried inside.
  slides json NOT NULL,
  -- SHA-256 of the canonical JSON of {slides:[slide, …]} (what files.deckRead returns for a whole read).
  content_sha256 text NOT NULL,
  size_bytes integer NOT NULL,
  source text NOT NULL CHECK (source IN ('create', 'duplicate', 'edit', 'restore')),
  base_revision integer,
  ops integer NOT NULL DEFAULT 0,
  author_id text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, file_id, revision),
  FOREIGN KEY (org_id, file_id) REFERENCES files (org_id, file_id) ON DELETE CASCADE
);
