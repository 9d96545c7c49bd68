import { createCipheriv, createDecipheriv, hash, hkdfSync, randomBytes } from 'node:crypto';
import type { IdempotencyScope } from './idempotency.js';

/*
 * A stored frame that carries a secret (a minted API key) is kept only sealed: AES-256-GCM under a key derived
 * (HKDF-SHA256) from the calling API key, which the server never stores (it keeps a SHA-256 of it), and bound
 * to its idempotency row. A retry with the same API key opens it and replays the same bytes; the database alone,
 * or any other key, opens nothing. Deriving from the bearer secret adds nothing an attacker holding the database
 * lacked: the key's hash there already allows exactly the same offline guessing.
 */

const VERSION = 'v1';
const TAG_BYTES = 16;

/** The row the frame belongs to: HKDF info and GCM additional data, so a blob copied to another row does not open. */
const rowContext = (s: IdempotencyScope): Buffer => Buffer.from(['wops idempotency frame', VERSION, s.orgId, s.actor, s.method, s.key].join('\0'));

function frameKey(bearer: string, salt: Buffer, context: Buffer): Buffer {
  // HKDF's info is limited to 1024 bytes; a 255-character key can come close in UTF-8, so its digest goes in.
  return Buffer.from(hkdfSync('sha256', bearer, salt, hash('sha256', context, 'buffer'), 32));
}

/** `v1.<salt>.<iv>.<ciphertext+tag>`, base64url. */
export function sealFrame(frame: string, bearer: string, s: IdempotencyScope): string {
  const context = rowContext(s);
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', frameKey(bearer, salt, context), iv);
  cipher.setAAD(context);
  const body = Buffer.concat([cipher.update(frame, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return [VERSION, salt.toString('base64url'), iv.toString('base64url'), body.toString('base64url')].join('.');
}

/** The frame, or undefined when this bearer (or this row) is not the one it was sealed for. */
export function openFrame(sealed: string, bearer: string, s: IdempotencyScope): string | undefined {
  const [version, salt, iv, body, extra] = sealed.split('.');
  if (version !== VERSION || body === undefined || extra !== undefined) return undefined;
  const context = rowContext(s);
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length < TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', frameKey(bearer, Buffer.from(salt, 'base64url'), context), Buffer.from(iv, 'base64url'));
    decipher.setAAD(context);
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    // Another key: GCM's tag does not verify.
    return undefined;
  }
}
