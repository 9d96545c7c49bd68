-- tables: branding: brand_assets, brand_asset_revisions
-- The brand library's assets (docs/families/branding.md): images (img_), renders (rnd_) and export kits (bkx_), one
-- head row each and one immutable row per revision, like templates. Bytes live in the blob store, held through
-- referenceBlob with the asset id as holder. Prompts, alt texts and tags live only in these rows, never in the ledger
-- or the design log. An image's first revision, and every amendment, is a library change (a brand version with
-- manifest rows in brand_version_items); a render or an export is made at a version and changes no version.

CREATE TABLE brand_assets (
  org_id text NOT NULL REFERENCES orgs(org_id),
  asset_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('image', 'render', 'export')),
  revision integer NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'archived')),
  sha256 text NOT NULL,
  -- what identifies equal inputs: an image's bytes hash (same bytes, same img_), a generated image's
  -- {prompt, style, size, seed} hash, a render's {template revision, version, values, format, scale} hash, an
  -- export's own id (every export is a new egress).
  input_hash text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, asset_id)
);
CREATE UNIQUE INDEX brand_assets_input ON brand_assets (org_id, kind, input_hash);
CREATE INDEX brand_assets_kind ON brand_assets (org_id, kind, status, asset_id);

CREATE TABLE brand_asset_revisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  asset_id text NOT NULL,
  revision integer NOT NULL CHECK (revision >= 1),
  -- the brand version this revision was made at (a library version for images and amendments)
  version integer NOT NULL,
  status text NOT NULL CHECK (status IN ('active', 'archived')),
  sha256 text NOT NULL,
  size_bytes bigint NOT NULL,
  content_type text NOT NULL,
  width integer,
  height integer,
  -- image: upload | generated; render: the template's id; export: 'kit'
  origin text NOT NULL,
  alt_text text,
  tags jsonb NOT NULL DEFAULT '[]',
  crop jsonb,
  retain_until timestamptz,
  -- kind-specific inputs: generated {prompt, style, size, seed, provider}; render {templateId, templateRevision,
  -- format, scale, valuesHash}; export {formats, include, counts}
  meta jsonb NOT NULL DEFAULT '{}',
  by_actor text NOT NULL,
  at timestamptz NOT NULL,
  PRIMARY KEY (org_id, asset_id, revision)
);
CREATE INDEX brand_asset_revisions_version ON brand_asset_revisions (org_id, version);
