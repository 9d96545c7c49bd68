import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { one } from '../../../db/types.js';
import { it } from '../../helpers/fixtures.js';
import { eventsAfter, head, mutate, ok, otherOrg, refused, rpc } from '../../helpers/calls.js';
import { clientSha, makeDoc, readAll, sharedDoc, textOf, write } from './docs-kit.js';

/* files.docRead and files.docWriteRevision: the doc model, block ops, concurrency by block, misuse. */

const MD = '# Plan\n\nFirst **bold** paragraph.\n\n- one\n- two\n\nLast paragraph about Q3.';

describe('files.create content and files.docRead', () => {
  it('a doc from Markdown: blocks get blk_ ids, one tab_, and contentSha256 is the sha256 of the canonical read', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: MD });
    expect(file).toMatchObject({ kind: 'doc', revision: 1 });
    const { read, doc, blocks } = await readAll(o, file.id, o.mia.key);
    expect(read).toMatchObject({ revision: 1, head: 1, format: 'json', nextCursor: null });
    expect(read.tabs).toEqual([
      { id: expect.stringMatching(/^tab_/), title: 'Tab 1', parentTabId: null, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), blockCount: 4 },
    ]);
    expect(blocks.map((b) => b.type)).toEqual(['heading', 'paragraph', 'bulletList', 'paragraph']);
    for (const b of blocks) expect(b.attrs.id).toMatch(/^blk_[A-Za-z0-9]+$/);
    expect(blocks[1].content[1]).toEqual({ type: 'text', marks: [{ type: 'bold' }], text: 'bold' });
    expect(clientSha(doc)).toBe(read.contentSha256);
    expect(clientSha(doc.tabs[0].content)).toBe(read.tabs[0].sha256);
    // The files row shows the head.
    const got = (await ok(o.s, 'files.get', { fileId: file.id }, o.mia.key)).file;
    expect(got).toMatchObject({ revision: 1, sha256: read.contentSha256 });
    expect(got.sizeBytes).toBe(Buffer.byteLength(canonicalize(doc)!));
    // Its text is searchable, and follows edits.
    const found = async (q: string) => (await ok(o.s, 'files.list', { query: q }, o.mia.key)).files.map((f: any) => f.id);
    expect(await found('paragraph')).toContain(file.id);
    await write(o, o.mia.key, file.id, 1, [{ op: 'insert', markdown: 'Zanzibar quokka.' }]);
    expect(await found('zanzibar')).toContain(file.id);
  });

  it('markdown and text formats give each block with its id', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: MD });
    const md = await ok(o.s, 'files.docRead', { fileId: file.id, format: 'markdown' }, o.mia.key);
    expect(md.blocks.map((b: any) => b.markdown)).toEqual(['# Plan', 'First **bold** paragraph.', '- one\n- two', 'Last paragraph about Q3.']);
    expect(md.doc).toBeUndefined();
    const text = await ok(o.s, 'files.docRead', { fileId: file.id, format: 'text' }, o.mia.key);
    expect(text.blocks.map((b: any) => [b.type, b.text])).toEqual([
      ['heading', 'Plan'],
      ['paragraph', 'First bold paragraph.'],
      ['bulletList', 'one\ntwo'],
      ['paragraph', 'Last paragraph about Q3.'],
    ]);
    expect(text.blocks[0].id).toBe(md.blocks[0].id);
  });

  it('Tiptap JSON goes in as it is: extra attributes dropped, ids kept when valid and free, given otherwise', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, {
      json: {
        type: 'doc',
        content: [
          {
            type: 'paragraph',
            attrs: { id: 'blk_mine1', textAlign: 'left' },
            content: [{ type: 'text', marks: [{ type: 'link', attrs: { href: 'https://example.com', target: '_blank', rel: 'noopener' } }], text: 'site' }],
          },
          { type: 'paragraph', attrs: { id: 'blk_mine1' }, content: [{ type: 'mention', attrs: { id: 'usr_abc', label: 'Abc' } }] },
          { type: 'image', attrs: { src: 'fil_pic0001', alt: 'A picture' } },
        ],
      },
    });
    const { blocks } = await readAll(o, file.id, o.mia.key);
    expect(blocks[0]).toEqual({
      type: 'paragraph',
      attrs: { id: 'blk_mine1' },
      content: [{ type: 'text', marks: [{ type: 'link', attrs: { href: 'https://example.com', title: null } }], text: 'site' }],
    });
    expect(blocks[1].attrs.id).not.toBe('blk_mine1');
    expect(blocks[2]).toMatchObject({ type: 'image', attrs: { src: 'fil_pic0001', alt: 'A picture' } });
  });

  it('refuses bad content naming the field: unknown node, image URL, bad heading level, unknown shape', async ({ drive: o }) => {
    const bad = (content: unknown) => refused(o.s, 'files.create', { kind: 'doc', name: 'x', content }, 'BAD_REQUEST', { key: o.mia.key });
    expect(await bad({ json: { type: 'doc', content: [{ type: 'paragraph' }, { type: 'table' }] } })).toMatch(
      /^content\.json\.content\.1\.type: unknown node type "table"/,
    );
    expect(await bad({ json: { type: 'doc', content: [{ type: 'image', attrs: { src: 'https://x.test/a.png' } }] } })).toMatch(
      /^content\.json\.content\.0\.attrs\.src: must be a file id/,
    );
    expect(await bad({ json: { type: 'doc', content: [{ type: 'heading', attrs: { level: 9 } }] } })).toMatch(
      /^content\.json\.content\.0\.attrs\.level: must be an integer 1 to 6/,
    );
    expect(await bad({ json: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'paragraph' }] }] } })).toMatch(
      /^content\.json\.content\.0\.content: a paragraph may not hold/,
    );
    expect(await bad({ markdown: '![x](https://x.test/a.png)' })).toMatch(/^content\.markdown: .*must point at a file of the org/);
    expect(await bad({ html: '<p>x</p>' })).toMatch(/^content: must be \{markdown\} or \{json\}/);
  });

  it('reads a past revision; refuses one past the head, an unknown tab and a foreign cursor', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'one' });
    const { blocks } = await readAll(o, file.id, o.mia.key);
    await write(o, o.mia.key, file.id, 1, [{ op: 'replaceText', blockId: blocks[0].attrs.id, find: 'one', replace: 'two' }]);
    expect(textOf((await readAll(o, file.id, o.mia.key, { revision: 1 })).blocks[0])).toBe('one');
    expect(textOf((await readAll(o, file.id, o.mia.key)).blocks[0])).toBe('two');
    expect(await refused(o.s, 'files.docRead', { fileId: file.id, revision: 3 }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^revision: the head is revision 2/,
    );
    expect(await refused(o.s, 'files.docRead', { fileId: file.id, tabId: 'tab_nope' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^tabId: /);
    expect(await refused(o.s, 'files.docRead', { fileId: file.id, cursor: 'garbage' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^cursor: /);
  });

  it('pages a long doc by blocks; a cursor keeps reading the revision it started on', async ({ drive: o }) => {
    const md = Array.from({ length: 1_200 }, (_, i) => `Paragraph ${i}.`).join('\n\n');
    const file = await makeDoc(o, o.mia.key, { markdown: md });
    const first = await ok(o.s, 'files.docRead', { fileId: file.id, format: 'text', limit: 500 }, o.mia.key);
    expect(first.blocks).toHaveLength(500);
    await write(o, o.mia.key, file.id, 1, [{ op: 'replaceText', blockId: first.blocks[0].id, find: 'Paragraph 0.', replace: 'Changed.' }]);
    const second = await ok(o.s, 'files.docRead', { fileId: file.id, format: 'text', cursor: first.nextCursor }, o.mia.key);
    expect(second).toMatchObject({ revision: 1, head: 2 });
    expect(second.blocks[0].text).toBe('Paragraph 500.');
    const { doc, read } = await readAll(o, file.id, o.mia.key, { revision: 1 });
    expect(doc.tabs[0].content.content).toHaveLength(1_200);
    expect(clientSha(doc)).toBe(read.contentSha256);
  });
});

describe('files.docWriteRevision', () => {
  it('replace, insert, delete, replaceText and setContent by block id; one files.doc.revise event with no text', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: MD });
    const { blocks } = await readAll(o, file.id, o.mia.key);
    const [h, p1, list, last] = blocks.map((b) => b.attrs.id);
    const { result, event } = await mutate(
      o.s,
      'files.docWriteRevision',
      {
        fileId: file.id,
        baseRevision: 1,
        ops: [
          { op: 'replace', blockId: h, markdown: '## Plan, revised' },
          { op: 'insert', afterBlockId: p1, markdown: 'Inserted one.\n\nInserted two.' },
          { op: 'insert', beforeBlockId: h, nodes: [{ type: 'paragraph', content: [{ type: 'text', text: 'Preface.' }] }] },
          { op: 'delete', blockId: list },
          { op: 'replaceText', blockId: last, find: 'Q3', replace: 'Q4' },
          { op: 'insert', markdown: '---' },
        ],
      },
      'files.doc.revise',
      { key: o.mia.key },
    );
    expect(result).toMatchObject({ outcome: 'revised', revision: 2, suggestionId: null, changed: true });
    expect(result.results.map((r: any) => r.blockIds.length)).toEqual([1, 2, 1, 0, 1, 1]);
    expect(result.results[0].blockIds).toEqual([h]);
    const after = await readAll(o, file.id, o.mia.key);
    expect(after.blocks.map((b) => [b.type, textOf(b)])).toEqual([
      ['paragraph', 'Preface.'],
      ['heading', 'Plan, revised'],
      ['paragraph', 'First bold paragraph.'],
      ['paragraph', 'Inserted one.'],
      ['paragraph', 'Inserted two.'],
      ['paragraph', 'Last paragraph about Q4.'],
      ['horizontalRule', ''],
    ]);
    expect(after.blocks[1].attrs).toEqual({ id: h, level: 2 });
    expect(new Set(result.changedBlocks)).toEqual(
      new Set([h, list, last, ...result.results[1].blockIds, ...result.results[2].blockIds, ...result.results[5].blockIds]),
    );
    expect(result.contentSha256).toBe(clientSha(after.doc));
    expect(event.payload).toEqual({
      fileId: file.id,
      baseRevision: 1,
      ops: 6,
      revision: 2,
      contentSha256: result.contentSha256,
      sizeBytes: expect.any(Number),
      blocks: 7,
    });
    expect(JSON.stringify(event)).not.toMatch(/Plan|Inserted|Q4|Preface/);
    const got = (await ok(o.s, 'files.get', { fileId: file.id }, o.mia.key)).file;
    expect(got).toMatchObject({ revision: 2, sha256: result.contentSha256, updatedBy: o.mia.id });
  });

  it('setContent keeps the ids of unchanged blocks; replaceText keeps marks and refuses ambiguity', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Alpha.\n\nBeta **bold beta** beta.\n\nGamma.' });
    const before = (await readAll(o, file.id, o.mia.key)).blocks.map((b) => b.attrs.id);
    await write(o, o.mia.key, file.id, 1, [{ op: 'setContent', markdown: 'Alpha.\n\nNew.\n\nGamma.' }]);
    const after = (await readAll(o, file.id, o.mia.key)).blocks.map((b) => b.attrs.id);
    expect(after[0]).toBe(before[0]);
    expect(after[2]).toBe(before[2]);
    expect(after[1]).not.toBe(before[1]);

    const doc2 = await makeDoc(o, o.mia.key, { markdown: 'Beta **bold beta** beta.' });
    const id = (await readAll(o, doc2.id, o.mia.key)).blocks[0].attrs.id;
    expect(
      await refused(
        o.s,
        'files.docWriteRevision',
        { fileId: doc2.id, baseRevision: 1, ops: [{ op: 'replaceText', blockId: id, find: 'beta', replace: 'x' }] },
        'BAD_REQUEST',
        { key: o.mia.key },
      ),
    ).toMatch(/^ops\.0\.find: occurs 2 times/);
    expect(
      await refused(
        o.s,
        'files.docWriteRevision',
        { fileId: doc2.id, baseRevision: 1, ops: [{ op: 'replaceText', blockId: id, find: 'zeta', replace: 'x' }] },
        'BAD_REQUEST',
        { key: o.mia.key },
      ),
    ).toMatch(/^ops\.0\.find: not found/);
    await write(o, o.mia.key, doc2.id, 1, [{ op: 'replaceText', blockId: id, find: 'bold beta', replace: 'BOLD' }]);
    expect((await readAll(o, doc2.id, o.mia.key)).blocks[0].content).toEqual([
      { type: 'text', text: 'Beta ' },
      { type: 'text', marks: [{ type: 'bold' }], text: 'BOLD' },
      { type: 'text', text: ' beta.' },
    ]);
    await write(o, o.mia.key, doc2.id, 2, [{ op: 'replaceText', blockId: id, find: 'eta', replace: 'ETA', all: true }]);
    expect(textOf((await readAll(o, doc2.id, o.mia.key)).blocks[0])).toBe('BETA BOLD bETA.');
  });

  it('concurrency by block: untouched blocks merge onto the head; a changed target is CONFLICT naming it, changing nothing', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Block A.\n\nBlock B.\n\nBlock C.' });
    const [a, b, cc] = (await readAll(o, file.id, o.mia.key)).blocks.map((x) => x.attrs.id);
    await write(o, o.mia.key, file.id, 1, [{ op: 'replaceText', blockId: a, find: 'A', replace: 'A by Mia' }]);
    // Max read revision 1 too: his edit of B merges with Mia's of A.
    const merged = await write(o, o.max.key, file.id, 1, [{ op: 'replaceText', blockId: b, find: 'B.', replace: 'B by Max.' }]);
    expect(merged.revision).toBe(3);
    expect((await readAll(o, file.id, o.max.key)).blocks.map(textOf)).toEqual(['Block A by Mia.', 'Block B by Max.', 'Block C.']);
    // An edit of A, or a delete of B, against revision 1 is stale.
    const message = await refused(
      o.s,
      'files.docWriteRevision',
      {
        fileId: file.id,
        baseRevision: 1,
        ops: [
          { op: 'delete', blockId: cc },
          { op: 'replace', blockId: a, markdown: 'x' },
          { op: 'delete', blockId: b },
        ],
      },
      'CONFLICT',
      { key: o.max.key },
    );
    expect(message).toContain(`${a}, ${b} changed since revision 1 (the head is 3): ops.1, ops.2 cannot apply`);
    expect((await readAll(o, file.id, o.max.key)).read.revision).toBe(3);
    expect(
      await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 4, ops: [{ op: 'delete', blockId: cc }] }, 'BAD_REQUEST', {
        key: o.max.key,
      }),
    ).toMatch(/^baseRevision: revision 4 is ahead of the head \(3\)/);
  });

  it('the same content again is changed:false with a noop event and no revision', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Same.' });
    const id = (await readAll(o, file.id, o.mia.key)).blocks[0].attrs.id;
    const { result, event } = await mutate(
      o.s,
      'files.docWriteRevision',
      { fileId: file.id, baseRevision: 1, ops: [{ op: 'replace', blockId: id, markdown: 'Same.' }] },
      'files.doc.revise',
      { key: o.mia.key },
    );
    expect(result).toMatchObject({ outcome: 'unchanged', revision: 1, changed: false, changedBlocks: [] });
    expect(event.payload).toMatchObject({ noop: true, revision: 1 });
  });

  it('misuse: NOT_FOUND (unknown, other org), FORBIDDEN_SCOPE (viewer role, read-only key), BAD_REQUEST ops[i], over 500 ops, CONFLICT trashed', async ({
    drive: o,
  }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Text.' });
    const id = (await readAll(o, file.id, o.mia.key)).blocks[0].attrs.id;
    const op = { op: 'delete', blockId: id };
    await refused(o.s, 'files.docWriteRevision', { fileId: 'fil_unknown000000', baseRevision: 1, ops: [op] }, 'NOT_FOUND', { key: o.mia.key });
    const other = await otherOrg(o.s);
    const res = await other.rpc('files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: [op] });
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await other.rpc('files.docRead', { fileId: file.id })).body.error.code).toBe('NOT_FOUND');

    const viewed = await sharedDoc(o, o.max, 'viewer');
    const vid = (await readAll(o, viewed.id, o.max.key)).blocks[0].attrs.id;
    expect(
      await refused(o.s, 'files.docWriteRevision', { fileId: viewed.id, baseRevision: 1, ops: [{ op: 'delete', blockId: vid }] }, 'FORBIDDEN_SCOPE', {
        key: o.max.key,
      }),
    ).toMatch(/missing role editor .*\(you are viewer\)/);
    const commented = await sharedDoc(o, o.max, 'commenter');
    const cid = (await readAll(o, commented.id, o.max.key)).blocks[0].attrs.id;
    expect(
      await refused(o.s, 'files.docWriteRevision', { fileId: commented.id, baseRevision: 1, ops: [{ op: 'delete', blockId: cid }] }, 'FORBIDDEN_SCOPE', {
        key: o.max.key,
      }),
    ).toMatch(/missing role editor .*mode "suggest"/);
    const reader = await o.s.client.mint({ tier: 'viewer' }, 'Reader');
    await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: [op] }, 'FORBIDDEN_SCOPE', { key: reader.apiKey });

    expect(
      await refused(
        o.s,
        'files.docWriteRevision',
        { fileId: file.id, baseRevision: 1, ops: [op, { op: 'insert', nodes: [{ type: 'paragraph', content: [{ type: 'text', text: '' }] }] }] },
        'BAD_REQUEST',
        { key: o.mia.key },
      ),
    ).toMatch(/^ops\.1\.nodes\.0\.content\.0\.text: required: a non-empty string/);
    expect(
      await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: [{ op: 'delete', blockId: 'blk_nothere' }] }, 'BAD_REQUEST', {
        key: o.mia.key,
      }),
    ).toMatch(/^ops\.0\.blockId: no block blk_nothere/);
    expect(await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: [op, op] }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^ops\.1\.blockId: block .* was deleted by ops\.0/,
    );
    expect(
      await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: [{ op: 'replace', blockId: id }] }, 'BAD_REQUEST', {
        key: o.mia.key,
      }),
    ).toMatch(/^ops\.0: give exactly one of node, markdown/);
    expect(
      await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: Array.from({ length: 501 }, () => op) }, 'BAD_REQUEST', {
        key: o.mia.key,
      }),
    ).toMatch(/^ops: at most 500 ops/);
    expect(
      await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: [{ op: 'explode' }] }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toMatch(/^ops\.0\.op: /);
    const folderFile = (await ok(o.s, 'files.create', { kind: 'folder', name: 'F' }, o.mia.key)).file;
    expect(await refused(o.s, 'files.docRead', { fileId: folderFile.id }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^fileId: .* is a folder, not a doc/);
    expect((await readAll(o, file.id, o.mia.key)).read.revision).toBe(1);

    await ok(o.s, 'files.delete', { fileId: file.id }, o.mia.key);
    expect(await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 1, ops: [op] }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /in the trash/,
    );
    // A trashed doc still reads.
    expect((await readAll(o, file.id, o.mia.key)).read.revision).toBe(1);
  });

  it('the drive restores a revision as a new head and duplicates a doc through the doc kind', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Version one.' });
    const { blocks, read: r1 } = await readAll(o, file.id, o.mia.key);
    await write(o, o.mia.key, file.id, 1, [{ op: 'replaceText', blockId: blocks[0].attrs.id, find: 'one', replace: 'two' }]);
    const restored = await ok(o.s, 'files.recover', { fileId: file.id, toRevision: 1 }, o.mia.key);
    expect(restored.file).toMatchObject({ revision: 3, sha256: r1.contentSha256 });
    const { read: r3, blocks: b3 } = await readAll(o, file.id, o.mia.key);
    expect([r3.revision, textOf(b3[0]), b3[0].attrs.id]).toEqual([3, 'Version one.', blocks[0].attrs.id]);
    expect(await refused(o.s, 'files.recover', { fileId: file.id, toRevision: 9 }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/toRevision/);
    const copy = (await ok(o.s, 'files.duplicate', { fileId: file.id }, o.max.key)).file;
    expect(copy).toMatchObject({ kind: 'doc', revision: 1, sha256: r1.contentSha256 });
    expect((await readAll(o, copy.id, o.max.key)).blocks.map(textOf)).toEqual(['Version one.']);
  });

  it('a purge erases the text: revisions, blocks and suggestions are gone', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Erase me.' });
    const id = (await readAll(o, file.id, o.mia.key)).blocks[0].attrs.id;
    await write(o, o.mia.key, file.id, 1, [{ op: 'replace', blockId: id, markdown: 'Erase me too.' }]);
    await write(o, o.mia.key, file.id, 2, [{ op: 'delete', blockId: id }], 'suggest');
    await ok(o.s, 'files.delete', { fileId: file.id }, o.mia.key);
    await ok(o.s, 'files.delete', { fileId: file.id, permanent: true }, o.mia.key);
    for (const table of ['doc_revisions', 'doc_blocks', 'doc_suggestions']) {
      const { n } = one(
        await o.s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE org_id = $1 AND file_id = $2`, [o.s.org.orgId, file.id]),
      );
      expect(n, table).toBe(0);
    }
    await refused(o.s, 'files.docRead', { fileId: file.id }, 'NOT_FOUND', { key: o.mia.key });
  });

  it('reads append no event', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Quiet.' });
    const before = await head(o.s.client);
    await rpc(o.s, 'files.docRead', { fileId: file.id, format: 'markdown' }, o.mia.key);
    await rpc(o.s, 'files.docSuggestions', { fileId: file.id }, o.mia.key);
    expect(await eventsAfter(o.s.client, before)).toEqual([]);
  });

  it('a 1k-block doc: twenty edits by block id each land in their own block (its speed is a bench step: npm run bench, files)', async ({ drive: o }) => {
    const md = Array.from({ length: 1_000 }, (_, i) => `Paragraph number ${i} of a long doc, with some words in it.`).join('\n\n');
    const file = await makeDoc(o, o.mia.key, { markdown: md });
    const ids = (await readAll(o, file.id, o.mia.key)).blocks.map((b) => b.attrs.id);
    expect(ids).toHaveLength(1_000);
    for (let i = 0; i < 20; i++) {
      await write(o, o.mia.key, file.id, i + 1, [{ op: 'replaceText', blockId: ids[i * 37], find: 'some words', replace: `edit ${i}` }]);
    }
    const blocks = (await readAll(o, file.id, o.mia.key)).blocks;
    expect(blocks).toHaveLength(1_000);
    for (let i = 0; i < 20; i++) expect(JSON.stringify(blocks[i * 37])).toContain(`edit ${i}`);
    expect(JSON.stringify(blocks[1])).toContain('some words');
  }, 60_000);
});

describe('files.docTabOp', () => {
  it('add (nested), rename, move, delete with child tabs; each a revision with one files.doc_tab.change event', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'Main text.' });
    const first = (await readAll(o, file.id, o.mia.key)).read.tabs[0].id;
    const { result: added, event } = await mutate(o.s, 'files.docTabOp', { fileId: file.id, op: 'add', title: 'Appendix' }, 'files.doc_tab.change', {
      key: o.mia.key,
    });
    expect(added).toMatchObject({ revision: 2, changed: true, tabId: expect.stringMatching(/^tab_/) });
    expect(event.payload).toEqual({ fileId: file.id, tabId: added.tabId, op: 'add', revision: 2, contentSha256: added.contentSha256, tabs: 2 });
    const child = (await ok(o.s, 'files.docTabOp', { fileId: file.id, op: 'add', title: 'Sub', parentTabId: added.tabId }, o.mia.key)).tabId;
    const renamed = await ok(o.s, 'files.docTabOp', { fileId: file.id, op: 'rename', tabId: added.tabId, title: 'Annex' }, o.mia.key);
    expect(renamed.tabs.map((t: any) => [t.title, t.parentTabId])).toEqual([
      ['Tab 1', null],
      ['Annex', null],
      ['Sub', added.tabId],
    ]);
    const same = await mutate(o.s, 'files.docTabOp', { fileId: file.id, op: 'rename', tabId: added.tabId, title: 'Annex' }, 'files.doc_tab.change', {
      key: o.mia.key,
    });
    expect(same.result.changed).toBe(false);
    expect(same.event.payload.noop).toBe(true);
    const moved = await ok(o.s, 'files.docTabOp', { fileId: file.id, op: 'move', tabId: added.tabId, position: 0 }, o.mia.key);
    expect(moved.tabs.map((t: any) => t.title)).toEqual(['Annex', 'Sub', 'Tab 1']);
    const { doc, read } = await readAll(o, file.id, o.mia.key);
    expect(clientSha(doc)).toBe(read.contentSha256);
    expect(doc.tabs.map((t: any) => t.content.content.length)).toEqual([1, 1, 1]);
    // Text goes into a tab by its id.
    await write(o, o.mia.key, file.id, read.revision, [{ op: 'insert', tabId: child, markdown: 'Sub text.' }]);
    expect(
      await refused(o.s, 'files.docTabOp', { fileId: file.id, op: 'move', tabId: added.tabId, parentTabId: child }, 'BAD_REQUEST', { key: o.mia.key }),
    ).toMatch(/^parentTabId: .* is tab_.* or a tab inside it/);
    expect(await refused(o.s, 'files.docTabOp', { fileId: file.id, op: 'rename', tabId: 'tab_nope', title: 'x' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^tabId: no tab tab_nope/,
    );
    expect(await refused(o.s, 'files.docTabOp', { fileId: file.id, op: 'add' }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^title: required for op add/);
    const deleted = await ok(o.s, 'files.docTabOp', { fileId: file.id, op: 'delete', tabId: added.tabId }, o.mia.key);
    expect(deleted.tabs.map((t: any) => t.id)).toEqual([first]);
    expect(await refused(o.s, 'files.docTabOp', { fileId: file.id, op: 'delete', tabId: first }, 'CONFLICT', { key: o.mia.key })).toMatch(
      /is the doc's last tab/,
    );
    const viewed = await sharedDoc(o, o.max, 'commenter');
    await refused(o.s, 'files.docTabOp', { fileId: viewed.id, op: 'add', title: 'Mine' }, 'FORBIDDEN_SCOPE', { key: o.max.key });
  });

  it('an op naming a tab deleted since the base is CONFLICT', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key);
    const tab = (await ok(o.s, 'files.docTabOp', { fileId: file.id, op: 'add', title: 'Later' }, o.mia.key)).tabId;
    await ok(o.s, 'files.docTabOp', { fileId: file.id, op: 'delete', tabId: tab }, o.mia.key);
    expect(
      await refused(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision: 2, ops: [{ op: 'setContent', tabId: tab, markdown: 'x' }] }, 'CONFLICT', {
        key: o.mia.key,
      }),
    ).toContain(`${tab} changed since revision 2`);
  });
});

describe('comment threads follow the text (re-anchored in the write)', () => {
  it('moved text keeps its anchor; a deleted block orphans it', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'The quick brown fox.\n\nOther words.' });
    const { read, blocks } = await readAll(o, file.id, o.mia.key);
    const [first, second] = blocks.map((b) => b.attrs.id);
    const thread = (
      await ok(
        o.s,
        'annotation.create',
        { targetId: file.id, kind: 'comment', body: 'Which fox?', selector: { type: 'block', tabId: read.tabs[0].id, blockId: first, start: 10, end: 15 } },
        o.mia.key,
      )
    ).annotation;
    // The word moves within its block, then to another block.
    await write(o, o.mia.key, file.id, 1, [{ op: 'replaceText', blockId: first, find: 'The quick', replace: 'A very quick' }]);
    let now = (await ok(o.s, 'annotation.getThread', { annotationId: thread.id }, o.mia.key)).annotation;
    expect(now.selector).toMatchObject({ blockId: first, start: 13, end: 18 });
    await write(o, o.mia.key, file.id, 2, [
      { op: 'replaceText', blockId: first, find: 'brown ', replace: '' },
      { op: 'replaceText', blockId: second, find: 'Other', replace: 'Other brown' },
    ]);
    now = (await ok(o.s, 'annotation.getThread', { annotationId: thread.id }, o.mia.key)).annotation;
    expect(now).toMatchObject({ anchorStatus: 'anchored', selector: { blockId: second, start: 6, end: 11 } });
    await write(o, o.mia.key, file.id, 3, [{ op: 'delete', blockId: second }]);
    now = (await ok(o.s, 'annotation.getThread', { annotationId: thread.id }, o.mia.key)).annotation;
    expect(now.anchorStatus).toBe('orphaned');
  });
});

describe('random ops on a real doc', () => {
  it('never answer 5xx, and the doc still reads whole', async ({ drive: o }) => {
    const file = await makeDoc(o, o.mia.key, { markdown: 'One.\n\n- a\n- b\n\n> quote' });
    const { blocks, read } = await readAll(o, file.id, o.mia.key);
    const ids = [...blocks.map((b) => b.attrs.id), 'blk_unknown1', 'x'];
    const tabIds = [read.tabs[0].id, 'tab_unknown1'];
    const anyJson = fc.jsonValue({ maxDepth: 4 });
    const node = fc.oneof(
      anyJson,
      fc.record(
        {
          type: fc.constantFrom('paragraph', 'heading', 'image', 'bulletList', 'listItem', 'text', 'mention', 'doc', 'codeBlock'),
          attrs: fc.option(fc.dictionary(fc.constantFrom('id', 'level', 'src', 'start', 'language'), anyJson), { nil: undefined }),
          content: fc.option(fc.array(anyJson, { maxLength: 3 }), { nil: undefined }),
          text: fc.option(fc.string(), { nil: undefined }),
        },
        { requiredKeys: ['type'] },
      ),
    );
    const op = fc.record(
      {
        op: fc.constantFrom('replace', 'insert', 'delete', 'replaceText', 'setContent'),
        blockId: fc.constantFrom(...ids),
        afterBlockId: fc.constantFrom(...ids),
        tabId: fc.constantFrom(...tabIds),
        node,
        nodes: fc.array(node, { maxLength: 3 }),
        markdown: fc.string({ maxLength: 60 }),
        json: fc.oneof(anyJson, fc.record({ type: fc.constant('doc'), content: fc.array(node, { maxLength: 3 }) })),
        find: fc.constantFrom('One', 'a', '', 'zz'),
        replace: fc.string({ maxLength: 10 }),
        all: fc.boolean(),
      },
      { requiredKeys: ['op'] },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 0, max: 4 }),
        fc.constantFrom('edit', 'suggest'),
        async (ops, baseRevision, mode) => {
          const res = await rpc(o.s, 'files.docWriteRevision', { fileId: file.id, baseRevision, ops, mode }, o.mia.key);
          expect(res.status, res.raw.slice(0, 300)).toBeLessThan(500);
        },
      ),
      { numRuns: 150 },
    );
    const after = await readAll(o, file.id, o.mia.key);
    expect(clientSha(after.doc)).toBe(after.read.contentSha256);
  }, 120_000);
});
