-- tables: messaging: channels, channel_members
-- tables: messaging: messages, message_revisions, message_reactions, channel_bookmarks, message_polls
-- tables: messaging: message_poll_options, message_poll_votes
-- Messaging (messaging.md): channels and their members, messages with revisions, reactions, bookmarks and polls.
-- Bodies, titles, topics, emoji and poll texts live only in these rows, never in the ledger. Nothing is counted in
-- a stored counter except a channel's last_seq (the next message's seq): unread and mention counts are read from
-- the rows, so a delete never skews them.

CREATE TABLE channels (
  org_id text NOT NULL REFERENCES orgs(org_id),
  channel_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('public', 'private', 'dm', 'group')),
  -- public and private channels have a name; DMs and group conversations have none (a group may have a title).
  name text CHECK (name IS NULL OR name ~ '^[a-z0-9][a-z0-9_-]{0,79}$'),
  title text,
  topic text NOT NULL DEFAULT '',
  posting_policy text NOT NULL DEFAULT 'everyone' CHECK (posting_policy IN ('everyone', 'admins')),
  -- A DM's member set, sorted and joined: the one DM of that set.
  dm_key text,
  -- The seq of the channel's latest posted message; a post takes last_seq + 1 under this row's lock.
  last_seq bigint NOT NULL DEFAULT 0,
  archived_at timestamptz,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, channel_id),
  CHECK ((kind IN ('public', 'private')) = (name IS NOT NULL)),
  CHECK ((kind = 'dm') = (dm_key IS NOT NULL)),
  CHECK (kind <> 'dm' OR archived_at IS NULL)
);
-- A name is unique while its channel is live; an archived channel's name may be taken again.
CREATE UNIQUE INDEX channels_live_name ON channels (org_id, name) WHERE name IS NOT NULL AND archived_at IS NULL;
CREATE UNIQUE INDEX channels_dm_key ON channels (org_id, dm_key) WHERE dm_key IS NOT NULL;
CREATE INDEX channels_by_name ON channels (org_id, name, channel_id);

CREATE TABLE channel_members (
  org_id text NOT NULL REFERENCES orgs(org_id),
  channel_id text NOT NULL,
  principal_id text NOT NULL,
  role text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'observer')),
  -- One read marker per member (Zulip, Mattermost's LastViewedAt): everything at or below it is read.
  last_read_seq bigint NOT NULL DEFAULT 0,
  added_by text NOT NULL,
  added_at timestamptz NOT NULL,
  removed_at timestamptz,
  PRIMARY KEY (org_id, channel_id, principal_id),
  FOREIGN KEY (org_id, channel_id) REFERENCES channels (org_id, channel_id)
);
-- messaging.channels: a principal's live memberships.
CREATE INDEX channel_members_by_principal ON channel_members (org_id, principal_id, channel_id) WHERE removed_at IS NULL;

CREATE TABLE messages (
  org_id text NOT NULL REFERENCES orgs(org_id),
  message_id text NOT NULL,
  channel_id text NOT NULL,
  -- Given on posting (scheduled messages have none until their job posts them); kept by a tombstone.
  seq bigint,
  author_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('scheduled', 'posted', 'deleted', 'failed')),
  -- NULL once deleted: the tombstone keeps id, seq and thread, never the words.
  text text,
  -- The thread's root message (a reply's root is never itself a reply).
  thread_id text,
  also_to_channel boolean NOT NULL DEFAULT false,
  -- Principals mentioned with <@usr_…>; mention_channel for <!channel>.
  mentions text[] NOT NULL DEFAULT '{}',
  mention_channel boolean NOT NULL DEFAULT false,
  file_ids text[] NOT NULL DEFAULT '{}',
  artifact_ids text[] NOT NULL DEFAULT '{}',
  -- Board tasks named as <task_…> in the text, checked at send.
  refs text[] NOT NULL DEFAULT '{}',
  -- message: a member's post; call: a call's root message (calling.start); poll: a poll (messaging.createPoll).
  kind text NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'call', 'poll')),
  -- messaging.send's own dedupe key (Matrix's txnId) and the hash of the params it came with.
  idempotency_id text,
  params_hash text,
  post_at timestamptz,
  posted_at timestamptz,
  edited_at timestamptz,
  pinned_at timestamptz,
  pinned_by text,
  deleted_at timestamptz,
  deleted_by text,
  failure text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, message_id),
  FOREIGN KEY (org_id, channel_id) REFERENCES channels (org_id, channel_id),
  CHECK ((status = 'posted') <= (seq IS NOT NULL AND text IS NOT NULL)),
  CHECK ((status = 'scheduled') <= (post_at IS NOT NULL AND seq IS NULL))
);
CREATE UNIQUE INDEX messages_channel_seq ON messages (org_id, channel_id, seq) WHERE seq IS NOT NULL;
CREATE UNIQUE INDEX messages_idempotency ON messages (org_id, channel_id, idempotency_id) WHERE idempotency_id IS NOT NULL;
CREATE INDEX messages_thread ON messages (org_id, thread_id, seq) WHERE thread_id IS NOT NULL;
CREATE INDEX messages_scheduled ON messages (org_id, author_id, post_at) WHERE status = 'scheduled';
CREATE INDEX messages_pinned ON messages (org_id, channel_id, pinned_at) WHERE pinned_at IS NOT NULL;
-- Search ranks the newest matches (domain/messaging/search.ts): a common word walks this index newest first.
CREATE INDEX messages_recent ON messages (org_id, posted_at DESC) WHERE status = 'posted';
-- Full text over the words (tombstones have none), ranked and highlighted by db/search.ts. No trigram column:
-- bodies run to 16,000 characters, and typo matching belongs to short names and titles.
SELECT wops_search_indexes('messages', ARRAY['text'], ARRAY[]::text[], ARRAY[]::text[], ARRAY[]::text[]);

-- Earlier texts of an edited message, newest n last (at most 50 kept); erased with the message.
CREATE TABLE message_revisions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  message_id text NOT NULL,
  n integer NOT NULL,
  text text NOT NULL,
  replaced_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, message_id, n),
  FOREIGN KEY (org_id, message_id) REFERENCES messages (org_id, message_id)
);

CREATE TABLE message_reactions (
  org_id text NOT NULL REFERENCES orgs(org_id),
  message_id text NOT NULL,
  emoji text NOT NULL,
  principal_id text NOT NULL,
  reacted_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, message_id, emoji, principal_id),
  FOREIGN KEY (org_id, message_id) REFERENCES messages (org_id, message_id)
);

CREATE TABLE channel_bookmarks (
  org_id text NOT NULL REFERENCES orgs(org_id),
  bookmark_id text NOT NULL,
  channel_id text NOT NULL,
  title text NOT NULL,
  -- Exactly one target: a message of the channel, a URL or a file.
  message_id text,
  url text,
  file_id text,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL,
  removed_at timestamptz,
  removed_by text,
  PRIMARY KEY (org_id, bookmark_id),
  FOREIGN KEY (org_id, channel_id) REFERENCES channels (org_id, channel_id),
  CHECK (num_nonnulls(message_id, url, file_id) = 1)
);
CREATE INDEX channel_bookmarks_live ON channel_bookmarks (org_id, channel_id, created_at) WHERE removed_at IS NULL;

-- A poll is a message of kind poll; its question is the message's text.
CREATE TABLE message_polls (
  org_id text NOT NULL REFERENCES orgs(org_id),
  message_id text NOT NULL,
  multiple boolean NOT NULL,
  anonymous boolean NOT NULL,
  closes_at timestamptz,
  closed_at timestamptz,
  PRIMARY KEY (org_id, message_id),
  FOREIGN KEY (org_id, message_id) REFERENCES messages (org_id, message_id)
);

CREATE TABLE message_poll_options (
  org_id text NOT NULL REFERENCES orgs(org_id),
  option_id text NOT NULL,
  message_id text NOT NULL,
  position integer NOT NULL,
  text text NOT NULL,
  PRIMARY KEY (org_id, option_id),
  UNIQUE (org_id, message_id, position),
  FOREIGN KEY (org_id, message_id) REFERENCES message_polls (org_id, message_id)
);

CREATE TABLE message_poll_votes (
  org_id text NOT NULL REFERENCES orgs(org_id),
  message_id text NOT NULL,
  option_id text NOT NULL,
  principal_id text NOT NULL,
  voted_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, message_id, option_id, principal_id),
  FOREIGN KEY (org_id, option_id) REFERENCES message_poll_options (org_id, option_id)
);
