import { spawnSync } from 'node:child_process';

/*
 * Debian tools the tests use as independent checks of what the server writes (qpdf, exiftool, pdftotext, unzip).
 * .ci/run installs them; elsewhere a test that needs a missing one is skipped, saying which package to install.
 */

const PACKAGES: Record<string, string> = {
  qpdf: 'qpdf',
  exiftool: 'libimage-exiftool-perl',
  pdftotext: 'poppler-utils',
  pdfinfo: 'poppler-utils',
  unzip: 'unzip',
};

const seen = new Map<string, boolean>();

/** True when every command runs here; otherwise false, with one warning naming the Debian package. */
export function hasTools(...commands: string[]): boolean {
  let all = true;
  for (const c of commands) {
    if (!seen.has(c)) {
      const ok = spawnSync(c, c === 'exiftool' ? ['-ver'] : c === 'qpdf' ? ['--version'] : ['-v'], { stdio: 'ignore' }).status === 0;
      seen.set(c, ok);
      if (!ok) console.warn(`${c} is missing (apt-get install ${PACKAGES[c] ?? c}): the tests that check output with it are skipped`);
    }
    all &&= seen.get(c)!;
  }
  return all;
}
