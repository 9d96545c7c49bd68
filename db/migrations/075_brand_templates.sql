-- tables: branding: brand_templates, brand_template_revisions, brand_version_items
-- The brand library's templates (docs/families/branding.md): every change is an immutable revision made at a brand
-- version (amend, clone, delete, undo, redo, restore alike), a head per template, and each library version's
-- manifest (which items it moved from which revision to which), what undo, redo and restore read. Template bodies,
-- names and field names live only in these rows; the design log holds ids, revisions, counts and hashes.

-- The current revision of each template (the last one), and what lists filter on.
CREATE TABLE brand_templates (
  org_id text NOT NULL REFERENCES orgs(org_id),
  template_id text NOT NULL,
  revision integer NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'deleted')),
  kind text NOT NULL,
  name text NOT NULL,
  origin text NOT NULL CHECK (origin IN ('recipe', 'custom', 'cloned')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, template_id)
);
CREATE INDEX brand_templates_status ON brand_templates (org_id, status, template_id);

-- One row per revision: the whole template as it was. sha256 is of the canonical JSON of {kind, name, size, body, fields}.
CREATE TABLE brand_template_revisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  template_id text NOT NULL,
  revision integer NOT NULL CHECK (revision >= 1),
  version integer NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'deleted')),
  kind text NOT NULL,
  name text NOT NULL,
  size jsonb NOT NULL,
  body jsonb NOT NULL,
  fields jsonb NOT NULL,
  origin text NOT NULL,
  sha256 text NOT NULL,
  by_actor text NOT NULL,
  at timestamptz NOT NULL,
  PRIMARY KEY (org_id, template_id, revision)
);
CREATE INDEX brand_template_revisions_version ON brand_template_revisions (org_id, version);

-- A library version's manifest: each item it changed, from_revision (null: it made the item) to to_revision.
CREATE TABLE brand_version_items (
  org_id text NOT NULL REFERENCES orgs(org_id),
  version integer NOT NULL,
  item_id text NOT NULL,
  from_revision integer,
  to_revision integer NOT NULL,
  PRIMARY KEY (org_id, version, item_id)
);
CREATE INDEX brand_version_items_item ON brand_version_items (org_id, item_id, version);
