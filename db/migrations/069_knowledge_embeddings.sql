-- tables: knowledge: knowledge_embeddings
-- Hybrid knowledge search (docs/families/knowledge.md, Hybrid search): one embedding per entry, of its words
-- (body_hash: a rewrite that changes them is re-embedded, a verification is not), by the configured model. Stored
-- as real[] so this migration runs where the vector extension is not available (PostgreSQL without pgvector, PGlite
-- without the extension loaded); where it is, a start-up step creates the extension and an HNSW index on
-- embedding::vector(dims) for the configured dimensions (decision 0069).
CREATE TABLE knowledge_embeddings (
  org_id text NOT NULL,
  entry_id text NOT NULL,
  revision integer NOT NULL,
  body_hash text NOT NULL,
  model text NOT NULL,
  dims integer NOT NULL CHECK (dims BETWEEN 1 AND 2000),
  embedding real[] NOT NULL CHECK (cardinality(embedding) = dims),
  embedded_at timestamptz NOT NULL,
  PRIMARY KEY (org_id, entry_id),
  FOREIGN KEY (org_id, entry_id) REFERENCES knowledge_entries (org_id, entry_id)
);

-- A search says which mode ran: hybrid only when vectors took part.
ALTER TABLE knowledge_searches DROP CONSTRAINT knowledge_searches_mode_check;
ALTER TABLE knowledge_searches ADD CONSTRAINT knowledge_searches_mode_check CHECK (mode IN ('fulltext', 'hybrid'));
