-- tables: books: books_settings, books_counters, books_contacts, books_journals, books_journal_lines, books_payments
-- Books core: policy, document counters, contacts, the general ledger (journals and their lines), payments.
-- The chart of accounts is code (domain/books/chart.ts): no method creates accounts.

-- A refused signature act (PB-B1) is recorded as held without a ledger event.
ALTER TABLE signature_holds ALTER COLUMN seq DROP NOT NULL;

-- Per-org books policy, one row per org from its creation. Every posting holds the row FOR SHARE while it
-- checks the lock date; a BAS lodgement takes it FOR UPDATE before it recomputes the figures it locks.
CREATE TABLE books_settings (
  org_id text PRIMARY KEY REFERENCES orgs(org_id),
  materiality_floor_cents bigint NOT NULL DEFAULT 500000 CHECK (materiality_floor_cents >= 0),
  -- Journals dated on or before this date are refused (set by a lodged BAS).
  lock_date date,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO books_settings (org_id) SELECT org_id FROM orgs;

CREATE FUNCTION books_settings_for_new_org() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO books_settings (org_id) VALUES (NEW.org_id);
  RETURN NULL;
END;
$$;
CREATE TRIGGER orgs_books_settings AFTER INSERT ON orgs FOR EACH ROW EXECUTE FUNCTION books_settings_for_new_org();

-- Gapless per-org document numbers (INV-0001, CN-0001, ...), taken under the row lock.
CREATE TABLE books_counters (
  org_id text NOT NULL REFERENCES orgs(org_id),
  name text NOT NULL,
  value bigint NOT NULL,
  PRIMARY KEY (org_id, name)
);

CREATE TABLE books_contacts (
  org_id text NOT NULL REFERENCES orgs(org_id),
  contact_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  name text NOT NULL,
  -- lower-cased, whitespace-collapsed name: one contact per name.
  name_key text NOT NULL,
  email text,
  abn text,
  -- The payee bank details last approved by a human (a bill with other details is NEW PAYEE).
  bank_bsb text,
  bank_account text,
  bank_account_name text,
  is_customer boolean NOT NULL DEFAULT false,
  is_supplier boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, contact_id),
  UNIQUE (org_id, name_key)
);

-- Posted journals never change: fixes are reversals (a new journal with reverses = the original).
CREATE TABLE books_journals (
  org_id text NOT NULL REFERENCES orgs(org_id),
  journal_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  date date NOT NULL,
  narration text NOT NULL,
  -- What posted it: invoice, credit_note, payment, bill, claim, feed_line, recode, manual, pay_run, tax, depreciation, disposal...
  source_kind text NOT NULL,
  source_id text NOT NULL,
  reverses text,
  posted_by text NOT NULL,
  posted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, journal_id)
);
CREATE INDEX books_journals_by_source ON books_journals (org_id, source_kind, source_id);
CREATE INDEX books_journals_by_date ON books_journals (org_id, date);

-- Debits positive, credits negative. tax_cents is the GST that belongs to this line's supply and is posted
-- on account 820 in the same journal; BAS labels are derived from (account, tax_code, amount, tax_cents).
CREATE TABLE books_journal_lines (
  org_id text NOT NULL,
  journal_id text NOT NULL,
  line_no int NOT NULL,
  account_code text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents <> 0),
  tax_code text,
  tax_cents bigint NOT NULL DEFAULT 0,
  contact_id text,
  description text NOT NULL DEFAULT '',
  PRIMARY KEY (org_id, journal_id, line_no),
  FOREIGN KEY (org_id, journal_id) REFERENCES books_journals (org_id, journal_id)
);
CREATE INDEX books_journal_lines_by_account ON books_journal_lines (org_id, account_code);

CREATE FUNCTION books_posted_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'posted journals never change (% on % refused); post a reversal', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER books_journals_immutable BEFORE UPDATE OR DELETE ON books_journals
  FOR EACH ROW EXECUTE FUNCTION books_posted_immutable();
CREATE TRIGGER books_journal_lines_immutable BEFORE UPDATE OR DELETE ON books_journal_lines
  FOR EACH ROW EXECUTE FUNCTION books_posted_immutable();

-- Double entry, enforced by the database at commit: every journal has >= 2 lines summing to exactly 0.
CREATE FUNCTION books_journal_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  total bigint;
  lines int;
BEGIN
  SELECT coalesce(sum(amount_cents), 0), count(*) INTO total, lines
    FROM books_journal_lines WHERE org_id = NEW.org_id AND journal_id = NEW.journal_id;
  IF total <> 0 OR lines < 2 THEN
    RAISE EXCEPTION 'journal % is unbalanced (% lines summing to %)', NEW.journal_id, lines, total
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END;
$$;
CREATE CONSTRAINT TRIGGER books_journal_balanced AFTER INSERT ON books_journal_lines
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION books_journal_balanced();

-- Money received or paid against a document (invoice, bill, expense claim, pay run).
CREATE TABLE books_payments (
  org_id text NOT NULL REFERENCES orgs(org_id),
  payment_id text NOT NULL,
  n bigint GENERATED ALWAYS AS IDENTITY,
  doc_kind text NOT NULL CHECK (doc_kind IN ('invoice', 'bill', 'claim', 'pay_run')),
  doc_id text NOT NULL,
  amount_cents bigint NOT NULL CHECK (amount_cents > 0),
  date date NOT NULL,
  journal_id text NOT NULL,
  -- How the money moved: a reconciled bank feed line or a scheduled payment run, when known.
  feed_line_id text,
  payment_run_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, payment_id)
);
CREATE INDEX books_payments_by_doc ON books_payments (org_id, doc_kind, doc_id);
