-- tables: messaging: calls, call_participants, call_recordings, call_transcript_lines, call_reaction_limits
-- Calling (messaging.md): a call is a huddle in a channel, its participants, recordings and transcript lines.
-- Titles, reactions' emoji, speaker labels and transcript text live only in these rows, never in the ledger.

CREATE TABLE calls (
  org_id text NOT NULL REFERENCES orgs(org_id),
  call_id text NOT NULL,
  channel_id text NOT NULL,
  -- The call's root message (kind call): its thread is the in-call chat; at the end its text becomes a summary.
  root_message_id text NOT NULL,
  title text,
  status text NOT NULL CHECK (status IN ('live', 'ended')),
  host_id text NOT NULL,
  started_by text NOT NULL,
  locked boolean NOT NULL DEFAULT false,
  -- The seq of the call's latest transcript line (lines are numbered under this row's lock).
  last_line_seq integer NOT NULL DEFAULT 0,
  started_at timestamptz NOT NULL,
  ended_at timestamptz,
  ended_by text,
  PRIMARY KEY (org_id, call_id),
  FOREIGN KEY (org_id, channel_id) REFERENCES channels (org_id, channel_id),
  FOREIGN KEY (org_id, root_message_id) REFERENCES messages (org_id, message_id),
  CHECK ((status = 'ended') = (ended_at IS NOT NULL))
);
-- At most one live call per channel.
CREATE UNIQUE INDEX calls_live_in_channel ON calls (org_id, channel_id) WHERE status = 'live';
CREATE INDEX calls_by_channel ON calls (org_id, channel_id, started_at);
-- LiveKit's webhooks name only the room (= the call id, random and never reused): the one lookup that finds the org.
CREATE INDEX calls_by_room ON calls (call_id);

CREATE TABLE call_participants (
  org_id text NOT NULL REFERENCES orgs(org_id),
  call_id text NOT NULL,
  principal_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('host', 'attendee')),
  -- invited: may join (even a locked call, even after a removal); joined: in it; left or removed: out of it.
  state text NOT NULL CHECK (state IN ('invited', 'joined', 'left', 'removed')),
  -- Channel observers join without publishing (LiveKit canPublish false).
  can_publish boolean NOT NULL DEFAULT true,
  muted boolean NOT NULL DEFAULT false,
  -- Raised hands are answered first come, first served: hand_seq is the order (taken under the call's lock).
  hand_raised_at timestamptz,
  hand_seq integer,
  last_reaction text,
  last_reaction_at timestamptz,
  invited_by text,
  invited_at timestamptz,
  joined_at timestamptz,
  left_at timestamptz,
  removed_by text,
  PRIMARY KEY (org_id, call_id, principal_id),
  FOREIGN KEY (org_id, call_id) REFERENCES calls (org_id, call_id)
);
-- A host is one of the call's participants; exactly one at a time.
CREATE UNIQUE INDEX call_participants_one_host ON call_participants (org_id, call_id) WHERE role = 'host';

CREATE TABLE call_recordings (
  org_id text NOT NULL REFERENCES orgs(org_id),
  recording_id text NOT NULL,
  call_id text NOT NULL,
  -- starting: asked of LiveKit's egress; active: recording (record only: at once); stopped; ready or failed (webhook).
  status text NOT NULL CHECK (status IN ('starting', 'active', 'stopped', 'ready', 'failed')),
  started_by text NOT NULL,
  -- The approval an agent's recording held for (calling.recording_start).
  approval_id text,
  egress_id text,
  started_at timestamptz NOT NULL,
  stopped_at timestamptz,
  stopped_by text,
  ready_at timestamptz,
  -- The egress's file: its id once files keep recordings, its location and size as LiveKit reported them.
  file_id text,
  file_location text,
  file_size bigint,
  duration_ms bigint,
  failure text,
  PRIMARY KEY (org_id, recording_id),
  FOREIGN KEY (org_id, call_id) REFERENCES calls (org_id, call_id)
);
-- One recording running per call.
CREATE UNIQUE INDEX call_recordings_running ON call_recordings (org_id, call_id) WHERE status IN ('starting', 'active');
CREATE INDEX call_recordings_by_call ON call_recordings (org_id, call_id, started_at);

CREATE TABLE call_transcript_lines (
  org_id text NOT NULL REFERENCES orgs(org_id),
  line_id text NOT NULL,
  call_id text NOT NULL,
  line_seq integer NOT NULL,
  -- A member speaking, or a label for anyone else (a guest, "Speaker 2").
  speaker_id text,
  speaker_label text,
  text text NOT NULL,
  start_ms bigint NOT NULL CHECK (start_ms >= 0),
  end_ms bigint NOT NULL,
  added_by text NOT NULL,
  added_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, line_id),
  FOREIGN KEY (org_id, call_id) REFERENCES calls (org_id, call_id),
  CHECK (num_nonnulls(speaker_id, speaker_label) = 1),
  CHECK (start_ms <= end_ms)
);
CREATE UNIQUE INDEX call_transcript_lines_seq ON call_transcript_lines (org_id, call_id, line_seq);
-- The same speaker at the same start is the same line (a retried add changes nothing).
CREATE UNIQUE INDEX call_transcript_lines_once ON call_transcript_lines (org_id, call_id, (coalesce(speaker_id, 'label:' || speaker_label)), start_ms);
CREATE INDEX call_transcript_lines_order ON call_transcript_lines (org_id, call_id, start_ms, line_seq);

-- calling.react's limit (more than 5 a second per caller is RATE_LIMITED): per-second counters, counted outside the
-- call's transaction so refused calls count too; a sliding estimate weighs the previous second by what is left of it.
-- Only a caller's current and previous seconds are kept.
CREATE TABLE call_reaction_limits (
  org_id text NOT NULL REFERENCES orgs(org_id),
  principal_id text NOT NULL,
  window_no bigint NOT NULL,
  hits integer NOT NULL,
  PRIMARY KEY (org_id, principal_id, window_no)
);
