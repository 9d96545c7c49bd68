import { createInterface } from 'node:readline';
import { openDb } from '../../db/index.js';
import { lockDataDir } from '../../db/pglite-lock.js';

/*
 * A second process for tests/db/pglite-lock.test.ts (run with tsx):
 *   open <dir>  open a PGlite database on <dir>, print "ready", and hold it until killed
 *   lock <dir>  on the line "go" from stdin, take <dir>'s lock, print "got" or "refused: <message>", hold until stdin ends
 */
const [mode, dir] = process.argv.slice(2);

if (mode === 'open') {
  const db = await openDb({ dataDir: dir });
  await db.query("CREATE TABLE child_note AS SELECT 'committed before the kill' AS note");
  process.stdout.write('ready\n');
  setInterval(() => {}, 60_000);
} else if (mode === 'lock') {
  const lines = createInterface({ input: process.stdin });
  process.stdout.write('waiting\n');
  for await (const line of lines) {
    if (line !== 'go') continue;
    try {
      await lockDataDir(dir);
      process.stdout.write('got\n');
    } catch (err) {
      process.stdout.write(`refused: ${(err as Error).message}\n`);
    }
  }
} else {
  process.stderr.write(`usage: pglite-lock-child.ts open|lock <dir>\n`);
  process.exitCode = 2;
}
