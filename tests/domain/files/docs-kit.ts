import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { expect } from 'vitest';
import { folder, type DriveOrg } from './drive-kit.js';
import { ok } from '../../helpers/calls.js';
import type { Person } from '../../helpers/people.js';

/*
 * The doc tests' kit: docs made through files.create, read back whole, and the hash a client computes of a read
 * (sha256 of the RFC 8785 canonical JSON of `doc`), computed here with the canonicalize package independently of
 * the server's own concatenation of stored bytes.
 */

export const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
export const clientSha = (doc: unknown) => sha256(canonicalize(doc)!);

/** A new doc from Markdown (or JSON content), by `key`: the file. */
export async function makeDoc(o: DriveOrg, key: string, content?: unknown, extra: Record<string, unknown> = {}): Promise<any> {
  return (await ok(o.s, 'files.create', { kind: 'doc', name: 'A doc', ...(content === undefined ? {} : { content }), ...extra }, key)).file;
}

/** docRead json of the whole doc (every page joined): the read and its blocks in order. */
export async function readAll(
  o: DriveOrg,
  fileId: string,
  key = o.owner.key,
  extra: Record<string, unknown> = {},
): Promise<{ read: any; blocks: any[]; doc: any }> {
  let cursor: string | undefined;
  let first: any;
  const tabs = new Map<string, any>();
  for (;;) {
    const read = await ok(o.s, 'files.docRead', { fileId, ...extra, ...(cursor ? { cursor } : {}) }, key);
    first ??= read;
    for (const t of read.doc.tabs) {
      const have = tabs.get(t.id);
      if (have) have.content.content.push(...t.content.content);
      else tabs.set(t.id, structuredClone(t));
    }
    if (!read.nextCursor) break;
    cursor = read.nextCursor;
  }
  const doc = { tabs: [...tabs.values()] };
  return { read: first, doc, blocks: doc.tabs.flatMap((t: any) => t.content.content) };
}

/** Plain text of a block as JSON (text nodes joined). */
export const textOf = (block: any): string => (block.text ?? '') + (block.content ?? []).map(textOf).join('');

/** Write ops as `key` against `base`: the result (must succeed). */
export async function write(o: DriveOrg, key: string, fileId: string, baseRevision: number, ops: unknown[], mode?: 'edit' | 'suggest'): Promise<any> {
  return ok(o.s, 'files.docWriteRevision', { fileId, baseRevision, ops, ...(mode ? { mode } : {}) }, key);
}

/** A restricted folder of the owner's holding a doc, shared with `person` as `role`: the doc's file. */
export async function sharedDoc(o: DriveOrg, person: Person, role: string, markdown = 'Shared text.'): Promise<any> {
  const f = await folder(o.s, o.owner.key, 'Private', { restricted: true });
  const doc = await makeDoc(o, o.owner.key, { markdown }, { parentId: f.id });
  await ok(o.s, 'files.shareGrant', { fileId: doc.id, grantee: { principalId: person.id }, role }, o.owner.key);
  return doc;
}

export const expectBadOp = (message: string, re: RegExp) => expect(message).toMatch(re);
