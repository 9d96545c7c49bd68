import type { Queryable } from '../../db/types.js';
import { docContent } from './docs/content.js';
import { sheetContent } from './sheets/content.js';
import { deckContent } from './decks/content.js';

/*
 * The content of native files (doc, sheet, deck) belongs to each kind's own module, listed here; the drive
 * (create, duplicate, recover to a revision, export, search text) calls through this table and never reads a kind's
 * tables. A kind not listed cannot be created.
 */

export interface ContentResult {
  /** The head revision after the write (1 for new content). */
  revision: number;
  /** SHA-256 of the head content as the kind defines it (a doc: canonical JSON of its tabs). */
  sha256: string;
  sizeBytes: number;
  /** Plain text for search (bounded by the kind), or null. */
  text: string | null;
}

export interface ExportResult {
  bytes: Buffer;
  contentType: string;
  /** The file name's extension, without the dot. */
  extension: string;
}

/** What an export may use beyond the kind's own rows (built by domain/files/export.ts). */
export interface ExportEnv {
  /** The requester's scopes. */
  scopes: ReadonlySet<string>;
  /**
   * The bytes and stored type of a blob THE EXPORTED FILE HOLDS (a blob_refs row with holder = its file id: a deck's
   * images), else null; null too past 20 MiB for one blob or 100 MiB for the whole export, or when the bytes are
   * gone, so an export cannot balloon (the kind shows a placeholder). Only the file's own blobs: a doc's image
   * points at another file with its own access, so a doc keeps its "[image fil_…]" reference and never calls this.
   */
  blob(sha256: string): Promise<{ bytes: Buffer; contentType: string } | null>;
}

export interface KindContent {
  /** Formats `files.exportRequest` offers for this kind. */
  exportFormats: readonly string[];
  /** A new file's first revision from files.create's `content` (undefined: empty). BAD_REQUEST names `content…`. */
  create(q: Queryable, orgId: string, fileId: string, authorId: string, content: unknown, now: Date): Promise<ContentResult>;
  /** Copy the head content of `fromId` as the first revision of `toId`. */
  duplicate(q: Queryable, orgId: string, fromId: string, toId: string, authorId: string, now: Date): Promise<ContentResult>;
  /** Make revision `revision` the new head (a new revision with its content); BAD_REQUEST when it does not exist. */
  restoreRevision(q: Queryable, orgId: string, fileId: string, revision: number, authorId: string, now: Date): Promise<ContentResult>;
  /**
   * Render a revision (default the head) in a format of exportFormats, as a caller holding `env.scopes` may see it
   * (a sheet's fed cells whose source scope they lack render as #N/A), embedding blobs the file holds (env.blob).
   */
  exportAs(q: Queryable, orgId: string, fileId: string, format: string, revision: number | undefined, env: ExportEnv): Promise<ExportResult>;
  /**
   * Erase the file's content for good (files.delete permanent, in its transaction): revisions, text, and the blobs
   * it holds under holders other than the file id (the drive releases holder `fil_…` itself). Optional until a kind
   * has more than its rows to erase; without it the rows stay, unreachable (the file is purged).
   */
  purge?(q: Queryable, orgId: string, fileId: string): Promise<void>;
  /**
   * The head revision as an HTML fragment for the guest page of an email share (gateway/share.ts): built from the
   * kind's own model with every text escaped, no script, nothing fetched (no images, no internal links), showing what
   * a holder of no scope may see (an outside person). Without it the page shows the file's search text.
   */
  guestHtml?(q: Queryable, orgId: string, fileId: string): Promise<string>;
}

/** Each native kind's content module (domain/files/docs, sheets, decks). */
const KINDS: Partial<Record<'doc' | 'sheet' | 'deck', KindContent>> = { doc: docContent, sheet: sheetContent, deck: deckContent };

/** The kind's content module, or undefined when the kind is not deployed here. */
export const kindContent = (kind: string): KindContent | undefined => KINDS[kind as keyof typeof KINDS];
