-- tables: books: books_contact_roles, books_contacts
-- tables: directory: directory_books_imports
-- Books contacts become the finance role of a directory party (WORKSPACE.md 1: one person, one record). Each
-- contact con_X becomes an organisation party co_X (the same 16 characters) with its ABN as an identifier and its
-- email as the primary channel. The contact row keeps its con_ id (posted journals and ledger payloads cite it),
-- its customer/supplier flags and approved bank details, and gains party_id; the name, email and ABN now live on
-- the party only. The table is renamed books_contact_roles and books_contacts becomes a view with the old columns,
-- so every books read (and any operator's query) reads what it read before: no copy to keep in sync, and a
-- directory rename or merge shows in books at once.
-- What needs the application (the email keys of its normalisers, dedupe scores, the ledger event of the import)
-- is left in directory_books_imports and done at the first start (domain/directory/books-import.ts).

ALTER TABLE directory_parties DROP CONSTRAINT directory_parties_origin_check;
-- books: made by a books document naming a payee or supplier no party had (domain/books/contacts.ts).
ALTER TABLE directory_parties ADD CONSTRAINT directory_parties_origin_check
  CHECK (origin IN ('manual', 'contact', 'contacts', 'capture', 'import', 'books'));

ALTER TABLE books_contacts RENAME TO books_contact_roles;
ALTER TABLE books_contact_roles RENAME CONSTRAINT books_contacts_pkey TO books_contact_roles_pkey;
ALTER TABLE books_contact_roles ADD COLUMN party_id text;

INSERT INTO directory_parties (org_id, party_id, kind, display_name, origin, created_by, created_at, updated_at)
SELECT org_id, 'co_' || substr(contact_id, 5), 'org', name, 'import', '', created_at, created_at FROM books_contact_roles;

-- ABNs as the directory compares them (normaliseIdentifier: no spaces, dots, dashes or slashes).
INSERT INTO directory_identifiers (org_id, party_id, scheme, value)
SELECT org_id, 'co_' || substr(contact_id, 5), 'abn', upper(regexp_replace(abn, '[[:space:]./-]', '', 'g'))
  FROM books_contact_roles WHERE regexp_replace(coalesce(abn, ''), '[[:space:]./-]', '', 'g') <> '';

-- Keys lower-cased here; the first start recomputes them with the application's normalisers (provider rules,
-- registrable domains).
INSERT INTO directory_channels (org_id, channel_id, party_id, kind, value, key, domain, is_primary, source, created_by, created_at)
SELECT org_id, 'chn_' || substr(contact_id, 5), 'co_' || substr(contact_id, 5), 'email', btrim(email), lower(btrim(email)),
       nullif(lower(split_part(btrim(email), '@', 2)), ''), true, 'import', '', created_at
  FROM books_contact_roles WHERE btrim(coalesce(email, '')) <> '';

UPDATE books_contact_roles SET party_id = 'co_' || substr(contact_id, 5);
ALTER TABLE books_contact_roles ALTER COLUMN party_id SET NOT NULL;
ALTER TABLE books_contact_roles ADD CONSTRAINT books_contact_roles_party
  FOREIGN KEY (org_id, party_id) REFERENCES directory_parties (org_id, party_id);
CREATE INDEX books_contact_roles_by_party ON books_contact_roles (org_id, party_id);

-- One org needing its first-start step per row; appended_seq records the directory.import.books event.
CREATE TABLE directory_books_imports (
  org_id text NOT NULL REFERENCES orgs(org_id),
  contacts integer NOT NULL,
  appended_seq bigint,
  PRIMARY KEY (org_id)
);
INSERT INTO directory_books_imports (org_id, contacts) SELECT org_id, count(*) FROM books_contact_roles GROUP BY org_id;

-- The name key (one contact per name) goes with the name; finding a contact by name is the directory's now.
ALTER TABLE books_contact_roles DROP COLUMN name_key;
ALTER TABLE books_contact_roles DROP COLUMN name;
ALTER TABLE books_contact_roles DROP COLUMN email;
ALTER TABLE books_contact_roles DROP COLUMN abn;

-- The old columns, in their old order: name, email and ABN from the party (its primary email, its ABN).
CREATE VIEW books_contacts AS
SELECT r.org_id, r.contact_id, r.n, p.display_name AS name,
       lower(regexp_replace(regexp_replace(p.display_name, '^[[:space:]]+|[[:space:]]+$', '', 'g'), '[[:space:]]+', ' ', 'g')) AS name_key,
       (SELECT c.value FROM directory_channels c
         WHERE c.org_id = r.org_id AND c.party_id = r.party_id AND c.kind = 'email' AND c.is_primary) AS email,
       (SELECT i.value FROM directory_identifiers i WHERE i.org_id = r.org_id AND i.party_id = r.party_id AND i.scheme = 'abn') AS abn,
       r.bank_bsb, r.bank_account, r.bank_account_name, r.is_customer, r.is_supplier, r.created_at, r.party_id
  FROM books_contact_roles r
  JOIN directory_parties p ON p.org_id = r.org_id AND p.party_id = r.party_id;
