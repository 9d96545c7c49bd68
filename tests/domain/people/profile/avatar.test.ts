import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { one } from '../../../../db/types.js';
import { testServer, type TestServer } from '../../../helpers/harness.js';
import { eventsAfter, expectOk, head } from '../../../helpers/calls.js';

/** profile.updateAvatar: PNG/JPEG/WebP <= 5 MB -> three square WebP sizes, metadata stripped; old blobs released. */

const CANARY = 'CANARY-avatar-91c2';

let s: TestServer;
let me: string;
beforeAll(async () => {
  s = await testServer();
  me = (await s.client.get('org/whoami')).body.principal.id;
});
afterAll(() => s.close());

async function upload(bytes: Buffer, contentType: string, key = s.org.adminKey): Promise<string> {
  const res = await s.app.inject({
    method: 'PUT',
    url: '/api/v1/blobs',
    headers: { authorization: `Bearer ${key}`, 'content-type': contentType },
    payload: bytes,
  });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().result.sha256;
}

/** A JPEG with EXIF (a copyright and artist carrying the canary, GPS position) planted by sharp itself. */
const photo = (colour: { r: number; g: number; b: number }) =>
  sharp({ create: { width: 640, height: 400, channels: 3, background: colour } })
    .jpeg()
    .withExif({ IFD0: { Copyright: CANARY, Artist: CANARY }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 12/1' } })
    .toBuffer();

const fetchPath = (path: string) => s.app.inject({ method: 'GET', url: path });
const avatarRefs = async (memberId: string) =>
  (
    await s.runtime.db.query<{ sha256: string }>(`SELECT sha256 FROM blob_refs WHERE org_id = $1 AND holder = $2 ORDER BY sha256`, [
      s.org.orgId,
      `${memberId}#avatar`,
    ])
  ).map((r) => r.sha256);
const err = async (params: Record<string, unknown>, key?: string) => (await s.client.rpc('profile.updateAvatar', params, { key })).body.error;

describe('profile.updateAvatar', () => {
  it('a JPEG with EXIF and GPS becomes 32, 96 and 256 px WebP squares without any metadata; one event with hashes only', async () => {
    const source = await photo({ r: 200, g: 40, b: 40 });
    expect((await sharp(source).metadata()).exif).toBeDefined();
    expect(source.includes(CANARY)).toBe(true);
    const blob = await upload(source, 'image/jpeg');
    const before = await head(s.client);
    const res = expectOk('profile.updateAvatar', await s.client.rpc('profile.updateAvatar', { memberId: me, blob }));
    expect(res.changed).toBe(true);
    const sizes = res.profile.avatar.sizes as { size: number; sha256: string; url: string }[];
    expect(sizes.map((x) => x.size)).toEqual([32, 96, 256]);
    for (const { size, url, sha256 } of sizes) {
      const got = await fetchPath(url);
      expect(got.statusCode).toBe(200);
      expect(got.headers['content-type']).toBe('image/webp');
      const meta = await sharp(got.rawPayload).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['webp', size, size]);
      expect(meta.exif).toBeUndefined();
      expect(meta.xmp).toBeUndefined();
      expect(meta.icc).toBeUndefined();
      expect(got.rawPayload.includes(CANARY)).toBe(false);
      expect(sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(await avatarRefs(me)).toEqual(sizes.map((x) => x.sha256).sort());
    const events = await eventsAfter(s.client, before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ kind: 'profile.avatar.update', entity_id: me, payload: { memberId: me, source: blob, removed: false } });
    expect(JSON.stringify(events)).not.toContain(CANARY);
  });

  it('the same image again changes nothing (noop event); a new one releases the old blobs; null removes it', async () => {
    const shown = expectOk('profile.get', await s.client.rpc('profile.get', { memberId: me })).profile.avatar.sizes as { sha256: string; url: string }[];
    const first = shown.map((x) => x.sha256);
    // Its URLs are bound to the member's avatar (rec=avatar:<member>): they serve while the profile holds the picture.
    expect(new URL(shown[0].url, 'http://x').searchParams.get('rec')).toBe(`avatar:${me}`);
    expect((await fetchPath(shown[0].url)).statusCode).toBe(200);
    const same = await upload(await photo({ r: 200, g: 40, b: 40 }), 'image/jpeg');
    const again = expectOk('profile.updateAvatar', await s.client.rpc('profile.updateAvatar', { memberId: me, blob: same }));
    expect(again.changed).toBe(false);
    const png = await sharp({ create: { width: 300, height: 900, channels: 4, background: { r: 0, g: 90, b: 200, alpha: 1 } } })
      .png()
      .toBuffer();
    const next = expectOk('profile.updateAvatar', await s.client.rpc('profile.updateAvatar', { memberId: me, blob: await upload(png, 'image/png') }));
    const now = next.profile.avatar.sizes.map((x: { sha256: string }) => x.sha256);
    expect(now.some((h: string) => first.includes(h))).toBe(false);
    expect(await avatarRefs(me)).toEqual([...now].sort());
    const released = await s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM blob_refs WHERE org_id = $1 AND sha256 = ANY($2::text[])`, [
      s.org.orgId,
      first,
    ]);
    expect(Number(one(released).n)).toBe(0);
    // A replaced picture's URLs stop serving at once (the bytes stay until GC; the URL does not reach them).
    for (const { url } of shown) expect((await fetchPath(url)).statusCode).toBe(404);
    const current = next.profile.avatar.sizes[0].url as string;
    expect((await fetchPath(current)).statusCode).toBe(200);
    const removed = expectOk('profile.updateAvatar', await s.client.rpc('profile.updateAvatar', { memberId: me, blob: null }));
    expect(removed).toMatchObject({ changed: true, profile: { avatar: null } });
    expect(await avatarRefs(me)).toEqual([]);
    expect((await fetchPath(current)).statusCode).toBe(404);
  });

  it('SVG, GIF, broken and 6 MB images, and blobs the caller did not upload -> BAD_REQUEST blob; nothing appended', async () => {
    const uploader = (await s.client.mint({ tier: 'agent' }, 'uploader')).apiKey;
    const seq = await head(s.client);
    const svg = await upload(
      Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>'),
      'image/svg+xml',
    );
    expect((await err({ memberId: me, blob: svg })).message).toBe('blob: must be a PNG, JPEG or WebP image (SVG and other formats are refused)');
    const gif = await upload(
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
        .gif()
        .toBuffer(),
      'image/png',
    );
    expect((await err({ memberId: me, blob: gif })).message).toMatch(/^blob: must be a PNG, JPEG or WebP/);
    const broken = await upload(Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 7)]), 'image/png');
    expect((await err({ memberId: me, blob: broken })).message).toMatch(/^blob: could not be decoded as a PNG image/);
    const big = Buffer.alloc(6 * 1024 * 1024, 1);
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(big);
    expect((await err({ memberId: me, blob: await upload(big, 'image/png') })).message).toMatch(
      /^blob: is 6291456 bytes; an avatar image may be at most 5242880 bytes/,
    );
    const theirs = await upload(await photo({ r: 1, g: 2, b: 3 }), 'image/jpeg', uploader);
    expect((await err({ memberId: me, blob: theirs })).message).toMatch(/^blob: no blob [0-9a-f]+ uploaded by you/);
    expect((await err({ memberId: me, blob: 'not-a-hash' })).message).toMatch(/^blob: must be the SHA-256/);
    expect(await head(s.client)).toBe(seq);
  });

  it('another human’s avatar needs the admin scope, checked before any image work', async () => {
    const colleague = await s.client.mint({ scopes: ['org.read', 'org.write'], principalKind: 'human' }, 'colleague');
    const blob = await upload(await photo({ r: 9, g: 9, b: 9 }), 'image/jpeg', colleague.apiKey);
    const denied = await err({ memberId: me, blob }, colleague.apiKey);
    expect(denied.code).toBe('FORBIDDEN_SCOPE');
    const { n } = one(
      await s.runtime.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM blob_uploaders WHERE org_id = $1 AND principal_id = $2`, [
        s.org.orgId,
        colleague.principal.id,
      ]),
    );
    expect(Number(n)).toBe(1); // only its own upload: no resized images were stored
    const own = expectOk(
      'profile.updateAvatar',
      await s.client.rpc('profile.updateAvatar', { memberId: colleague.principal.id, blob }, { key: colleague.apiKey }),
    );
    expect(own.profile.avatar.sizes).toHaveLength(3);
  });
});
