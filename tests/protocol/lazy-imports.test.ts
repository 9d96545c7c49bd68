import { describe, expect, it } from 'vitest';
import { probeInChild } from '../../bench/import-cost.js';

/*
 * Importing the server's code (the runtime, the HTTP app, the MCP server) loads none of the heavy libraries: each
 * is imported where it is used, the first time a call needs it, so a test file or a start that never needs one
 * never pays for it. Measured in a fresh process (this one may have loaded them already), as bench/import-cost.ts
 * measures it (`npx tsx bench/import-cost.ts` shows what each costs).
 */

/** Heavy library -> why it is heavy and where it loads instead (load times from bench/import-cost.ts, Node 22). */
const HEAVY: Record<string, string> = {
  '@aws-sdk/client-s3': 'about 250 ms; blobs/s3.ts, only when an S3 bucket is configured',
  '@aws-sdk/lib-storage': 'about 200 ms; blobs/s3.ts, at the first upload to S3',
  '@electric-sql/pglite': "PGlite's WASM PostgreSQL, about 70 ms; db/index.ts, when the embedded database opens",
  pg: 'about 100 ms; db/index.ts, when a PostgreSQL database opens',
  'pg-boss': 'about 280 ms; domain/jobs/scheduler.ts, when the runtime opens its jobs',
  docx: 'about 80 ms; domain/files/docs/export.ts, at the first docx export',
  pdfmake: 'fonts and a layout engine; domain/files/docs/export.ts, at the first pdf export',
  pptxgenjs: 'with jszip, about 70 ms; domain/files/decks/pptx.ts, at the first pptx export',
  unpdf: 'pdf.js; domain/files/text/index.ts, at the first PDF whose text is extracted',
  'prosemirror-markdown': 'with markdown-it, about 140 ms; domain/files/docs/markdown.ts, at the first Markdown conversion',
  'markdown-it': 'about 100 ms; domain/files/docs/markdown.ts, at the first Markdown conversion',
  'file-type': 'about 120 ms; blobs/sniff.ts and domain/files/upload.ts, at the first upload',
  sharp: 'libvips, about 200 ms; domain/people/profile/avatar.ts, at the first avatar',
  '@ironcalc/wasm': 'the IronCalc formula engine (WebAssembly); domain/files/sheets/engine.ts, at the first sheet evaluated',
  'livekit-server-sdk': 'about 210 ms; domain/calling, only when LiveKit is configured',
  'date-holidays': 'about 340 ms; domain/books/calendar.ts, at the first business-day question',
  'libphonenumber-js': 'its metadata, about 200 ms; at the first phone number (directory, profile)',
  validator: 'about 110 ms; domain/directory/normalise.ts, at the first email address',
  tldts: 'the public suffix list, about 70 ms; domain/directory/normalise.ts, at the first domain',
  nodemailer: 'about 110 ms; mail/, at the first message sent or outboxed',
  openai: 'about 200 ms; ai-gateway/providers.ts, only when the openai provider is configured',
  satori: 'with its WebAssembly layout engine; domain/branding/render/engine.ts, at the first render',
  '@resvg/resvg-js': 'a native rasteriser; domain/branding/render/engine.ts, at the first PNG render (and an SVG image uploaded)',
  'style-dictionary': 'domain/branding/kit-files.ts, at the first export kit with platform files',
};

describe('lazy imports', () => {
  it('importing the runtime, the HTTP app and the MCP server loads no heavy library', async () => {
    const { packages, direct } = await probeInChild();
    // The probe sees packages at all (it cannot pass by seeing nothing): the app's own framework is there.
    expect(packages).toContain('fastify');
    const loaded = packages.filter((p) => p in HEAVY).map((p) => `${p} (imported by ${direct[p]?.by.join(', ') ?? 'a dependency'}): ${HEAVY[p]}`);
    expect(loaded).toEqual([]);
  });
});
