import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  // 252 = 7 * 36: bytes above it are rejected so every character is equally likely.
  for (let i = 0; out.length < length; i++) {
    if (i >= bytes.length) return out + randomToken(length - out.length);
    if (bytes[i] < 252) out += ALPHABET[bytes[i] % 36];
  }
  return out;
}

/** A prefixed id, e.g. `task_0k3v9x...`: 16 base-36 characters, about 82 bits. */
export const newId = (prefix: string): string => `${prefix}_${randomToken(16)}`;

/** A bearer secret: 40 base-36 characters (about 206 bits), recognisable by its prefix. */
export const newApiKeySecret = (): string => `wops_${randomToken(40)}`;

export const newSecret = (prefix: string, length = 32): string => `${prefix}_${randomToken(length)}`;
