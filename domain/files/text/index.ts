import { officeText, readsOffice } from './office.js';
import { rtfText } from './rtf.js';

/*
 * The text of an uploaded document, for search (files.list {query}): PDF through unpdf (pdf.js, loaded at the
 * first PDF), Office Open XML and OpenDocument from their zipped XML (office.ts), RTF (rtf.ts).
 */

const PDF = 'application/pdf';
const RTF = 'application/rtf';

/** Whether documentText reads the type. */
export const readsText = (mime: string): boolean => mime === PDF || mime === RTF || readsOffice(mime);

/** The document's text; throws on a document it cannot read (the caller keeps the file, found by its name). */
export async function documentText(bytes: Uint8Array, mime: string): Promise<string> {
  if (mime === PDF) return pdfText(bytes);
  if (mime === RTF) return rtfText(bytes);
  return officeText(bytes, mime);
}

async function pdfText(bytes: Uint8Array): Promise<string> {
  const { extractText } = await import('unpdf');
  // pdf.js takes the buffer over: give it a copy, so the caller's bytes stay usable. unpdf closes the document.
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: true });
  return text;
}
