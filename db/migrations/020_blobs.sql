-- tables: blobs: blobs, blob_uploaders, blob_refs
-- Blobs (blobs/): bytes addressed by SHA-256 per org, never across orgs. The bytes live in the blob store (disk or
-- S3); these rows say which exist, who uploaded them and which records hold them.
CREATE TABLE blobs (
  org_id text NOT NULL REFERENCES orgs(org_id),
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
  content_type text NOT NULL,
  -- The first uploader (blob_uploaders lists every one).
  uploaded_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Since when nothing has held it (its upload, or its last reference released): the GC grace counts from here.
  idle_since timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, sha256)
);
CREATE INDEX blobs_org_idle ON blobs (org_id, idle_since);
CREATE INDEX blobs_idle ON blobs (idle_since);

-- Who uploaded these bytes: each may read and reference the blob while no record holds it (a hash is not a permission).
CREATE TABLE blob_uploaders (
  org_id text NOT NULL,
  sha256 text NOT NULL,
  principal_id text NOT NULL,
  uploaded_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, sha256, principal_id),
  FOREIGN KEY (org_id, sha256) REFERENCES blobs(org_id, sha256) ON DELETE CASCADE
);

-- The records that hold a blob (blobs/refs.ts referenceBlob, in the family's own transaction). The foreign key
-- (no cascade) is what makes GC safe: inserting a reference locks the blob row (FOR KEY SHARE) until commit, and
-- deleting a blob that a committed reference holds fails, so GC can never remove bytes a record points at.
CREATE TABLE blob_refs (
  org_id text NOT NULL,
  sha256 text NOT NULL,
  -- The holding record's id, e.g. fil_…/ver_… or eml_…#2: unique per blob.
  holder text NOT NULL,
  created_by text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, sha256, holder),
  FOREIGN KEY (org_id, sha256) REFERENCES blobs(org_id, sha256)
);
CREATE INDEX blob_refs_org_holder ON blob_refs (org_id, holder);
