import { createHmac, timingSafeEqual } from 'node:crypto';
import { newId } from '../../core/ids.js';

/*
 * A pairing for a slug no org has: answered exactly like a real one and stored nowhere. Its pairingId carries
 * its own expiry, masked by an HMAC under the instance key, and its pollSecret is an HMAC of slug and id, so a
 * later poll recognises it ("pending" until it expires, then "expired", as a real one no admin approved) without
 * a row, and nobody without the key can tell one from a real pairing or mint one that polls as valid.
 *
 * Shapes match the real ones (domain/core/ids.ts): `pair_` + 16 base-36 characters, `pps_` + 40. The 16 are 7 random
 * characters (a nonce) and the expiry in milliseconds as 9 base-36 digits, each shifted by a digit of
 * HMAC(slug, nonce) mod 36: uniform like the random ids, and decodable only with the key.
 */

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
const NONCE = 7;
const EXPIRY_DIGITS = 9; // 36^9 ms reaches the year 5138

const digitsOf = (key: string, slug: string, nonce: string): number[] => {
  const mac = createHmac('sha512', key).update(`pairing-decoy-id\u0000${slug}\u0000${nonce}`).digest();
  // One 32-bit word per digit, mod 36: a bias of 36 / 2^32, far below anything observable.
  return Array.from({ length: EXPIRY_DIGITS }, (_, i) => mac.readUInt32BE(i * 4) % 36);
};

export function decoyPairingId(key: string, slug: string, expiresAtMs: number): string {
  const nonce = newId('pair').slice('pair_'.length, 'pair_'.length + NONCE);
  const shift = digitsOf(key, slug, nonce);
  const expiry = expiresAtMs.toString(36).padStart(EXPIRY_DIGITS, '0');
  const masked = [...expiry].map((c, i) => ALPHABET[(ALPHABET.indexOf(c) + shift[i]) % 36]).join('');
  return `pair_${nonce}${masked}`;
}

export function decoyPollSecret(key: string, slug: string, pairingId: string): string {
  const mac = createHmac('sha256', key).update(`pairing-decoy-secret\u0000${slug}\u0000${pairingId}`).digest('hex');
  // 256 bits as base 36 (49.5 digits): the low 40 digits are uniform for any practical purpose.
  return `pps_${BigInt(`0x${mac}`).toString(36).padStart(40, '0').slice(-40)}`;
}

/** The expiry of a decoy pairing whose pollSecret is the one it was given, else undefined. */
export function decoyExpiry(key: string, slug: string, pairingId: string, pollSecret: string): number | undefined {
  const m = /^pair_([0-9a-z]{7})([0-9a-z]{9})$/.exec(pairingId);
  if (!m) return undefined;
  const expected = Buffer.from(decoyPollSecret(key, slug, pairingId));
  const given = Buffer.from(pollSecret);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const shift = digitsOf(key, slug, m[1]);
  const expiry = [...m[2]].map((c, i) => ALPHABET[(ALPHABET.indexOf(c) - shift[i] + 36) % 36]).join('');
  return parseInt(expiry, 36);
}
