import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * Temporary directories a test makes (outboxes, files to import, blob stores): each one is removed when its test
 * file ends (tests/setup-file.ts registers the cleanup for every file), so a run leaves nothing in TMPDIR.
 */

const made = new Set<string>();

/** A new empty directory under TMPDIR, removed after the test file. */
export function tempDir(prefix = 'wops-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Remove every directory tempDir made so far. */
export function removeTempDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}
