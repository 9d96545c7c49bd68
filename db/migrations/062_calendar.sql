-- tables: calendar: calendars, calendar_events, calendar_attendees, calendar_overrides, calendar_override_responses
-- Calendars and events (docs/families/calendar.md). One calendar per member; events keep their wall-clock start in
-- their own zone and expand their RRULE in wall-clock time, so a weekly 09:00 stays 09:00 across daylight-saving
-- changes. Titles, descriptions, locations and addresses live only in these rows, never in the ledger.

CREATE TABLE calendars (
  org_id text NOT NULL REFERENCES orgs(org_id),
  calendar_id text NOT NULL,
  -- The member (human or agent) whose calendar it is.
  owner_id text NOT NULL,
  -- SHA-256 of the read-only ICS feed's token (shown once); null: no feed.
  feed_token_hash text,
  feed_rotated_at timestamptz,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, calendar_id),
  UNIQUE (org_id, owner_id)
);
-- org_id first, as every tenant index (tests/db/tenancy.test.ts): the feed token names its org, as share tokens do.
CREATE UNIQUE INDEX calendars_feed ON calendars (org_id, feed_token_hash) WHERE feed_token_hash IS NOT NULL;

CREATE TABLE calendar_events (
  org_id text NOT NULL REFERENCES orgs(org_id),
  event_id text NOT NULL,
  calendar_id text NOT NULL,
  -- A member organizes; an event an outsider sent us (an iTIP REQUEST) has organizer_email and no organizer_id.
  organizer_id text,
  organizer_email text,
  title text NOT NULL,
  description text,
  location text,
  all_day boolean NOT NULL DEFAULT false,
  -- Timed: the first occurrence's wall-clock start in time_zone, and its end in end_time_zone. All-day: the dates
  -- (end exclusive), zones null.
  start_local timestamp,
  end_local timestamp,
  time_zone text,
  end_time_zone text,
  start_date date,
  end_date date,
  -- The first occurrence as instants (all-day: midnight UTC of the dates), for ordering and window filters.
  start_at timestamptz NOT NULL,
  end_at timestamptz NOT NULL,
  rrule text,
  -- Wall-clock original starts taken out of the series (EXDATE).
  exdates timestamp[] NOT NULL DEFAULT '{}',
  -- The end of the series' last occurrence; null: it never ends. Lets a window query skip ended series.
  series_end_at timestamptz,
  event_type text NOT NULL DEFAULT 'default' CHECK (event_type IN ('default', 'outOfOffice', 'focusTime')),
  visibility text NOT NULL DEFAULT 'default' CHECK (visibility IN ('default', 'public', 'private')),
  transparency text NOT NULL DEFAULT 'opaque' CHECK (transparency IN ('opaque', 'transparent')),
  status text NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed', 'cancelled')),
  -- RFC 5545 SEQUENCE: raised by every change of time, so attendees' clients take the newer invitation.
  sequence integer NOT NULL DEFAULT 0,
  ical_uid text NOT NULL,
  -- A series split by `following`: the new series names the one it came from.
  split_from text,
  version integer NOT NULL DEFAULT 1,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, event_id),
  FOREIGN KEY (org_id, calendar_id) REFERENCES calendars (org_id, calendar_id),
  CHECK (end_at > start_at),
  CHECK (all_day = (start_date IS NOT NULL))
);
CREATE UNIQUE INDEX calendar_events_uid ON calendar_events (org_id, ical_uid);
CREATE INDEX calendar_events_window ON calendar_events (org_id, calendar_id, start_at);
CREATE INDEX calendar_events_updated ON calendar_events (org_id, updated_at);

-- Who is invited: a member (principal_id), a directory person (person_id) or an address (email). attendee_key is
-- whichever of the three identifies them (an email lower-cased), one row per attendee per event.
CREATE TABLE calendar_attendees (
  org_id text NOT NULL,
  event_id text NOT NULL,
  attendee_key text NOT NULL,
  principal_id text,
  person_id text,
  email text,
  display_name text,
  optional boolean NOT NULL DEFAULT false,
  organizer boolean NOT NULL DEFAULT false,
  response_status text NOT NULL DEFAULT 'needsAction' CHECK (response_status IN ('needsAction', 'accepted', 'declined', 'tentative')),
  responded_at timestamptz,
  PRIMARY KEY (org_id, event_id, attendee_key),
  FOREIGN KEY (org_id, event_id) REFERENCES calendar_events (org_id, event_id)
);
-- Busy lookups (findATime, list of someone's calendar): the events a member attends.
CREATE INDEX calendar_attendees_principal ON calendar_attendees (org_id, principal_id) WHERE principal_id IS NOT NULL;

-- One occurrence of a series changed or cancelled (scope `this`), by its original start. Null columns inherit.
CREATE TABLE calendar_overrides (
  org_id text NOT NULL,
  event_id text NOT NULL,
  original_start timestamptz NOT NULL,
  status text NOT NULL DEFAULT 'confirmed' CHECK (status IN ('confirmed', 'cancelled')),
  start_local timestamp,
  end_local timestamp,
  time_zone text,
  end_time_zone text,
  start_date date,
  end_date date,
  -- The moved occurrence as instants (null: not moved), so a window query finds an occurrence moved out of its series' span.
  start_at timestamptz,
  end_at timestamptz,
  title text,
  description text,
  location text,
  sequence integer NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, event_id, original_start),
  FOREIGN KEY (org_id, event_id) REFERENCES calendar_events (org_id, event_id)
);
CREATE INDEX calendar_overrides_moved ON calendar_overrides (org_id, start_at) WHERE start_at IS NOT NULL;

-- An attendee's answer for one occurrence, where it differs from their answer to the series.
CREATE TABLE calendar_override_responses (
  org_id text NOT NULL,
  event_id text NOT NULL,
  original_start timestamptz NOT NULL,
  attendee_key text NOT NULL,
  response_status text NOT NULL CHECK (response_status IN ('needsAction', 'accepted', 'declined', 'tentative')),
  responded_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, event_id, original_start, attendee_key),
  FOREIGN KEY (org_id, event_id, attendee_key) REFERENCES calendar_attendees (org_id, event_id, attendee_key)
);
