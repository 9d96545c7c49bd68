import { createRequire } from 'node:module';
import path from 'node:path';

/*
 * PDF for every native kind's export (pdfmake 0.3): one printer per process, loaded at the first PDF, with the
 * Roboto fonts its package ships read from node_modules. No URL and no other file is ever read, whatever a
 * document definition names.
 */

const require = createRequire(import.meta.url);
type PdfMake = {
  setFonts(f: unknown): void;
  setUrlAccessPolicy(f: (url: string) => boolean): void;
  setLocalAccessPolicy(f: (p: string) => boolean): void;
  createPdf(def: unknown): { getBuffer(): Promise<Buffer> };
};
let pdfmake: PdfMake | undefined;

function printer(): PdfMake {
  if (pdfmake) return pdfmake;
  const pm = require('pdfmake') as PdfMake;
  const fontsDir = path.join(path.dirname(require.resolve('pdfmake/package.json')), 'fonts', 'Roboto');
  const f = (name: string) => path.join(fontsDir, name);
  pm.setFonts({
    Roboto: { normal: f('Roboto-Regular.ttf'), bold: f('Roboto-Medium.ttf'), italics: f('Roboto-Italic.ttf'), bolditalics: f('Roboto-MediumItalic.ttf') },
  });
  pm.setUrlAccessPolicy(() => false);
  pm.setLocalAccessPolicy((p) => path.resolve(p).startsWith(fontsDir + path.sep));
  return (pdfmake = pm);
}

/** A pdfmake document definition rendered to bytes (its default font is Roboto). */
export async function renderPdf(def: Record<string, unknown>): Promise<Buffer> {
  return Buffer.from(
    await printer()
      .createPdf({ defaultStyle: { font: 'Roboto', fontSize: 11 }, ...def })
      .getBuffer(),
  );
}
