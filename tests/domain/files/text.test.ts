import { Document, FootnoteReferenceRun, Packer, Paragraph, TabStopType, TextRun } from 'docx';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { documentText, readsText } from '../../../domain/files/text/index.js';
import { MAX_INFLATED_BYTES, OOXML_DOCX, OOXML_PPTX, OOXML_XLSX } from '../../../domain/files/text/office.js';
import { tinyPdf } from './drive-kit.js';

/*
 * The text files.uploadRegister extracts for search (domain/files/text/): PDF through pdf.js (unpdf), Office Open
 * XML and OpenDocument from their zipped XML, RTF. Word files come from the docx library; the other zips carry the
 * XML as Office and LibreOffice write it (namespaces, xml:space, entities, shared strings, spans and spaces).
 */

const zip = (parts: Record<string, string>) => Buffer.from(zipSync(Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, strToU8(v)]))));

describe('document text', () => {
  it('reads the types uploads extract, and only those', () => {
    for (const t of ['application/pdf', 'application/rtf', OOXML_DOCX, OOXML_XLSX, OOXML_PPTX, 'application/vnd.oasis.opendocument.text'])
      expect(readsText(t), t).toBe(true);
    for (const t of ['text/plain', 'image/png', 'application/zip', 'application/msword']) expect(readsText(t), t).toBe(false);
  });

  it('PDF: the page text', async () => {
    expect(await documentText(tinyPdf('Quarterly hippopotamus forecast'), 'application/pdf')).toBe('Quarterly hippopotamus forecast');
    await expect(documentText(Buffer.from('%PDF-1.4\n garbage'), 'application/pdf')).rejects.toThrow();
  });

  it('DOCX (written by the docx library): paragraphs a line each, runs joined, tabs, footnotes, entities', async () => {
    const doc = new Document({
      footnotes: { 1: { children: [new Paragraph('A footnote about quinces')] } },
      sections: [
        {
          children: [
            new Paragraph({ children: [new TextRun('The kumquat '), new TextRun({ text: 'memorandum', bold: true }), new FootnoteReferenceRun(1)] }),
            new Paragraph({ tabStops: [{ type: TabStopType.LEFT, position: 2000 }], children: [new TextRun('Cost\t<R&D> "5%"')] }),
          ],
        },
      ],
    });
    const text = await documentText(await Packer.toBuffer(doc), OOXML_DOCX);
    expect(text.split('\n')).toEqual(expect.arrayContaining(['The kumquat memorandum', 'Cost\t<R&D> "5%"']));
    expect(text).toContain('A footnote about quinces');
  });

  it('PPTX: slides in number order (slide10 after slide2), a line per paragraph', async () => {
    const slide = (t: string) =>
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><p:sld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:rPr lang="en-AU"/><a:t>${t}</a:t></a:r><a:br/><a:r><a:t>second line</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`;
    const bytes = zip({
      '[Content_Types].xml': '<Types/>',
      'ppt/slides/slide10.xml': slide('Ten'),
      'ppt/slides/slide2.xml': slide('Two &amp; more'),
      'ppt/slides/slide1.xml': slide('One'),
    });
    expect(await documentText(bytes, OOXML_PPTX)).toBe('One\nsecond line\nTwo & more\nsecond line\nTen\nsecond line');
  });

  it('XLSX: shared strings, inline strings and cell values; a shared-string cell is read once', async () => {
    const bytes = zip({
      'xl/sharedStrings.xml':
        '<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="2" uniqueCount="2"><si><t>Revenue</t></si><si><r><t xml:space="preserve">Net </t></r><r><t>margin</t></r></si></sst>',
      'xl/worksheets/sheet1.xml':
        '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>1250.5</v></c><c r="C1" t="inlineStr"><is><t>Pomelo</t></is></c><c r="D1"/></row></sheetData></worksheet>',
    });
    expect(await documentText(bytes, OOXML_XLSX)).toBe('Revenue\nNet margin\n1250.5\nPomelo');
  });

  it('OpenDocument: headings and paragraphs with spaces, tabs and line breaks; notes left out', async () => {
    const content = `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:h text:outline-level="1">Plan</text:h><text:p text:style-name="P1">A<text:s text:c="3"/>B<text:tab/>C<text:line-break/>D <text:span text:style-name="T1">bold</text:span><text:note text:note-class="footnote"><text:note-body><text:p>a note</text:p></text:note-body></text:note> end</text:p><text:p/></office:text></office:body></office:document-content>`;
    for (const mime of [
      'application/vnd.oasis.opendocument.text',
      'application/vnd.oasis.opendocument.spreadsheet',
      'application/vnd.oasis.opendocument.presentation',
    ]) {
      expect(await documentText(zip({ mimetype: mime, 'content.xml': content }), mime)).toBe('Plan\nA   B\tC\nD bold end\n');
    }
  });

  it('RTF: text without font, colour or generator tables; escapes, code pages and Unicode with fallbacks', async () => {
    const rtf = String.raw`{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fnil Calibri;}}{\colortbl;\red0\green0\blue0;}{\*\generator Riched20;}\f0\fs22 Caf\'e9 \{menu\}\par Price: \u8364?5\tab net\line end\par}`;
    expect(await documentText(Buffer.from(rtf, 'latin1'), 'application/rtf')).toBe('Café {menu}\nPrice: €5\tnet\nend');
  });

  it('a damaged archive or one whose text parts inflate past the limit throws (the upload keeps the file, found by name)', async () => {
    await expect(documentText(Buffer.from('PK\u0003\u0004 not a zip'), OOXML_DOCX)).rejects.toThrow();
    // A part that declares more than the limit is never inflated.
    const huge = Buffer.from(zipSync({ 'word/document.xml': new Uint8Array(1024) }, { level: 9 }));
    const central = huge.lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    huge.writeUInt32LE(MAX_INFLATED_BYTES + 1, central + 24); // the central directory's uncompressed size
    await expect(documentText(huge, OOXML_DOCX)).rejects.toThrow(/inflate past/);
  });
});
