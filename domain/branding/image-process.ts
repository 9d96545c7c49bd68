import { rasterFormat } from '../../blobs/sniff.js';
import { ApiError, badRequest } from '../../protocol/errors.js';
import { MAX_IMAGE_PIXELS } from '../../protocol/methods/branding/index.js';

/*
 * An image as the library keeps it: sniffed by its bytes (PNG, JPEG, WebP, GIF, SVG; the uploader's type is never
 * trusted), at most 50 MP (read from the header, before any decoding), turned upright by its EXIF orientation and
 * re-encoded without any metadata block (EXIF, GPS, XMP, IPTC, ICC: sharp writes none unless asked). A GIF keeps its
 * first frame, as a PNG. An SVG is never decoded by sharp (librsvg): it is checked as text and rasterised by resvg,
 * and refused when it could run script or fetch anything (scripts, on… attributes, foreignObject, href or url() to
 * anything but a #fragment, entities).
 */

export type Format = 'png' | 'jpeg' | 'webp' | 'gif' | 'svg';

export interface Processed {
  bytes: Buffer;
  contentType: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
  /** What came in. */
  format: Format;
}

export function sniffImage(b: Buffer): Format | undefined {
  const raster = rasterFormat(b);
  if (raster) return raster;
  const head = b
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
  if (/^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i.test(head)) return 'svg';
  return undefined;
}

const megapixels = (px: number) => `${(Math.floor(px / 100_000) / 10).toFixed(1)} MP`;
const tooLarge = (field: string, px: number) => badRequest(field, `${megapixels(px)} above ${MAX_IMAGE_PIXELS / 1_000_000} MP`);

/** What an SVG may not hold: the first found, as the refusal's reason. */
export function svgProblem(text: string): string | undefined {
  const checks: [RegExp, string][] = [
    [/<!ENTITY/i, 'declares entities'],
    [/<\s*script[\s>/]/i, 'holds a script'],
    [/<\s*foreignObject[\s>/]/i, 'holds a foreignObject'],
    [/[\s"'/]on[a-z]+\s*=/i, 'has an event attribute (on…)'],
    [/(?:^|[\s"'])(?:xlink:)?href\s*=\s*(["'])\s*(?!#)[^"']*\1/i, 'refers outside itself (an href to anything but #…)'],
    [/(?:^|[\s"'])(?:xlink:)?href\s*=\s*[^"'\s>]/i, 'refers outside itself (an unquoted href)'],
    [/url\(\s*(["']?)\s*(?!#)[^)]*\)/i, 'refers outside itself (a url() to anything but #…)'],
    [/@import/i, 'imports a style sheet'],
    [/javascript:/i, 'holds a javascript: URL'],
  ];
  return checks.find(([re]) => re.test(text))?.[1];
}

async function rasteriseSvg(bytes: Buffer, field: string): Promise<Processed> {
  const text = bytes.toString('utf8');
  const problem = svgProblem(text);
  if (problem) throw badRequest(field, `an SVG that ${problem} is refused`);
  const { Resvg } = await import('@resvg/resvg-js');
  let r: InstanceType<typeof Resvg>;
  try {
    r = new Resvg(text, { fitTo: { mode: 'original' }, font: { loadSystemFonts: true }, logLevel: 'off' });
  } catch (err) {
    throw badRequest(field, `could not be read as an SVG image (${String((err as Error).message ?? err).slice(0, 120)})`);
  }
  if (r.width * r.height > MAX_IMAGE_PIXELS) throw tooLarge(field, r.width * r.height);
  if (r.width < 1 || r.height < 1) throw badRequest(field, 'an SVG with no size (give it width and height, or a viewBox)');
  const png = r.render();
  return { bytes: png.asPng(), contentType: 'image/png', width: png.width, height: png.height, format: 'svg' };
}

/** The bytes as the library keeps them; `field` names the source in a refusal (contentBase64, sha256, fileId). */
export async function processImage(bytes: Buffer, field: string, resizeTo?: { width: number; height: number }): Promise<Processed> {
  const format = sniffImage(bytes);
  if (!format) throw badRequest(field, 'must be a PNG, JPEG, WebP, GIF or SVG image');
  if (format === 'svg') return rasteriseSvg(bytes, field);
  const { default: sharp } = await import('sharp');
  try {
    const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
    if (meta.format !== format) throw new Error(`decodes as ${meta.format}`);
    const px = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
    if (px > MAX_IMAGE_PIXELS) throw tooLarge(field, px);
    let img = sharp(bytes, { limitInputPixels: MAX_IMAGE_PIXELS, failOn: 'error', pages: 1 }).rotate();
    if (resizeTo) img = img.resize(resizeTo.width, resizeTo.height, { fit: 'cover' });
    const out =
      format === 'jpeg'
        ? await img.jpeg({ quality: 90 }).toBuffer({ resolveWithObject: true })
        : format === 'webp'
          ? await img.webp({ quality: 90 }).toBuffer({ resolveWithObject: true })
          : await img.png().toBuffer({ resolveWithObject: true });
    const contentType = format === 'jpeg' ? 'image/jpeg' : format === 'webp' ? 'image/webp' : 'image/png';
    return { bytes: out.data, contentType, width: out.info.width, height: out.info.height, format };
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest(
      field,
      `could not be decoded as a ${format.toUpperCase()} image (${String((err as Error).message ?? err)
        .split('\n')[0]
        .slice(0, 120)})`,
    );
  }
}
