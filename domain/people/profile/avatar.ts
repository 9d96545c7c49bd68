import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { ApiError, badRequest } from '../../../protocol/errors.js';
import { AVATAR_SIZES, MAX_AVATAR_BYTES, profile as c } from '../../../protocol/methods/profile.js';
import { referenceBlob, releaseHolder } from '../../../blobs/refs.js';
import type { BlobService } from '../../../blobs/service.js';
import { rasterFormat } from '../../../blobs/sniff.js';
import type { TxQueryable } from '../../../db/types.js';
import { handler } from '../../core/handler.js';
import { laneSignature } from '../member/lane.js';
import { checkVersion } from '../member/model.js';
import { avatarHolder, avatarOf, loadProfile, lockProfile, requireProfileWriter } from './model.js';

/*
 * profile.updateAvatar: the image work (decode, resize, re-encode without metadata, store) runs in `prepare`,
 * outside the call's transaction; the transaction only swaps which blobs the profile holds.
 */

/** The formats an avatar may come in, by their magic bytes: PNG, JPEG or WebP (a GIF is refused like any other). */
function sniff(b: Buffer): 'png' | 'jpeg' | 'webp' | undefined {
  const format = rasterFormat(b);
  return format === 'gif' ? undefined : format;
}

/** Larger images than this many pixels are refused before decoding (a small file can decode to gigabytes). */
const MAX_INPUT_PIXELS = 40_000_000;

/** Square WebP images of every avatar size: turned upright by EXIF orientation, then every metadata block dropped. */
export async function avatarImages(bytes: Buffer): Promise<Map<number, Buffer>> {
  const format = sniff(bytes);
  if (!format) throw badRequest('blob', 'must be a PNG, JPEG or WebP image (SVG and other formats are refused)');
  // sharp (libvips, a fifth of a second to load) is loaded by the first avatar, not with the server.
  const { default: sharp } = await import('sharp');
  try {
    const base = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error' });
    const meta = await base.metadata();
    if (meta.format !== format) throw new Error(`decodes as ${meta.format}`);
    const upright = base.rotate();
    const out = new Map<number, Buffer>();
    // sharp writes no EXIF, XMP, IPTC or ICC unless asked (withMetadata/keepMetadata): nothing is kept.
    for (const size of AVATAR_SIZES)
      out.set(size, await upright.clone().resize(size, size, { fit: 'cover', position: 'attention' }).webp({ quality: 82 }).toBuffer());
    return out;
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw badRequest('blob', `could not be decoded as a ${format.toUpperCase()} image (${(err as Error).message.split('\n')[0].slice(0, 120)})`);
  }
}

/** The caller's upload, read whole: refused unless the caller uploaded it and it is at most MAX_AVATAR_BYTES. */
async function uploadedImage(blobs: BlobService, orgId: string, principalId: string, sha256: string): Promise<Buffer> {
  let meta;
  try {
    meta = await blobs.authorize(sha256, { kind: 'principal', orgId, principalId });
  } catch {
    throw badRequest('blob', `no blob ${sha256} uploaded by you (or a record already holds it); PUT /api/v1/blobs first`);
  }
  if (meta.size > MAX_AVATAR_BYTES) throw badRequest('blob', `is ${meta.size} bytes; an avatar image may be at most ${MAX_AVATAR_BYTES} bytes (5 MB)`);
  return buffer(await blobs.open(meta));
}

interface Prepared {
  /** Blob sha256 of each size, or null to remove the avatar. */
  sizes: Record<string, string> | null;
}

export const updateAvatar = handler(
  c.updateAvatar,
  async (ctx, p, prepared: Prepared) => {
    const member = await requireProfileWriter(ctx.q, ctx.principal, 'profile.updateAvatar', ctx.orgId, p.memberId);
    const row = await lockProfile(ctx.q, ctx.orgId, p.memberId);
    checkVersion('profile', p.memberId, row.version, p.ifVersion);
    const before = avatarOf(row);
    const sizes = prepared.sizes;
    const payload = { memberId: p.memberId, source: p.blob, sha256: sizes, removed: sizes === null };
    if (JSON.stringify(before) === JSON.stringify(sizes)) {
      const view = await loadProfile(ctx.q, ctx.deps.blobs, ctx.orgId, member);
      await ctx.emit('profile.avatar.update', p.memberId, { ...payload, version: Number(row.version), noop: true });
      return { profile: view, changed: false };
    }
    // The agent lane (domain/people/member/lane.ts): retry mode, as the images are made before the transaction (prepare).
    await laneSignature(ctx, member.kind === 'human', {
      subjectId: p.memberId,
      summary: `${sizes === null ? 'Remove the picture' : 'Set a new picture'} on the profile of ${member.name} (${p.memberId}), a human`,
      params: p,
      completion: 'retry',
    });
    const holder = avatarHolder(p.memberId);
    // ctx.q is the call's transaction (the blob references must commit or roll back with the profile).
    const tx = ctx.q as TxQueryable;
    await releaseHolder(tx, { orgId: ctx.orgId, holder });
    for (const sha256 of Object.values(sizes ?? {})) {
      await referenceBlob(tx, { orgId: ctx.orgId, sha256, holder, by: ctx.principal.id, uploadedBy: ctx.principal.id, field: 'blob' });
    }
    await ctx.q.query(`UPDATE profiles SET avatar = $3::jsonb, version = version + 1, updated_at = now() WHERE org_id = $1 AND member_id = $2`, [
      ctx.orgId,
      p.memberId,
      sizes === null ? null : JSON.stringify(sizes),
    ]);
    const view = await loadProfile(ctx.q, ctx.deps.blobs, ctx.orgId, member);
    await ctx.emit('profile.avatar.update', p.memberId, { ...payload, version: view.version });
    return { profile: view, changed: true };
  },
  {
    prepare: async (ctx, p): Promise<Prepared> => {
      // Who may, before any image work; the transaction checks again.
      await requireProfileWriter(ctx.db, ctx.principal, 'profile.updateAvatar', ctx.orgId, p.memberId);
      if (p.blob === null) return { sizes: null };
      const images = await avatarImages(await uploadedImage(ctx.deps.blobs, ctx.orgId, ctx.principal.id, p.blob));
      const sizes: Record<string, string> = {};
      for (const [size, bytes] of images) {
        // Held by nothing until the call commits: an upload GC keeps for BLOB_GC_GRACE_MS.
        const stored = await ctx.deps.blobs.upload({
          orgId: ctx.orgId,
          principalId: ctx.principal.id,
          body: Readable.from([bytes]),
          contentType: 'image/webp',
        });
        sizes[String(size)] = stored.sha256;
      }
      return { sizes };
    },
  },
);

const escapeXml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

/** Up to two initials: the first letters of the first and last words of the name. */
export function initialsOf(name: string): string {
  const words = name
    .trim()
    .split(/\s+/)
    .filter((w) => /\p{L}|\p{N}/u.test(w));
  const first = (w: string | undefined) => (w ? (Array.from(w).find((ch) => /\p{L}|\p{N}/u.test(ch)) ?? '') : '');
  return (first(words[0]) + (words.length > 1 ? first(words[words.length - 1]) : '')).toLocaleUpperCase() || '?';
}

/** The default avatar: initials on a colour chosen from the member id (stable, unlike one from the name). */
export function initialsSvg(memberId: string, name: string, size: number): string {
  const hue = createHash('sha256').update(memberId).digest().readUInt16BE(0) % 360;
  const font = Math.round(size * 0.42);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}" role="img" aria-label="${escapeXml(name)}">` +
    `<rect width="100%" height="100%" fill="hsl(${hue}, 45%, 40%)"/>` +
    `<text x="50%" y="50%" dy=".35em" text-anchor="middle" fill="#fff" font-family="system-ui, sans-serif" font-size="${font}">${escapeXml(initialsOf(name))}</text>` +
    `</svg>`
  );
}
