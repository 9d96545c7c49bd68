-- tables: meetings: meetings, meeting_revisions, meeting_attendees, meeting_lines, meeting_decisions, meeting_actions
-- Meetings (docs/families/meetings.md): what was said at a calendar occurrence or a call, its decisions and action
-- items, and the recap filed as a doc. Every amend is a new revision; lines, decisions and actions carry the
-- revisions they belong to (from_revision up to to_revision, null: still current), so an old revision reads as it
-- was and an unchanged line keeps its mtl_ id (recaps and annotations cite it). Titles, notes, transcript text,
-- names, decisions' and actions' words live only in these rows, never in the ledger.

CREATE TABLE meetings (
  org_id text NOT NULL REFERENCES orgs(org_id),
  meeting_id text NOT NULL,
  -- One meeting per occurrence: 'evt:<eventId>@<originalStart ISO>' (a single event: '@'), or 'call:<callId>'.
  occurrence_key text NOT NULL,
  event_id text,
  original_start timestamptz,
  call_id text,
  title text,
  -- Only its attendees (and whoever recorded it) see it: a private event's meeting, or a call outside a public channel.
  private boolean NOT NULL DEFAULT false,
  started_at timestamptz NOT NULL,
  ended_at timestamptz NOT NULL,
  notes text,
  revision integer NOT NULL DEFAULT 1,
  status text NOT NULL DEFAULT 'recorded' CHECK (status IN ('recorded', 'recapped')),
  -- What the search finds: the current notes, lines, decisions and actions (bounded), with the title.
  search_text text NOT NULL DEFAULT '',
  recorded_by text NOT NULL,
  recorded_at timestamptz NOT NULL,
  updated_by text NOT NULL,
  updated_at timestamptz NOT NULL,
  -- The recap doc (fil_), the meeting revision it recaps and its own revision; the recap as filed.
  recap_file_id text,
  recap_of_revision integer,
  recap_file_revision integer,
  recap jsonb,
  PRIMARY KEY (org_id, meeting_id),
  CHECK (ended_at > started_at),
  CHECK ((event_id IS NULL) <> (call_id IS NULL))
);
CREATE UNIQUE INDEX meetings_occurrence ON meetings (org_id, occurrence_key);
CREATE INDEX meetings_started ON meetings (org_id, started_at DESC, meeting_id DESC);
SELECT wops_search_indexes('meetings', ARRAY['title'], ARRAY['search_text'], ARRAY[]::text[], ARRAY[]::text[]);

-- Who recorded each revision, and what it held (counts and the SHA-256 of its content).
CREATE TABLE meeting_revisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  meeting_id text NOT NULL,
  revision integer NOT NULL,
  lines integer NOT NULL,
  decisions integer NOT NULL,
  actions integer NOT NULL,
  content_sha256 text NOT NULL,
  recorded_by text NOT NULL,
  recorded_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, meeting_id, revision),
  FOREIGN KEY (org_id, meeting_id) REFERENCES meetings (org_id, meeting_id)
);

-- The event's or the call's attendees: a member (principal_id), a directory person or an address, with a name.
CREATE TABLE meeting_attendees (
  org_id text NOT NULL,
  meeting_id text NOT NULL,
  attendee_key text NOT NULL,
  principal_id text,
  person_id text,
  email text,
  name text,
  PRIMARY KEY (org_id, meeting_id, attendee_key),
  FOREIGN KEY (org_id, meeting_id) REFERENCES meetings (org_id, meeting_id)
);
CREATE INDEX meeting_attendees_principal ON meeting_attendees (org_id, principal_id, meeting_id) WHERE principal_id IS NOT NULL;

CREATE TABLE meeting_lines (
  org_id text NOT NULL,
  line_id text NOT NULL,
  meeting_id text NOT NULL,
  seq integer NOT NULL,
  -- A member speaking (speaker_id), and the label as given (a name, "Speaker 2").
  speaker_id text,
  speaker text NOT NULL,
  start_ms bigint,
  end_ms bigint,
  text text NOT NULL,
  -- The call's transcript line it was copied from, if any.
  source_line_id text,
  from_revision integer NOT NULL,
  to_revision integer,
  PRIMARY KEY (org_id, line_id),
  FOREIGN KEY (org_id, meeting_id) REFERENCES meetings (org_id, meeting_id)
);
CREATE INDEX meeting_lines_current ON meeting_lines (org_id, meeting_id, seq) WHERE to_revision IS NULL;

-- A decision becomes an unverified knowledge entry (kn_) citing the meeting, once.
CREATE TABLE meeting_decisions (
  org_id text NOT NULL,
  meeting_id text NOT NULL,
  text_sha256 text NOT NULL,
  seq integer NOT NULL,
  text text NOT NULL,
  entry_id text,
  from_revision integer NOT NULL,
  to_revision integer,
  PRIMARY KEY (org_id, meeting_id, text_sha256, from_revision),
  FOREIGN KEY (org_id, meeting_id) REFERENCES meetings (org_id, meeting_id)
);

-- An action item; createTask makes one board task in triage, once per item (an amend keeps the act_ and its task).
CREATE TABLE meeting_actions (
  org_id text NOT NULL,
  action_id text NOT NULL,
  meeting_id text NOT NULL,
  text_sha256 text NOT NULL,
  seq integer NOT NULL,
  text text NOT NULL,
  assignee_id text,
  task_id text,
  from_revision integer NOT NULL,
  to_revision integer,
  PRIMARY KEY (org_id, action_id),
  FOREIGN KEY (org_id, meeting_id) REFERENCES meetings (org_id, meeting_id)
);
CREATE INDEX meeting_actions_current ON meeting_actions (org_id, meeting_id, seq) WHERE to_revision IS NULL;
