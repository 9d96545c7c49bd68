import { Transform, finished, type Readable, type TransformCallback } from 'node:stream';

/*
 * A blob's type comes from its bytes, never from the uploader's header: a magic number (file-type), else UTF-8 text
 * (no NUL, the whole body valid) as text/plain, else application/octet-stream. The declared type only names which
 * inert text it is (CSV, Markdown, JSON...): HTML, SVG or XML declared or not, text that is not one of these is
 * text/plain, which the blob route serves inline with nosniff, never run.
 */

/** What file-type reads: the first 4,100 bytes. */
export const SNIFF_BYTES = 4100;

/** Text types a declaration may name for bytes that are UTF-8 text: none of them runs in a browser. */
const INERT_TEXT = new Set(['text/plain', 'text/csv', 'text/markdown', 'text/tab-separated-values', 'text/calendar', 'text/vcard', 'application/json']);

export const OPAQUE = 'application/octet-stream';

/** The type of bytes whose first SNIFF_BYTES are `head`, `text` when the whole body is UTF-8 without NUL. */
export async function sniffedType(head: Buffer, text: boolean, declared?: string): Promise<string> {
  if (head.length === 0) return OPAQUE;
  // file-type (a tenth of a second to load) comes with the first upload, not with the server.
  const { fileTypeFromBuffer } = await import('file-type');
  const found = await fileTypeFromBuffer(head).catch(() => undefined);
  if (found) return found.mime;
  if (!text) return OPAQUE;
  const essence = (declared ?? '').split(';')[0].trim().toLowerCase();
  return `${INERT_TEXT.has(essence) ? essence : 'text/plain'}; charset=utf-8`;
}

/** Passes bytes through unchanged, keeping the head and whether everything so far is UTF-8 text. */
export class TypeSniffer extends Transform {
  private readonly parts: Buffer[] = [];
  private kept = 0;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private text = true;

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (this.kept < SNIFF_BYTES) {
      const part = chunk.subarray(0, SNIFF_BYTES - this.kept);
      this.parts.push(Buffer.from(part));
      this.kept += part.length;
    }
    if (this.text) this.check(() => chunk.includes(0) || (this.decoder.decode(chunk, { stream: true }), false));
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    if (this.text) this.check(() => (this.decoder.decode(), false));
    done();
  }

  /** The sniffed type (call once the body has ended). */
  type(declared?: string): Promise<string> {
    return sniffedType(Buffer.concat(this.parts), this.text, declared);
  }

  private check(fails: () => boolean): void {
    try {
      if (fails()) this.text = false;
    } catch {
      this.text = false; // not UTF-8
    }
  }
}

/** `body` through a TypeSniffer; a body that fails or ends early fails the sniffer (the body itself is not destroyed). */
export function sniffFrom(body: Readable): TypeSniffer {
  const sniffer = new TypeSniffer();
  body.pipe(sniffer);
  finished(body, (err) => {
    if (err) sniffer.destroy(err);
  });
  sniffer.once('error', () => body.unpipe(sniffer));
  return sniffer;
}

/** A raster image's format by its magic bytes (never by the uploader's Content-Type), for code that decodes images. */
export function rasterFormat(b: Buffer): 'png' | 'jpeg' | 'webp' | 'gif' | undefined {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') return 'webp';
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return 'gif';
  return undefined;
}
