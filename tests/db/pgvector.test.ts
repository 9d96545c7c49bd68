import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { openPglite } from '../../db/pglite.js';
import { DEFAULT_TEMPLATE_DIR, ensureTemplate } from '../../db/pglite-template.js';
import { PROJECT_ROOT } from '../../db/project-root.js';
import { migrate } from '../../db/migrate.js';
import { pgliteOnly, testRuntime } from '../helpers/harness.js';

/*
 * @electric-sql/pglite-pgvector pins an older PGlite; package.json's overrides run it on ours. Its extension bundle
 * is inside the npm package (nothing is fetched at run time), it loads only when asked for, and HNSW works on the
 * installed PGlite over the embeddings table of migration 069, indexed as the knowledge family's start-up step does.
 */

const require = createRequire(import.meta.url);
const version = (name: string) =>
  (JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
/** A migrated database from the PGlite template (built on first need), with or without pgvector. */
const open = (vectors = false) => openPglite(undefined, { template: () => ensureTemplate(DEFAULT_TEMPLATE_DIR), vectors });

pgliteOnly('pgvector on PGlite')('pgvector on PGlite', () => {
  it('runs on the installed PGlite (one copy), from the bundle in the package', () => {
    expect(version('@electric-sql/pglite')).toMatch(/^0\.5\./);
    expect(version('@electric-sql/pglite-pgvector')).toBe('0.0.15');
    const pgvectorDir = require.resolve('@electric-sql/pglite-pgvector').replace(/index\.(c?js)$/, '');
    expect(readFileSync(`${pgvectorDir}vector.tar.gz`).length).toBeGreaterThan(10_000);
    const fromPgvector = createRequire(require.resolve('@electric-sql/pglite-pgvector'));
    expect(fromPgvector.resolve('@electric-sql/pglite')).toBe(require.resolve('@electric-sql/pglite'));
  });

  it('is not there unless asked for', async () => {
    const db = await open();
    try {
      expect(await db.query(`SELECT name FROM pg_available_extensions WHERE name = 'vector'`)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('an HNSW index on embedding::vector(n) answers nearest-neighbour queries, the same as an exact scan', async () => {
    const db = await open(true);
    try {
      await migrate(db);
      await db.query('CREATE EXTENSION IF NOT EXISTS vector');
      await db.query(`CREATE INDEX knowledge_embeddings_hnsw_8 ON knowledge_embeddings USING hnsw ((embedding::vector(8)) vector_cosine_ops) WHERE dims = 8`);
      await db.query(`INSERT INTO orgs (org_id, slug, name) VALUES ('org_vec', 'vec', 'Vec')`);
      // 300 entries with deterministic vectors (a sine walk), enough that an index scan beats a sequential one.
      const vec = (i: number) => Array.from({ length: 8 }, (_, d) => Math.sin(i * 0.37 + d * 1.3));
      for (let i = 0; i < 300; i++) {
        await db.query(
          `INSERT INTO knowledge_entries (org_id, entry_id, body, kind, subject_ids, sources, body_hash, verified, author_id, valid_from, recorded_at, updated_at)
           VALUES ('org_vec', $1, 'entry ' || $1, 'fact', '{}', '[]', $1, false, 'usr_x', now(), now(), now())`,
          [`kn_${i}`],
        );
        await db.query(
          `INSERT INTO knowledge_embeddings (org_id, entry_id, revision, body_hash, model, dims, embedding, embedded_at) VALUES ('org_vec', $1, 1, $1, 'm', 8, $2::real[], now())`,
          [`kn_${i}`, vec(i)],
        );
      }
      const probe = `[${vec(123).join(',')}]`;
      const nearest = `SELECT entry_id FROM knowledge_embeddings WHERE dims = 8 ORDER BY embedding::vector(8) <=> $1::vector(8) LIMIT 5`;
      const exact = (await db.query<{ entry_id: string }>(nearest, [probe])).map((r) => r.entry_id);
      const rows = await db.tx(async (q) => {
        await q.query('SET LOCAL enable_seqscan = off');
        const plan = await q.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${nearest}`, [probe]);
        expect(plan.map((p) => p['QUERY PLAN']).join('\n')).toMatch(/Index Scan using knowledge_embeddings_hnsw_8/);
        return q.query<{ entry_id: string }>(nearest, [probe]);
      });
      expect(rows.map((r) => r.entry_id)).toEqual(exact);
      expect(exact[0]).toBe('kn_123');
    } finally {
      await db.close();
    }
  });
});

describe('the embeddings table without pgvector', () => {
  it('migration 069 ran on the test database without the extension (PostgreSQL 15 here, PGlite without it): real[] columns', async () => {
    const runtime = await testRuntime();
    try {
      expect(await runtime.db.query(`SELECT extname FROM pg_extension WHERE extname = 'vector'`)).toEqual([]);
      const [col] = await runtime.db.query<{ data_type: string }>(
        `SELECT data_type FROM information_schema.columns WHERE table_name = 'knowledge_embeddings' AND column_name = 'embedding'`,
      );
      expect(col?.data_type).toBe('ARRAY');
    } finally {
      await runtime.close();
    }
  });
});
