-- tables: board: board_workstreams, board_tasks, board_comments, board_attachments, board_links
-- The board family: workstreams, items (tasks, bugs, notes, milestones), comments, attachments, links.
-- org_id is the first column of every key, and every reference stays inside its org.

CREATE TABLE board_workstreams (
  org_id text NOT NULL REFERENCES orgs(org_id),
  workstream_id text NOT NULL,
  name text NOT NULL,
  description text NOT NULL DEFAULT '',
  owner text,
  position integer NOT NULL DEFAULT 0,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, workstream_id),
  FOREIGN KEY (org_id, owner) REFERENCES principals(org_id, principal_id)
);
CREATE INDEX board_workstreams_order ON board_workstreams (org_id, position);

-- A live claim is claimed_by with claim_expires_at in the future; a lapsed one may be taken over.
CREATE TABLE board_tasks (
  org_id text NOT NULL REFERENCES orgs(org_id),
  task_id text NOT NULL,
  type text NOT NULL DEFAULT 'task' CHECK (type IN ('task', 'bug', 'note', 'milestone')),
  title text NOT NULL,
  description text NOT NULL DEFAULT '',
  priority text NOT NULL DEFAULT 'normal' CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  col text NOT NULL DEFAULT 'triage' CHECK (col IN ('triage', 'todo', 'doing', 'blocked', 'done')),
  workstream_id text,
  parent_id text,
  assignee text,
  claimed_by text,
  claim_expires_at timestamptz,
  blocked_reason text,
  position integer NOT NULL DEFAULT 0,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz,
  PRIMARY KEY (org_id, task_id),
  FOREIGN KEY (org_id, workstream_id) REFERENCES board_workstreams(org_id, workstream_id),
  FOREIGN KEY (org_id, parent_id) REFERENCES board_tasks(org_id, task_id),
  FOREIGN KEY (org_id, assignee) REFERENCES principals(org_id, principal_id),
  FOREIGN KEY (org_id, claimed_by) REFERENCES principals(org_id, principal_id),
  CHECK ((claimed_by IS NULL) = (claim_expires_at IS NULL)),
  CHECK ((col = 'blocked') = (blocked_reason IS NOT NULL)),
  CHECK ((col = 'done') = (completed_at IS NOT NULL)),
  CHECK (col NOT IN ('blocked', 'done') OR claimed_by IS NULL)
);
CREATE INDEX board_tasks_by_col ON board_tasks (org_id, col, position);
CREATE INDEX board_tasks_by_workstream ON board_tasks (org_id, workstream_id) WHERE workstream_id IS NOT NULL;
CREATE INDEX board_tasks_by_parent ON board_tasks (org_id, parent_id) WHERE parent_id IS NOT NULL;

-- seq orders a thread and is the paging cursor.
CREATE TABLE board_comments (
  org_id text NOT NULL REFERENCES orgs(org_id),
  comment_id text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  task_id text,
  workstream_id text,
  body text NOT NULL,
  author text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, comment_id),
  FOREIGN KEY (org_id, task_id) REFERENCES board_tasks(org_id, task_id),
  FOREIGN KEY (org_id, workstream_id) REFERENCES board_workstreams(org_id, workstream_id),
  CHECK ((task_id IS NULL) <> (workstream_id IS NULL))
);
CREATE INDEX board_comments_by_task ON board_comments (org_id, task_id, seq) WHERE task_id IS NOT NULL;
CREATE INDEX board_comments_by_workstream ON board_comments (org_id, workstream_id, seq) WHERE workstream_id IS NOT NULL;

CREATE TABLE board_attachments (
  org_id text NOT NULL REFERENCES orgs(org_id),
  attachment_id text NOT NULL,
  seq bigint GENERATED ALWAYS AS IDENTITY,
  task_id text NOT NULL,
  name text NOT NULL,
  url text NOT NULL,
  mime_type text,
  size_bytes bigint,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, attachment_id),
  FOREIGN KEY (org_id, task_id) REFERENCES board_tasks(org_id, task_id)
);
CREATE INDEX board_attachments_by_task ON board_attachments (org_id, task_id, seq);

CREATE TABLE board_links (
  org_id text NOT NULL REFERENCES orgs(org_id),
  link_id text NOT NULL,
  from_task_id text NOT NULL,
  to_task_id text NOT NULL,
  relation text NOT NULL CHECK (relation IN ('blocks', 'relates', 'duplicates')),
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, link_id),
  UNIQUE (org_id, from_task_id, to_task_id, relation),
  FOREIGN KEY (org_id, from_task_id) REFERENCES board_tasks(org_id, task_id),
  FOREIGN KEY (org_id, to_task_id) REFERENCES board_tasks(org_id, task_id),
  CHECK (from_task_id <> to_task_id)
);
CREATE INDEX board_links_to ON board_links (org_id, to_task_id, relation);
