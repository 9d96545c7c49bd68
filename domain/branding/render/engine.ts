import { renderPdf } from '../../files/index.js';
import { OUTPUT_EPOCH } from '../kit-files.js';
import { fonts } from './fonts.js';
import type { Element } from './tree.js';

/*
 * Element tree -> SVG (satori: text drawn as paths with the bundled fonts, so the SVG needs no font) -> PNG
 * (resvg, no system fonts, no network) or PDF (pdfmake's svg node: vector, one page the template's size in points).
 * satori and resvg load at the first render (dynamic import), so a server or a test that never renders never
 * pays for them. satori lays out on the event loop and resvg rasterises on libuv's pool: decision 0077 says why no worker.
 */

type Satori = typeof import('satori').default;
type RenderAsync = typeof import('@resvg/resvg-js').renderAsync;

let libs: Promise<{ satori: Satori; renderAsync: RenderAsync }> | undefined;

function load() {
  libs ??= Promise.all([import('satori'), import('@resvg/resvg-js')])
    .then(([s, r]) => ({ satori: s.default, renderAsync: r.renderAsync }))
    .catch((err: unknown) => {
      libs = undefined;
      throw err;
    });
  return libs;
}

export async function toSvg(el: Element, size: { width: number; height: number }): Promise<string> {
  const { satori } = await load();
  return satori(el, { width: size.width, height: size.height, fonts: await fonts() });
}

/** The SVG at `scale` (its width and height attributes; the viewBox keeps the drawing). */
export function scaleSvg(svg: string, size: { width: number; height: number }, scale: number): string {
  if (scale === 1) return svg;
  return svg.replace(/^<svg width="[\d.]+" height="[\d.]+"/, `<svg width="${size.width * scale}" height="${size.height * scale}"`);
}

/** PNG at `scale`, or fitted to `fitWidth` pixels wide (a thumbnail). resvg rasterises on libuv's thread pool. */
export async function svgToPng(svg: string, opts: { scale: number } | { fitWidth: number }): Promise<{ png: Buffer; width: number; height: number }> {
  const { renderAsync } = await load();
  const fitTo = 'scale' in opts ? { mode: 'zoom' as const, value: opts.scale } : { mode: 'width' as const, value: opts.fitWidth };
  const img = await renderAsync(svg, { fitTo, font: { loadSystemFonts: false }, imageRendering: 0, shapeRendering: 2, textRendering: 2 });
  return { png: img.asPng(), width: img.width, height: img.height };
}

/** One vector PDF page of the template's size (1 px = 1 pt). */
export function svgToPdf(svg: string, size: { width: number; height: number }): Promise<Buffer> {
  return renderPdf({
    pageSize: { width: size.width, height: size.height },
    pageMargins: 0,
    // A fixed date: the same inputs, the same bytes (pdfmake would write now, and hash it into the file ID).
    info: { title: 'Render', producer: 'wops', creator: 'wops', creationDate: OUTPUT_EPOCH },
    content: [{ svg, width: size.width, height: size.height }],
  });
}
