import { openDb, type Db } from '../../db/index.js';

/*
 * On PGlite, the test files one worker runs share an in-memory database, as every file of the PostgreSQL run
 * shares one database: tests never share rows (each makes its own org), and loading PGlite from the template
 * costs seconds a file, most of a file's time. After RUNS_PER_DB runtimes the database is replaced once none is
 * using it, so one worker's data stays small.
 */

const RUNS_PER_DB = 25;

interface Generation {
  db: Promise<Db>;
  runs: number;
  open: number;
}

let current: Generation | undefined;

async function retire(gen: Generation): Promise<void> {
  await (await gen.db).close();
}

/** The worker's shared in-memory database and how to give it back (call release once the runtime is closed). */
export async function borrowSharedDb(): Promise<{ db: Db; release: () => Promise<void> }> {
  if (current && current.runs >= RUNS_PER_DB && current.open === 0) {
    const old = current;
    current = undefined;
    await retire(old);
  }
  const gen = (current ??= { db: openDb({ inMemory: true }), runs: 0, open: 0 });
  gen.runs += 1;
  gen.open += 1;
  let released = false;
  return {
    db: await gen.db,
    async release() {
      if (released) return;
      released = true;
      gen.open -= 1;
      if (gen !== current && gen.open === 0) await retire(gen);
    },
  };
}
