-- tables: people: pairing_limits
-- What an anonymous caller may cost (pairing.request): fixed-window counters shared by every server process.
-- A bucket is `addr:` or `org:` and an HMAC (instance key) of the source address or the org slug asked for,
-- so neither addresses nor slugs are stored; a row lives until its window ends and is then deleted.
CREATE TABLE pairing_limits (
  bucket text NOT NULL,
  window_no bigint NOT NULL,
  hits integer NOT NULL,
  until timestamptz NOT NULL,
  PRIMARY KEY (bucket, window_no)
);
CREATE INDEX pairing_limits_until ON pairing_limits (until);

-- The pending cap counts an org's open pairings.
CREATE INDEX pairings_pending ON pairings (org_id, expires_at) WHERE status = 'pending';
