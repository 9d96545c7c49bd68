import { domainToASCII } from 'node:url';
import type { CountryCode } from 'libphonenumber-js/max';
import type Validator from 'validator';
import { lazyModule as lazy } from '../../config/lazy.js';
import { badRequest, fieldIn } from '../../protocol/errors.js';
import { abnChecksumOk } from '../../protocol/methods/books/common.js';

/*
 * What matching compares. A channel keeps the value as given (shown back, exported) and a key: the email key,
 * E.164 for a phone, service:handle for an IM. Errors name the caller's field (`channels.1.value: …`).
 */

// Loaded by the first value that needs them: libphonenumber-js with its full metadata, tldts and validator cost
// about 0.4 s together.
const phones = lazy<typeof import('libphonenumber-js/max')>('libphonenumber-js/max');
const domains = lazy<typeof import('tldts')>('tldts');
const validator = lazy<typeof Validator>('validator');

/**
 * Phone numbers without a country code are read as this country's. The org records no country of its own (its
 * only place is books_settings.state, an Australian state), so this is the one place to change when it does.
 */
export const DEFAULT_COUNTRY: CountryCode = 'AU';

export type ChannelKind = 'email' | 'phone' | 'im';

export interface ChannelKey {
  kind: ChannelKind;
  service: string | null;
  /** As given, trimmed. */
  value: string;
  key: string;
  /** An email's registrable domain (ASCII), else null. */
  domain: string | null;
}

/*
 * Provider rules: only where the provider itself delivers both forms to one mailbox. Gmail ignores dots and
 * +tags (and googlemail.com is gmail.com); Outlook.com and iCloud deliver +tags to the base address; Yandex's
 * domains are one service. Yahoo's "-keyword" addresses are separate disposable names (nickname-keyword, where
 * the nickname is not the account's address), so they are left alone.
 */
const PROVIDER_RULES = {
  all_lowercase: true,
  gmail_remove_dots: true,
  gmail_remove_subaddress: true,
  gmail_convert_googlemaildotcom: true,
  outlookdotcom_remove_subaddress: true,
  icloud_remove_subaddress: true,
  yahoo_remove_subaddress: false,
  yandex_convert_yandexru: true,
} as const;

/** The registrable domain of a host name (private suffixes count: two github.io sites are two domains). */
export function registrableDomain(host: string): string | null {
  return domains().getDomain(host, { allowPrivateDomains: true });
}

/** An email address's key and domain, or null when it is not an address. Domains as IDNA ASCII, lower case. */
export function tryEmail(value: string): ChannelKey | null {
  const trimmed = value.trim();
  const at = trimmed.lastIndexOf('@');
  if (at < 1 || at === trimmed.length - 1 || /\s/.test(trimmed)) return null;
  const host = domainToASCII(trimmed.slice(at + 1).toLowerCase());
  if (!host) return null;
  const address = `${trimmed.slice(0, at).normalize('NFC')}@${host}`;
  if (!validator().isEmail(address, { allow_utf8_local_part: true, require_tld: true, allow_ip_domain: false })) return null;
  const key = validator().normalizeEmail(address, PROVIDER_RULES);
  if (!key) return null;
  const keyHost = key.slice(key.lastIndexOf('@') + 1);
  return { kind: 'email', service: null, value: trimmed, key, domain: registrableDomain(keyHost) ?? keyHost };
}

export function normaliseEmail(value: string, field: string): ChannelKey {
  const email = tryEmail(value);
  if (!email) throw badRequest(field, 'not a valid email address');
  return email;
}

/** E.164 of a valid number, read as `country`'s when it has no +country code; else null. */
export function tryPhone(value: string, country: CountryCode = DEFAULT_COUNTRY): ChannelKey | null {
  const trimmed = value.trim();
  if (!/\d/.test(trimmed)) return null;
  const parsed = phones().parsePhoneNumberFromString(trimmed, country);
  if (!parsed || !parsed.isValid()) return null;
  return { kind: 'phone', service: null, value: trimmed, key: parsed.number, domain: null };
}

export function normalisePhone(value: string, field: string, country: CountryCode = DEFAULT_COUNTRY): ChannelKey {
  const phone = tryPhone(value, country);
  if (phone) return phone;
  throw badRequest(field, value.trim().startsWith('+') ? 'not a valid phone number' : `not a valid ${country} phone number`);
}

/** An instant-messaging handle: its service and the handle, compared ignoring case. */
export function normaliseIm(service: string, value: string): ChannelKey {
  const svc = service.trim().toLowerCase();
  const trimmed = value.trim();
  return { kind: 'im', service: svc, value: trimmed, key: `${svc}:${trimmed.toLowerCase()}`, domain: null };
}

/** One channel as a caller gave it; `field` names it in errors (params.channels.1). */
export function normaliseChannel(c: { kind: ChannelKind; value: string; service?: string }, field: string, country: CountryCode = DEFAULT_COUNTRY): ChannelKey {
  if (c.kind === 'email') return normaliseEmail(c.value, fieldIn(field, 'value'));
  if (c.kind === 'phone') return normalisePhone(c.value, fieldIn(field, 'value'), country);
  if (!c.service) throw badRequest(fieldIn(field, 'service'), 'required for an im channel (e.g. slack, whatsapp)');
  if (!c.value.trim()) throw badRequest(fieldIn(field, 'value'), 'must not be blank');
  return normaliseIm(c.service, c.value);
}

/** A website as stored (with its scheme) and its registrable domain; refused when it is not a public web address. */
export function normaliseWebsite(website: string, field: string): { website: string; domain: string } {
  const trimmed = website.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `https://${trimmed}`;
  let host: string;
  try {
    const url = new URL(withScheme);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) throw new Error('not a site');
    host = url.hostname;
  } catch {
    throw badRequest(field, 'not a web address');
  }
  const parsed = domains().parse(host, { allowPrivateDomains: true });
  if (!parsed.domain || !(parsed.isIcann || parsed.isPrivate)) throw badRequest(field, 'not a public web address (no registrable domain)');
  const domain = parsed.domain;
  return { website: withScheme, domain };
}

/**
 * A registry number as compared: upper case without spaces, dots, dashes or slashes. An ABN must pass the ATO's
 * checksum and an ACN is 9 digits; other schemes (vat, ein, lei, company_number…) are taken as given.
 */
export function normaliseIdentifier(scheme: string, value: string, field: string): string {
  const v = value.replace(/[\s.\-/]/g, '').toUpperCase();
  if (!v) throw badRequest(field, 'must not be blank');
  if (scheme === 'abn' && !(/^\d{11}$/.test(v) && abnChecksumOk(v))) throw badRequest(field, 'not a valid ABN (11 digits, ATO checksum)');
  if (scheme === 'acn' && !/^\d{9}$/.test(v)) throw badRequest(field, 'not a valid ACN (9 digits)');
  return v;
}

/** Tags as stored: trimmed, lower case, unique, in the order given. */
export function normaliseTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim().toLowerCase()).filter((t) => t.length > 0))];
}
