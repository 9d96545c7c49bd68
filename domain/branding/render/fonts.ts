import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

/*
 * The fonts renders draw with: Inter (@fontsource/inter, OFL-1.1), bundled with the server and read from
 * node_modules at the first render: never fetched. Satori reads WOFF (not WOFF2), so the .woff files; latin and
 * latin-ext cover Western and Central European text, and satori falls back through the list glyph by glyph. The
 * export kit ships the same files with their licence.
 */

const require = createRequire(import.meta.url);
export const FONT_FAMILY = 'Inter';
const WEIGHTS = [400, 500, 600, 700] as const;

export const fontDir = (): string => path.join(path.dirname(require.resolve('@fontsource/inter/package.json')), 'files');
export const fontLicence = (): string => path.join(path.dirname(require.resolve('@fontsource/inter/package.json')), 'LICENSE');

/** The bundled files: [file name, weight, style]. */
type FontFile = readonly [file: string, weight: number, style: 'normal' | 'italic'];
export const FONT_FILES: readonly FontFile[] = [
  ...WEIGHTS.flatMap((w): FontFile[] => [
    [`inter-latin-${w}-normal.woff`, w, 'normal'],
    [`inter-latin-ext-${w}-normal.woff`, w, 'normal'],
  ]),
  ['inter-latin-400-italic.woff', 400, 'italic'],
];

export interface SatoriFont {
  name: string;
  data: Buffer;
  weight: (typeof WEIGHTS)[number];
  style: 'normal' | 'italic';
}

let loaded: Promise<SatoriFont[]> | undefined;

/** Read once per process. */
export function fonts(): Promise<SatoriFont[]> {
  loaded ??= Promise.all(
    FONT_FILES.map(async ([file, weight, style]) => ({
      name: FONT_FAMILY,
      data: await readFile(path.join(fontDir(), file)),
      weight: weight as SatoriFont['weight'],
      style,
    })),
  ).catch((err: unknown) => {
    loaded = undefined;
    throw err;
  });
  return loaded;
}
