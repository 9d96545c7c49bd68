import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Keyring } from './keys.js';

/*
 * Envelope encryption, node:crypto only. Each secret version gets a random 32-byte data key (DEK) that seals the
 * value with AES-256-GCM, the additional data binding it to `org|credential|version` (a sealed value moved to
 * another row does not open). The active master key wraps the DEK, also AES-256-GCM, bound to the same string and
 * the key id. Both blobs are iv (12) | tag (16) | ciphertext. The value is sealed before any SQL sees it.
 */

const IV = 12;
const TAG = 16;

function seal(key: Buffer, plain: Buffer, aad: string): Buffer {
  const iv = randomBytes(IV);
  const c = createCipheriv('aes-256-gcm', key, iv);
  c.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([c.update(plain), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]);
}

function open(key: Buffer, sealed: Buffer, aad: string): Buffer {
  const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, IV));
  d.setAAD(Buffer.from(aad, 'utf8'));
  d.setAuthTag(sealed.subarray(IV, IV + TAG));
  return Buffer.concat([d.update(sealed.subarray(IV + TAG)), d.final()]);
}

export const aadOf = (orgId: string, credentialId: string, version: number): string => `${orgId}|${credentialId}|${version}`;
const wrapAad = (aad: string, kekId: string): string => `${aad}|${kekId}`;

export interface SealedVersion {
  kekId: string;
  wrappedDek: Buffer;
  sealed: Buffer;
}

/** Seal a value under a fresh DEK wrapped by the active master key. */
export function sealValue(ring: Keyring, aad: string, value: string): SealedVersion {
  const dek = randomBytes(32);
  try {
    return {
      kekId: ring.active.id,
      wrappedDek: seal(ring.active.key, dek, wrapAad(aad, ring.active.id)),
      sealed: seal(dek, Buffer.from(value, 'utf8'), aad),
    };
  } finally {
    dek.fill(0);
  }
}

/** The master key a row names is not in VAULT_MASTER_KEYS (dropped before rewrap moved it). */
export class MissingKekError extends Error {
  constructor(readonly kekId: string) {
    super(`master key ${kekId} is not in VAULT_MASTER_KEYS`);
  }
}

function unwrap(ring: Keyring, v: SealedVersion, aad: string): Buffer {
  const kek = ring.byId.get(v.kekId);
  if (!kek) throw new MissingKekError(v.kekId);
  return open(kek, v.wrappedDek, wrapAad(aad, v.kekId));
}

/** Open a sealed version (throws when the key is missing or anything was altered). */
export function openValue(ring: Keyring, aad: string, v: SealedVersion): string {
  const dek = unwrap(ring, v, aad);
  try {
    return open(dek, v.sealed, aad).toString('utf8');
  } finally {
    dek.fill(0);
  }
}

/** The same DEK wrapped by the active master key (the sealed value is untouched). */
export function rewrapDek(ring: Keyring, aad: string, v: SealedVersion): { kekId: string; wrappedDek: Buffer } {
  const dek = unwrap(ring, v, aad);
  try {
    return { kekId: ring.active.id, wrappedDek: seal(ring.active.key, dek, wrapAad(aad, ring.active.id)) };
  } finally {
    dek.fill(0);
  }
}
