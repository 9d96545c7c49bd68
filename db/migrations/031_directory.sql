-- tables: directory: directory_parties, directory_identifiers, directory_channels, directory_links, directory_lists
-- tables: directory: directory_list_members, directory_list_grants, directory_captures, directory_merges
-- tables: directory: directory_merge_changes, directory_awareness, directory_awareness_requests
-- The directory (issue 18): one record per outside person (per_) or organisation (co_), a "party". Persons and
-- organisations share one table with a kind: search, dedupe, lists, links, awareness, captures and merges all
-- point at "a party" of either kind, so one id column, one search index and one merge repoint serve them all.
-- Books contacts are not touched here (a later migration makes them the finance role of a party).

-- A name folded for matching: accents and case folded, punctuation to spaces (dots and apostrophes dropped, so
-- "Pty." is "pty" and "O'Brien" is "obrien"), honorifics and legal forms dropped ("Dr José Álvarez" and "jose
-- alvarez", "Acme Pty Ltd" and "ACME Limited" fold alike). A name made only of such words folds to itself.
-- IMMUTABLE over wops_unaccent (017_search.sql), so generated columns and indexes may use it on both databases.
CREATE FUNCTION dir_fold(name text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
  AS $$ SELECT coalesce(nullif(btrim(regexp_replace(regexp_replace(
              ' ' || regexp_replace(translate(lower(public.wops_unaccent(name)), '.''’', ''), '[[:space:]!-/:-@\[-`{-~‘“”–—·]+', ' ', 'g') || ' ',
              ' (mr|mrs|ms|miss|mx|dr|prof|sir|dame|rev|hon|and|the|pty|proprietary|ltd|limited|inc|incorporated|llc|llp|lp|plc|gmbh|ag|sa|sas|sarl|srl|spa|bv|nv|oy|ab|kk|corp|corporation|co|company)(?= )',
              '', 'g'), ' +', ' ', 'g')), ''),
            btrim(lower(public.wops_unaccent(name)))) $$;

-- A text array as words (array_to_string is STABLE: output functions of arbitrary element types; text's is fixed).
CREATE FUNCTION dir_words(words text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_to_string(words, ' '), '') $$;

CREATE TABLE directory_parties (
  org_id text NOT NULL REFERENCES orgs(org_id),
  party_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('person', 'org')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived', 'merged')),
  display_name text NOT NULL,
  -- Former names (a rename keeps the old one here) and other names the party goes by.
  aliases text[] NOT NULL DEFAULT '{}',
  -- Lower-cased.
  tags text[] NOT NULL DEFAULT '{}',
  -- [{label, lines[], locality, region, postcode, country}]
  addresses jsonb NOT NULL DEFAULT '[]',
  notes text,
  do_not_contact boolean NOT NULL DEFAULT false,
  -- Who made the record: directory.create* (manual), contact.add, contacts.upsert, an accepted capture, an import.
  origin text NOT NULL CHECK (origin IN ('manual', 'contact', 'contacts', 'capture', 'import')),
  -- ISO 3166-1 alpha-2 (an organisation's seat; a person's country when known).
  country text CHECK (country ~ '^[A-Z]{2}$'),
  -- Persons.
  given_name text,
  family_name text,
  title text,
  -- The primary employer, derived from the active works_at links (domain/directory/terms.ts refreshEmployers): the
  -- name is here for the person's search document (a generated column cannot read another row).
  employer_id text,
  employer_name text,
  -- Organisations.
  legal_name text,
  website text,
  -- The website's registrable domain (tldts): acme.com.au for https://www.acme.com.au/about.
  domain text,
  merged_into text,
  merged_at timestamptz,
  version integer NOT NULL DEFAULT 1,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- Search (db/search.ts, domain/directory/search.ts): the name folded (equal-name dedupe), the other names (B),
  -- the terms (C), and the two columns wops_search_indexes would add, written out here because they read the
  -- arrays and the folded name (a generated column cannot read another generated column).
  name_fold text GENERATED ALWAYS AS (public.dir_fold(display_name)) STORED,
  search_names text GENERATED ALWAYS AS (public.dir_words(aliases) || ' ' || coalesce(legal_name, '')) STORED,
  search_terms text GENERATED ALWAYS AS (
    public.dir_words(tags) || ' ' || coalesce(title, '') || ' ' || coalesce(employer_name, '') || ' ' || coalesce(domain, '')) STORED,
  search_doc tsvector GENERATED ALWAYS AS (public.wops_search_doc(
    coalesce(display_name, ''),
    coalesce(public.dir_words(aliases) || ' ' || coalesce(legal_name, ''), ''),
    coalesce(public.dir_words(tags) || ' ' || coalesce(title, '') || ' ' || coalesce(employer_name, '') || ' ' || coalesce(domain, ''), ''))) STORED,
  search_fuzzy text GENERATED ALWAYS AS (public.wops_unaccent(coalesce(public.dir_fold(display_name), ''))) STORED,
  PRIMARY KEY (org_id, party_id),
  CHECK (party_id ~ (CASE kind WHEN 'person' THEN '^per_' ELSE '^co_' END)),
  CHECK (kind = 'person' OR (given_name IS NULL AND family_name IS NULL AND title IS NULL AND employer_id IS NULL)),
  CHECK (kind = 'org' OR (legal_name IS NULL AND website IS NULL AND domain IS NULL)),
  CHECK ((status = 'merged') = (merged_into IS NOT NULL))
);
CREATE INDEX directory_parties_by_name ON directory_parties (org_id, kind, status, lower(display_name), party_id);
CREATE INDEX directory_parties_by_update ON directory_parties (org_id, kind, updated_at, party_id);
CREATE INDEX directory_parties_fold ON directory_parties (org_id, kind, name_fold);
CREATE INDEX directory_parties_domain ON directory_parties (org_id, domain) WHERE domain IS NOT NULL;
CREATE INDEX directory_parties_employer ON directory_parties (org_id, employer_id) WHERE employer_id IS NOT NULL;
CREATE INDEX directory_parties_merged_into ON directory_parties (org_id, merged_into) WHERE merged_into IS NOT NULL;
-- The two search indexes (the only GIN indexes of the table: tests/db/search.test.ts checks exactly these).
CREATE INDEX directory_parties_search_doc ON directory_parties USING gin (org_id, search_doc);
CREATE INDEX directory_parties_search_fuzzy ON directory_parties USING gin (org_id, search_fuzzy gin_trgm_ops);

-- An organisation's registry numbers (abn, acn, vat, ein, lei, …), normalised (upper case, no spaces or dots).
-- Not unique: imports may bring two records with one number, which dedupe then proposes to merge.
CREATE TABLE directory_identifiers (
  org_id text NOT NULL,
  party_id text NOT NULL,
  scheme text NOT NULL CHECK (scheme ~ '^[a-z][a-z0-9_]{0,19}$'),
  value text NOT NULL,
  PRIMARY KEY (org_id, party_id, scheme),
  FOREIGN KEY (org_id, party_id) REFERENCES directory_parties (org_id, party_id)
);
CREATE INDEX directory_identifiers_value ON directory_identifiers (org_id, scheme, value);

-- Ways to reach a party. `key` is what matching compares: the email key (domain/directory/normalise.ts), E.164,
-- or service:handle. One primary per kind among the active channels; a removed channel stays, as history.
CREATE TABLE directory_channels (
  org_id text NOT NULL,
  channel_id text NOT NULL,
  party_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('email', 'phone', 'im')),
  service text,
  value text NOT NULL,
  key text NOT NULL,
  -- An email's registrable domain (dedupe by company domain).
  domain text,
  label text,
  is_primary boolean NOT NULL DEFAULT false,
  source text NOT NULL CHECK (source IN ('manual', 'contact', 'contacts', 'capture', 'import', 'merge')),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'removed')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Insertion order ("the next oldest" becomes primary): channels added in one call share created_at.
  n bigint GENERATED ALWAYS AS IDENTITY,
  removed_at timestamptz,
  PRIMARY KEY (org_id, channel_id),
  FOREIGN KEY (org_id, party_id) REFERENCES directory_parties (org_id, party_id),
  CHECK ((kind = 'im') = (service IS NOT NULL)),
  CHECK (status = 'active' OR NOT is_primary)
);
CREATE UNIQUE INDEX directory_channels_primary ON directory_channels (org_id, party_id, kind) WHERE is_primary;
CREATE UNIQUE INDEX directory_channels_held ON directory_channels (org_id, party_id, kind, key) WHERE status = 'active';
CREATE INDEX directory_channels_key ON directory_channels (org_id, kind, key) WHERE status = 'active';
CREATE INDEX directory_channels_domain ON directory_channels (org_id, domain) WHERE status = 'active' AND domain IS NOT NULL;
CREATE INDEX directory_channels_party ON directory_channels (org_id, party_id, kind, n);

-- Relations between parties, named one way (from -> to); ended links stay as history.
CREATE TABLE directory_links (
  org_id text NOT NULL,
  link_id text NOT NULL,
  from_id text NOT NULL,
  to_id text NOT NULL,
  relation text NOT NULL CHECK (relation IN ('works_at', 'reports_to', 'assistant_of', 'client_of', 'subsidiary_of', 'partner_of')),
  role text,
  is_primary boolean NOT NULL DEFAULT false,
  since date,
  until date,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'ended')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  ended_at timestamptz,
  PRIMARY KEY (org_id, link_id),
  FOREIGN KEY (org_id, from_id) REFERENCES directory_parties (org_id, party_id),
  FOREIGN KEY (org_id, to_id) REFERENCES directory_parties (org_id, party_id),
  CHECK (from_id <> to_id),
  CHECK (relation = 'works_at' OR NOT is_primary),
  CHECK (status = 'active' OR NOT is_primary)
);
CREATE UNIQUE INDEX directory_links_open ON directory_links (org_id, from_id, relation, to_id) WHERE status = 'active';
CREATE UNIQUE INDEX directory_links_primary_employer ON directory_links (org_id, from_id) WHERE relation = 'works_at' AND is_primary;
CREATE INDEX directory_links_to ON directory_links (org_id, to_id, relation) WHERE status = 'active';
CREATE INDEX directory_links_from ON directory_links (org_id, from_id, relation) WHERE status = 'active';

-- Lists: static (members below) or dynamic (a filter of the listing's fields).
CREATE TABLE directory_lists (
  org_id text NOT NULL REFERENCES orgs(org_id),
  list_id text NOT NULL,
  name text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('static', 'dynamic')),
  filter jsonb,
  visibility text NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'shared', 'workspace')),
  owner_id text NOT NULL,
  version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, list_id),
  CHECK ((kind = 'dynamic') = (filter IS NOT NULL))
);
CREATE INDEX directory_lists_owner ON directory_lists (org_id, owner_id);

CREATE TABLE directory_list_members (
  org_id text NOT NULL,
  list_id text NOT NULL,
  party_id text NOT NULL,
  added_by text NOT NULL,
  added_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, list_id, party_id),
  FOREIGN KEY (org_id, list_id) REFERENCES directory_lists (org_id, list_id),
  FOREIGN KEY (org_id, party_id) REFERENCES directory_parties (org_id, party_id)
);
CREATE INDEX directory_list_members_party ON directory_list_members (org_id, party_id);

CREATE TABLE directory_list_grants (
  org_id text NOT NULL,
  list_id text NOT NULL,
  principal_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('viewer', 'editor')),
  granted_by text NOT NULL,
  granted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, list_id, principal_id),
  FOREIGN KEY (org_id, list_id) REFERENCES directory_lists (org_id, list_id)
);
CREATE INDEX directory_list_grants_principal ON directory_list_grants (org_id, principal_id);

-- Parties an agent or a rule saw (in a message, a mail, a meeting, a file), waiting for a human or a rule to
-- accept them. `identity` is the strongest key of the proposal (an email key, an E.164, else the folded name
-- with the employer's): one pending capture per identity absorbs repeats (sightings), a rejected one stays.
CREATE TABLE directory_captures (
  org_id text NOT NULL REFERENCES orgs(org_id),
  capture_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('person', 'org')),
  fields jsonb NOT NULL,
  channels jsonb NOT NULL DEFAULT '[]',
  employer_name text,
  -- [{source, ref, snippet <= 280}]; snippets are erased when the capture is resolved.
  evidence jsonb NOT NULL DEFAULT '[]',
  identity text,
  match_party_id text,
  match_score integer,
  match_reasons jsonb NOT NULL DEFAULT '[]',
  sightings integer NOT NULL DEFAULT 1,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'rejected')),
  resolution text CHECK (resolution IN ('created', 'attached')),
  party_id text,
  proposed_by text NOT NULL,
  resolved_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  PRIMARY KEY (org_id, capture_id),
  CHECK ((status = 'accepted') = (resolution IS NOT NULL))
);
CREATE UNIQUE INDEX directory_captures_pending ON directory_captures (org_id, identity) WHERE status = 'pending';
CREATE INDEX directory_captures_identity ON directory_captures (org_id, identity, status);
CREATE INDEX directory_captures_by_status ON directory_captures (org_id, status, created_at, capture_id);
CREATE INDEX directory_captures_party ON directory_captures (org_id, party_id) WHERE party_id IS NOT NULL;

-- Merges: proposed -> executed -> reverted, or proposed -> dismissed (a dismissed pair is not proposed again).
CREATE TABLE directory_merges (
  org_id text NOT NULL REFERENCES orgs(org_id),
  merge_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('person', 'org')),
  survivor_id text NOT NULL,
  merged_id text NOT NULL,
  score integer NOT NULL,
  reasons jsonb NOT NULL DEFAULT '[]',
  field_choices jsonb NOT NULL DEFAULT '{}',
  preview jsonb,
  status text NOT NULL DEFAULT 'proposed' CHECK (status IN ('proposed', 'executed', 'reverted', 'dismissed')),
  -- The versions the proposal was made against (edited since -> CONFLICT at execution).
  survivor_version integer NOT NULL,
  merged_version integer NOT NULL,
  proposed_by text NOT NULL,
  decided_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  executed_at timestamptz,
  reverted_at timestamptz,
  dismissed_at timestamptz,
  PRIMARY KEY (org_id, merge_id),
  FOREIGN KEY (org_id, survivor_id) REFERENCES directory_parties (org_id, party_id),
  FOREIGN KEY (org_id, merged_id) REFERENCES directory_parties (org_id, party_id),
  CHECK (survivor_id <> merged_id)
);
CREATE UNIQUE INDEX directory_merges_open_pair ON directory_merges (org_id, least(survivor_id, merged_id), greatest(survivor_id, merged_id))
  WHERE status = 'proposed';
CREATE INDEX directory_merges_pair ON directory_merges (org_id, least(survivor_id, merged_id), greatest(survivor_id, merged_id), status);
CREATE INDEX directory_merges_survivor ON directory_merges (org_id, survivor_id);
CREATE INDEX directory_merges_merged ON directory_merges (org_id, merged_id);
CREATE INDEX directory_merges_by_status ON directory_merges (org_id, status, created_at, merge_id);

-- What an executed merge changed, in order: a revert runs it backwards where a value is still the merge's.
-- op update: one column of one row (row_key = the row's primary key columns, without org_id); insert/delete:
-- a whole row (column_name NULL, the row as jsonb in after/before).
CREATE TABLE directory_merge_changes (
  org_id text NOT NULL,
  merge_id text NOT NULL,
  n integer NOT NULL,
  table_name text NOT NULL,
  row_key jsonb NOT NULL,
  column_name text,
  op text NOT NULL CHECK (op IN ('update', 'insert', 'delete')),
  before jsonb,
  after jsonb,
  PRIMARY KEY (org_id, merge_id, n),
  FOREIGN KEY (org_id, merge_id) REFERENCES directory_merges (org_id, merge_id),
  CHECK ((op = 'update') = (column_name IS NOT NULL))
);

-- Who in the company knows a party, and how well. `level` NULL: cleared (or only interactions seen);
-- level_source says whether a person declared it (setAwareness) or other families derived it (touchAwareness).
CREATE TABLE directory_awareness (
  org_id text NOT NULL,
  awareness_id text NOT NULL,
  party_id text NOT NULL,
  principal_id text NOT NULL,
  level text CHECK (level IN ('knows_of', 'met', 'works_with', 'close')),
  level_source text CHECK (level_source IN ('declared', 'derived')),
  last_interaction_at timestamptz,
  interactions integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, awareness_id),
  FOREIGN KEY (org_id, party_id) REFERENCES directory_parties (org_id, party_id)
);
CREATE UNIQUE INDEX directory_awareness_pair ON directory_awareness (org_id, party_id, principal_id);
CREATE INDEX directory_awareness_principal ON directory_awareness (org_id, principal_id);

-- Asking a colleague to introduce or brief on a party.
CREATE TABLE directory_awareness_requests (
  org_id text NOT NULL,
  request_id text NOT NULL,
  party_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('introduce', 'brief')),
  requester_id text NOT NULL,
  target_id text NOT NULL,
  note text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'done', 'declined', 'cancelled')),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  PRIMARY KEY (org_id, request_id),
  FOREIGN KEY (org_id, party_id) REFERENCES directory_parties (org_id, party_id)
);
CREATE INDEX directory_awareness_requests_target ON directory_awareness_requests (org_id, target_id, status);
CREATE INDEX directory_awareness_requests_requester ON directory_awareness_requests (org_id, requester_id, status);
CREATE INDEX directory_awareness_requests_party ON directory_awareness_requests (org_id, party_id);
