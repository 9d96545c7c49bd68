import canonicalize from 'canonicalize';
import { describe, expect } from 'vitest';
import { it } from '../../helpers/fixtures.js';
import { mutate, ok, otherOrg, refused } from '../../helpers/calls.js';
import type { Person } from '../../helpers/people.js';
import { download, folder, putBlob, type DriveOrg } from './drive-kit.js';
import { clientSha } from './docs-kit.js';

/* files.deckRead and files.deckWriteSlides, decks made by files.create; duplicate, restore and export through the drive. */

const CANARY = 'Wombat-Canary-4417';

/** files.create's params for a deck with `content` (none: the default), in `parentId` when given. */
const deckParams = (content?: unknown, parentId?: string) => ({
  kind: 'deck',
  name: 'A deck',
  ...(content === undefined ? {} : { content }),
  ...(parentId ? { parentId } : {}),
});
/** A deck made by `by` (in `parentId`): its file id. */
const makeDeck = async (o: DriveOrg, by: Person, content?: unknown, parentId?: string): Promise<string> =>
  (await ok(o.s, 'files.create', deckParams(content, parentId), by.key)).file.id;

const read = (o: DriveOrg, fileId: string, extra: Record<string, unknown> = {}, key = o.mia.key) => ok(o.s, 'files.deckRead', { fileId, ...extra }, key);
const write = (o: DriveOrg, fileId: string, baseRevision: number, ops: unknown[], key = o.mia.key) =>
  ok(o.s, 'files.deckWriteSlides', { fileId, baseRevision, ops }, key);
const bad = (o: DriveOrg, fileId: string, baseRevision: number, ops: unknown[], code: 'BAD_REQUEST' | 'CONFLICT' = 'BAD_REQUEST') =>
  refused(o.s, 'files.deckWriteSlides', { fileId, baseRevision, ops }, code, { key: o.mia.key });
const titles = async (o: DriveOrg, fileId: string) => (await read(o, fileId)).slides.map((s: any) => s.title);

const THREE = { slides: [{ title: 'Alpha' }, { title: 'Beta', body: '- one\n- two', notes: 'Say hi' }, { title: 'Gamma', layout: 'blank' }] };

describe('deck content and files.deckRead', () => {
  it('reads every slide in order; contentSha256 is the sha256 of the canonical read and the files row shows it', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const r = await read(o, fileId);
    expect(r).toMatchObject({ fileId, revision: 1, head: 1 });
    expect(r.slideIds).toHaveLength(3);
    for (const id of r.slideIds) expect(id).toMatch(/^sld_[A-Za-z0-9]+$/);
    expect(r.slides.map((s: any) => s.id)).toEqual(r.slideIds);
    expect(r.slides[0]).toEqual({ id: r.slideIds[0], layout: 'title', title: 'Alpha', body: '', notes: '', elements: [] });
    expect(r.slides[1]).toMatchObject({ layout: 'titleAndBody', body: '- one\n- two', notes: 'Say hi' });
    expect(r.slides[2].layout).toBe('blank');
    expect(clientSha({ slides: r.slides })).toBe(r.contentSha256);
    const got = (await ok(o.s, 'files.get', { fileId }, o.mia.key)).file;
    expect(got).toMatchObject({ kind: 'deck', revision: 1, sha256: r.contentSha256, sizeBytes: Buffer.byteLength(canonicalize({ slides: r.slides })!) });
    // Titles, bodies and notes are searchable.
    const found = async (q: string) => (await ok(o.s, 'files.list', { query: q }, o.mia.key)).files.map((f: any) => f.id);
    expect(await found('gamma')).toContain(fileId);
  });

  it('reads some slides in deck order; refuses an unknown slide and a revision past the head', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const all = await read(o, fileId);
    const some = await read(o, fileId, { slideIds: [all.slideIds[2], all.slideIds[0]] });
    expect(some.slides.map((s: any) => s.title)).toEqual(['Alpha', 'Gamma']);
    expect(some.slideIds).toEqual(all.slideIds);
    expect(some.contentSha256).toBe(all.contentSha256);
    expect(await refused(o.s, 'files.deckRead', { fileId, slideIds: ['sld_nothere'] }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(
      /^slideIds\.0: no slide sld_nothere/,
    );
    expect(await refused(o.s, 'files.deckRead', { fileId, revision: 2 }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^revision: the head is revision 1/);
  });

  it('a deck without content is one empty title slide; bad content names params.content…', async ({ drive: o }) => {
    const r = await read(o, await makeDeck(o, o.mia));
    expect(r.slides).toEqual([{ id: r.slideIds[0], layout: 'title', title: '', body: '', notes: '', elements: [] }]);
    const badContent = (content: unknown, message: RegExp) => refused(o.s, 'files.create', deckParams(content), 'BAD_REQUEST', { key: o.mia.key, message });
    await badContent({ slides: [{ title: 'ok' }, { layout: 'huge' }] }, /^content\.slides\.1\.layout: must be one of/);
    await badContent({ slides: [] }, /^content\.slides: must hold at least 1 slide/);
    await badContent({ slides: [{ colour: 'red' }] }, /^content\.slides\.0: unknown field colour/);
    await badContent({ markdown: '# x' }, /^content: must be \{slides:/);
  });
});

describe('files.deckWriteSlides', () => {
  it('insert, update, delete and move by slide id; one files.deck.revise event with ids, counts and hashes only', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const [a, b, g] = (await read(o, fileId)).slideIds;
    const ops = [
      { op: 'insert', slide: { title: `Delta ${CANARY}`, notes: `notes ${CANARY}` } },
      { op: 'insert', position: 0, slide: { title: 'Zero', elements: [{ type: 'text', x: 10, y: 20, w: 300, h: 40, text: `box ${CANARY}` }] } },
      { op: 'update', slideId: b, fields: { title: `Beta ${CANARY}`, body: `**${CANARY}**` } },
      { op: 'delete', slideId: g },
      { op: 'move', slideId: a, position: 3 },
    ];
    const { result: res, event } = await mutate(o.s, 'files.deckWriteSlides', { fileId, baseRevision: 1, ops }, 'files.deck.revise', { key: o.mia.key });
    const [delta, zero] = res.results.slice(0, 2).map((r: any) => r.slideId);
    expect(res).toMatchObject({ outcome: 'revised', revision: 2, changed: true });
    expect(res.results.slice(2)).toEqual([{ slideId: b }, { slideId: g }, { slideId: a }]);
    expect(new Set(res.changedSlides)).toEqual(new Set([delta, zero, b, g, a]));
    const after = await read(o, fileId);
    expect(after.slideIds).toEqual([zero, b, delta, a]);
    expect(after.slides.map((s: any) => s.title)).toEqual(['Zero', `Beta ${CANARY}`, `Delta ${CANARY}`, 'Alpha']);
    expect(after.slides[1]).toMatchObject({ notes: 'Say hi', layout: 'titleAndBody' }); // fields left out stay
    expect(after.slides[0].elements).toEqual([{ id: expect.stringMatching(/^el_/), type: 'text', x: 10, y: 20, w: 300, h: 40, text: `box ${CANARY}` }]);
    expect(clientSha({ slides: after.slides })).toBe(res.contentSha256);
    expect((await ok(o.s, 'files.get', { fileId }, o.mia.key)).file).toMatchObject({ revision: 2, sha256: res.contentSha256, updatedBy: o.mia.id });

    expect(event.payload).toEqual({
      fileId,
      baseRevision: 1,
      ops: 5,
      revision: 2,
      contentSha256: res.contentSha256,
      sizeBytes: expect.any(Number),
      slides: 5,
      slideCount: 4,
    });
    expect(JSON.stringify(event)).not.toMatch(new RegExp(`${CANARY}|Alpha|Beta|Zero|Say hi`));
  });

  it('the same content again is changed:false with a noop event and no revision', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const b = (await read(o, fileId)).slideIds[1];
    const ops = [{ op: 'update', slideId: b, fields: { title: 'Beta' } }];
    const { result: res, event } = await mutate(o.s, 'files.deckWriteSlides', { fileId, baseRevision: 1, ops }, 'files.deck.revise', { key: o.mia.key });
    expect(res).toMatchObject({ outcome: 'unchanged', revision: 1, changed: false, changedSlides: [] });
    expect(event.payload.noop).toBe(true);
  });

  it('concurrency by slide: an untouched slide merges; a stale base touching a changed slide is CONFLICT naming it', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const [a, b, g] = (await read(o, fileId)).slideIds;
    await write(o, fileId, 1, [{ op: 'update', slideId: a, fields: { title: 'Alpha by Mia' } }]);
    // Max read revision 1 too: his edit of Beta merges with Mia's of Alpha.
    const merged = await write(o, fileId, 1, [{ op: 'update', slideId: b, fields: { title: 'Beta by Max' } }], o.max.key);
    expect(merged.revision).toBe(3);
    expect(await titles(o, fileId)).toEqual(['Alpha by Mia', 'Beta by Max', 'Gamma']);
    const message = await bad(
      o,
      fileId,
      1,
      [
        { op: 'move', slideId: g, position: 0 },
        { op: 'delete', slideId: a },
        { op: 'update', slideId: b, fields: { notes: 'x' } },
      ],
      'CONFLICT',
    );
    expect(message).toContain(`${a}, ${b} changed since revision 1 (the head is 3): ops.1, ops.2 cannot apply`);
    expect((await read(o, fileId)).revision).toBe(3);
    expect(await bad(o, fileId, 4, [{ op: 'delete', slideId: g }])).toMatch(/^baseRevision: revision 4 is ahead of the head \(3\)/);
  });

  it('bad ops name ops[i] and write nothing: unknown or deleted slide, position, last slide, over 500 ops or slides', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const [a] = (await read(o, fileId)).slideIds;
    expect(await bad(o, fileId, 1, [{ op: 'delete', slideId: 'sld_nothere' }])).toMatch(/^ops\.0\.slideId: no slide sld_nothere/);
    const del = { op: 'delete', slideId: a };
    expect(await bad(o, fileId, 1, [del, del])).toMatch(/^ops\.1\.slideId: slide .* was deleted by ops\.0/);
    expect(
      await bad(o, fileId, 1, [
        { op: 'insert', slide: {} },
        { op: 'insert', position: 5, slide: {} },
      ]),
    ).toMatch(/^ops\.1\.position: the deck holds 4 slides at this op: 0 to 4/);
    expect(await bad(o, fileId, 1, [{ op: 'move', slideId: a, position: 3 }])).toMatch(/^ops\.0\.position: .* 0 to 2/);
    expect(await bad(o, fileId, 1, [{ op: 'update', slideId: a, fields: {} }])).toMatch(/^ops\.0\.fields: must set at least one field/);
    expect(await bad(o, fileId, 1, [{ op: 'explode' }])).toMatch(/^ops\.0\.op: /);
    expect(await bad(o, fileId, 1, [{ op: 'insert', slide: { elements: [{ type: 'image', x: 0, y: 0, w: 1, h: 1 }] } }])).toMatch(
      /^ops\.0\.slide\.elements\.0\.blobSha256: required/,
    );
    const many = Array.from({ length: 501 }, () => del);
    expect(await bad(o, fileId, 1, many)).toMatch(/^ops: at most 500 ops/);
    const one = await makeDeck(o, o.mia);
    expect(await bad(o, one, 1, [{ op: 'delete', slideId: (await read(o, one)).slideIds[0] }])).toMatch(/^ops\.0: a deck keeps at least one slide/);
    const full = await makeDeck(o, o.mia, { slides: Array.from({ length: 500 }, (_, i) => ({ title: `S${i}` })) });
    expect((await read(o, full)).slideIds).toHaveLength(500);
    expect(await bad(o, full, 1, [{ op: 'insert', slide: {} }])).toMatch(/^ops\.0: the deck would hold more than 500 slides/);
    expect((await read(o, fileId)).revision).toBe(1);
  });

  it('NOT_FOUND for another org or an unreadable deck; a viewer’s write is FORBIDDEN_SCOPE; a non-deck is BAD_REQUEST fileId', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const other = await otherOrg(o.s);
    await refused(other, 'files.deckRead', { fileId }, 'NOT_FOUND');
    await refused(other, 'files.deckWriteSlides', { fileId, baseRevision: 1, ops: [{ op: 'insert', slide: {} }] }, 'NOT_FOUND');

    const f = await folder(o.s, o.owner.key, 'Private', { restricted: true });
    const hidden = await makeDeck(o, o.owner, THREE, f.id);
    await refused(o.s, 'files.deckRead', { fileId: hidden }, 'NOT_FOUND', { key: o.max.key });
    await ok(o.s, 'files.shareGrant', { fileId: hidden, grantee: { principalId: o.max.id }, role: 'viewer' }, o.owner.key);
    expect((await read(o, hidden, {}, o.max.key)).slides).toHaveLength(3);
    expect(
      await refused(o.s, 'files.deckWriteSlides', { fileId: hidden, baseRevision: 1, ops: [{ op: 'insert', slide: {} }] }, 'FORBIDDEN_SCOPE', {
        key: o.max.key,
      }),
    ).toMatch(new RegExp(`^missing role editor on ${hidden} \\(you are viewer\\)`));

    const doc = (await ok(o.s, 'files.create', { kind: 'doc', name: 'D' }, o.mia.key)).file;
    expect(await refused(o.s, 'files.deckRead', { fileId: doc.id }, 'BAD_REQUEST', { key: o.mia.key })).toMatch(/^fileId: .* is a doc, not a deck/);
    expect(await refused(o.s, 'files.deckWriteSlides', { fileId: doc.id, baseRevision: 1, ops: [{ op: 'insert', slide: {} }] }, 'BAD_REQUEST')).toMatch(
      /^fileId: /,
    );
  });
});

describe('revisions, restore, duplicate, export, images', () => {
  it('past revisions read as they were; files.recover toRevision makes one the head again, with its hash', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const first = await read(o, fileId);
    await write(o, fileId, 1, [{ op: 'delete', slideId: first.slideIds[0] }]);
    await write(o, fileId, 2, [{ op: 'insert', slide: { title: 'Late' } }]);
    expect((await read(o, fileId, { revision: 1 })).slides).toEqual(first.slides);
    expect(await titles(o, fileId)).toEqual(['Beta', 'Gamma', 'Late']);
    const restored = (await ok(o.s, 'files.recover', { fileId, toRevision: 1 }, o.mia.key)).file;
    expect(restored.revision).toBe(4);
    const now = await read(o, fileId);
    expect(now).toMatchObject({ revision: 4, head: 4, contentSha256: first.contentSha256, slideIds: first.slideIds });
    expect((await ok(o.s, 'files.get', { fileId }, o.mia.key)).file).toMatchObject({ revision: 4, sha256: first.contentSha256 });
    // A write against the restored head merges as any other.
    await write(o, fileId, 4, [{ op: 'update', slideId: first.slideIds[0], fields: { title: 'Alpha again' } }]);
    expect(await titles(o, fileId)).toEqual(['Alpha again', 'Beta', 'Gamma']);
  });

  it('duplicate copies the head with the same slide ids and hash; the copy edits on its own', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    await write(o, fileId, 1, [{ op: 'insert', slide: { title: 'Fourth' } }]);
    const original = await read(o, fileId);
    const copy = (await ok(o.s, 'files.duplicate', { fileId }, o.mia.key)).file;
    const r = await read(o, copy.id);
    expect(r).toMatchObject({ revision: 1, slideIds: original.slideIds, contentSha256: original.contentSha256 });
    await write(o, copy.id, 1, [{ op: 'delete', slideId: r.slideIds[3] }]);
    expect(await titles(o, fileId)).toEqual(['Alpha', 'Beta', 'Gamma', 'Fourth']);
  });

  it('exports a Markdown outline through files.exportRequest, one section per slide', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, { slides: [{ title: 'Plan' }, { body: '- one\n- two', notes: 'Line 1\nLine 2' }] });
    const exp = await ok(o.s, 'files.exportRequest', { fileId, format: 'md' }, o.mia.key);
    const out = await download(o.s, exp.url);
    expect(out.headers['content-type']).toMatch(/^text\/markdown/);
    expect(out.bytes.toString()).toBe('## 1. Plan\n\n## 2. Slide 2\n\n- one\n- two\n\n> **Notes**\n> Line 1\n> Line 2\n');
    // A format a deck does not offer is refused, naming those it does.
    await refused(o.s, 'files.exportRequest', { fileId, format: 'xlsx' }, 'BAD_REQUEST', {
      key: o.mia.key,
      message: /^format: a deck exports as pdf, md, pptx$/,
    });
  });

  it('an image is a blob of the org: the writer’s own upload, held by the deck; another’s hash is refused', async ({ drive: o }) => {
    const fileId = await makeDeck(o, o.mia, THREE);
    const blob = await putBlob(o.s, o.mia.key, Buffer.from('png bytes, say'));
    const image = { type: 'image', x: 0, y: 0, w: 100, h: 80, blobSha256: blob.sha256 };
    const res = await write(o, fileId, 1, [{ op: 'insert', slide: { layout: 'blank', elements: [image] } }]);
    const refs = await o.s.runtime.db.query('SELECT holder FROM blob_refs WHERE org_id = $1 AND sha256 = $2', [o.s.org.orgId, blob.sha256]);
    expect(refs.map((r: any) => r.holder)).toContain(fileId);
    // Max (an editor) may keep the image the deck shows, but not bring in bytes he only knows the hash of.
    const slideId = res.results[0].slideId;
    await write(o, fileId, 2, [{ op: 'update', slideId, fields: { title: 'Picture' } }], o.max.key);
    const theirs = await putBlob(o.s, o.mia.key, Buffer.from('other bytes'));
    expect(
      await refused(
        o.s,
        'files.deckWriteSlides',
        { fileId, baseRevision: 3, ops: [{ op: 'insert', slide: { elements: [{ ...image, blobSha256: theirs.sha256 }] } }] },
        'BAD_REQUEST',
        { key: o.max.key },
      ),
    ).toMatch(/^ops\.0\.slide\.elements\.0\.blobSha256: no blob/);
  });
});
