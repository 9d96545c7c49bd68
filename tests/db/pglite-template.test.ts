import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDb } from '../../db/index.js';
import { migrationFiles } from '../../db/migrate.js';
import { buildTemplate, ensureTemplate, readTemplate, templateName } from '../../db/pglite-template.js';
import { createRuntime } from '../../domain/deployed.js';
import { pgliteTemplateCommand } from '../../cli/pglite-template.js';
import { loadConfig } from '../../cli/config.js';
import { openPglite } from '../../db/pglite.js';
import { pgliteOnly } from '../helpers/harness.js';

// New PGlite databases are copies of a migrated empty database; these tests hold that copy to being exactly that.
let work: string;
let templateDir: string;

beforeAll(async () => {
  work = await mkdtemp(path.join(tmpdir(), 'wops-template-test-'));
  templateDir = path.join(work, 'templates');
  const built = await buildTemplate(templateDir);
  expect(built.dataDir).toBe(path.join(templateDir, templateName(), 'pgdata'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const newDir = async (name: string) => path.join(work, name);

pgliteOnly('tests/db/pglite-template')('PGlite template', () => {
  it('is stored under a name keyed by PGlite and the migrations, as a data dir and a tar', async () => {
    expect(templateName()).toMatch(/^pglite-template-[0-9a-f]{16}$/);
    expect(await readdir(templateDir)).toEqual([templateName()]);
    const template = await readTemplate(templateDir);
    expect((await stat(template!.tarFile)).size).toBeGreaterThan(1_000_000);
    expect((await readdir(template!.dataDir)).sort()).toEqual(expect.arrayContaining(['PG_VERSION', 'base', 'global', 'pg_wal']));
  });

  it('gives an in-memory database every migration and no data', async () => {
    const db = await openDb({ inMemory: true, pgliteTemplateDir: templateDir });
    try {
      expect((await db.query('SELECT name FROM schema_migrations')).length).toBe(migrationFiles().length);
      expect(await db.query('SELECT 1 FROM instance_secrets')).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('gives a new data dir every migration and no data: secrets and orgs are made after the copy', async () => {
    const dataDir = await newDir('fresh');
    const notices: string[] = [];
    const db = await openDb({ dataDir, pgliteTemplateDir: templateDir, notice: (m) => notices.push(m) });
    try {
      const applied = (await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name')).map((r) => r.name);
      expect(applied).toEqual(migrationFiles().map((f) => f.name));
      expect(await db.query('SELECT 1 FROM orgs')).toEqual([]);
      expect(await db.query('SELECT 1 FROM instance_secrets')).toEqual([]);
      expect(notices).toEqual([]); // the template was there: nothing was built
    } finally {
      await db.close();
    }
  });

  it('copies are independent databases with their own instance secrets', async () => {
    const [a, b] = [await newDir('a'), await newDir('b')];
    const ra = await createRuntime({ dataDir: a, pgliteTemplateDir: templateDir });
    const rb = await createRuntime({ dataDir: b, pgliteTemplateDir: templateDir });
    try {
      expect(ra.deps.signingKey).toMatch(/^[0-9a-f]{64}$/);
      expect(ra.deps.signingKey).not.toBe(rb.deps.signingKey);
      await ra.db.query("INSERT INTO orgs (org_id, slug, name) VALUES ('org_only_in_a', 'only-in-a', 'A')");
      expect(await rb.db.query("SELECT 1 FROM orgs WHERE slug = 'only-in-a'")).toEqual([]);
    } finally {
      await ra.close();
      await rb.close();
    }
  });

  it('leaves an existing data dir alone: reopening keeps its data and never asks for the template', async () => {
    const dataDir = await newDir('existing');
    const first = await openDb({ dataDir, pgliteTemplateDir: templateDir });
    await first.query("INSERT INTO orgs (org_id, slug, name) VALUES ('org_kept', 'kept', 'Kept')");
    await first.close();
    const missing = path.join(work, 'no-template-here');
    const again = await openDb({ dataDir, pgliteTemplateDir: missing });
    try {
      expect(await again.query("SELECT slug FROM orgs WHERE org_id = 'org_kept'")).toEqual([{ slug: 'kept' }]);
      await expect(readdir(missing)).rejects.toThrow(/ENOENT/); // a restart built no template
    } finally {
      await again.close();
    }
  });

  it('builds again over an incomplete template, and removes templates of other versions', async () => {
    const dir = path.join(work, 'incomplete');
    await mkdir(path.join(dir, templateName(), 'pgdata'), { recursive: true }); // no PG_VERSION, no tar
    await mkdir(path.join(dir, 'pglite-template-0000000000000000', 'pgdata'), { recursive: true });
    expect(await readTemplate(dir)).toBeUndefined();
    const notices: string[] = [];
    const template = await ensureTemplate(dir, (m) => notices.push(m));
    expect(template).toEqual(await readTemplate(dir));
    expect(notices.join('\n')).toMatch(/stored in/);
    expect(await readdir(dir)).toEqual([templateName()]);
  });

  it('stores nothing and answers undefined when the folder cannot be written; the database is then made by initdb', async () => {
    const file = path.join(work, 'a-file');
    await writeFile(file, 'not a folder');
    const notices: string[] = [];
    expect(await ensureTemplate(path.join(file, 'templates'), (m) => notices.push(m))).toBeUndefined();
    expect(notices.join('\n')).toMatch(/could not store the PGlite template .*new databases are made with initdb until it can be/);
    const db = await openDb({ inMemory: true, pgliteTemplateDir: path.join(file, 'templates') });
    try {
      expect((await db.query('SELECT name FROM schema_migrations')).length).toBe(migrationFiles().length);
    } finally {
      await db.close();
    }
  });

  it('falls back to initdb when a template does not load, and says so', async () => {
    const dataDir = await newDir('bad-template');
    const broken = path.join(work, 'broken-template');
    await mkdir(path.join(broken, 'pgdata'), { recursive: true });
    await writeFile(path.join(broken, 'pgdata', 'PG_VERSION'), 'not a version\n');
    await writeFile(path.join(broken, 'pgdata.tar'), 'not a tar');
    const template = { dataDir: path.join(broken, 'pgdata'), tarFile: path.join(broken, 'pgdata.tar') };
    const notices: string[] = [];
    const db = await openPglite(dataDir, { template: async () => template, notice: (m) => notices.push(m) });
    try {
      expect(await db.query<{ n: number }>('SELECT 1 AS n')).toEqual([{ n: 1 }]);
    } finally {
      await db.close();
    }
    expect(notices.join('\n')).toMatch(/did not load/);
  });

  it('PGLITE_TEMPLATE_DIR=off creates each new database with initdb and every migration', async () => {
    expect(loadConfig({ PGLITE_TEMPLATE_DIR: 'off' }).pgliteTemplateDir).toBeNull();
    expect(loadConfig({ PGLITE_TEMPLATE_DIR: '/srv/t' }).pgliteTemplateDir).toBe('/srv/t');
    expect(loadConfig({}).pgliteTemplateDir).toBeUndefined();
    const notices: string[] = [];
    const db = await openDb({ dataDir: await newDir('initdb'), pgliteTemplateDir: null, notice: (m) => notices.push(m) });
    try {
      expect((await db.query('SELECT name FROM schema_migrations')).length).toBe(migrationFiles().length);
    } finally {
      await db.close();
    }
    expect(notices).toEqual([]);
  });

  it('`pglite-template` builds when missing and says up to date after', async () => {
    const dir = path.join(work, 'cli');
    const lines: string[] = [];
    expect(await pgliteTemplateCommand(dir, (l) => lines.push(l))).toBe(0);
    expect(await pgliteTemplateCommand(dir, (l) => lines.push(l))).toBe(0);
    expect(lines[0]).toMatch(/creating the PGlite template/);
    expect(lines[1]).toMatch(new RegExp(`stored in ${dir}/${templateName()} \\(\\d+ ms\\)`));
    expect(lines[2]).toBe(`PGlite template up to date: ${dir}/${templateName()}`);
    expect(await pgliteTemplateCommand(null, (l) => lines.push(l))).toBe(0);
    expect(lines[3]).toMatch(/off/);
  });
});
