-- tables: people: personas
-- Personas (people.md: an agent's mandate compiled into one bounded prompt block). One row per agent that has
-- one; the agent's member row is its principal (agt_). version counts edits of the fields; compiled_version is
-- the version the stored prompt was compiled from, so prompt_stale is version > compiled_version.
CREATE TABLE personas (
  org_id text NOT NULL,
  agent_id text NOT NULL,
  role text NOT NULL,
  goal text NOT NULL,
  backstory text,
  instructions text[] NOT NULL DEFAULT '{}',
  tone text,
  toolsets text[] NOT NULL DEFAULT '{}',
  prompt text NOT NULL CHECK (char_length(prompt) <= 10000),
  prompt_hash text NOT NULL,
  -- How the stored prompt was made: the deterministic template, or a model's rewrite through the AI gateway.
  prompt_source text NOT NULL DEFAULT 'template' CHECK (prompt_source IN ('template', 'model')),
  version integer NOT NULL DEFAULT 1 CHECK (version >= 1),
  compiled_version integer NOT NULL DEFAULT 1,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (org_id, agent_id),
  FOREIGN KEY (org_id, agent_id) REFERENCES principals (org_id, principal_id),
  CHECK (compiled_version <= version)
);
