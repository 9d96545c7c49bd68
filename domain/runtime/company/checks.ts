import { badRequest } from '../../../protocol/errors.js';

/*
 * The company profile's checks, by hand and by Intl (no library): the ABN's modulus-89 checksum, IANA zones and
 * ISO 4217 currencies as this Node knows them, ISO 3166 regions by Intl.DisplayNames, E.164 numbers by shape.
 */

const ABN_WEIGHTS = [10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19];

/** An ABN's 11 digits (spaces dropped) if its checksum holds: subtract 1 from the first digit, weigh, sum, modulo 89. */
export function checkAbn(field: string, value: string): string {
  const digits = value.replace(/ /g, '');
  if (!/^\d{11}$/.test(digits)) throw badRequest(field, 'must be 11 digits (spaces allowed)');
  const sum = [...digits].reduce((acc, d, i) => acc + (Number(d) - (i === 0 ? 1 : 0)) * ABN_WEIGHTS[i], 0);
  if (sum % 89 !== 0) throw badRequest(field, 'is not a valid ABN (its checksum fails): check the digits');
  return digits;
}

let zones: Set<string> | undefined;
let currencies: Set<string> | undefined;

export function checkZone(field: string, value: string): string {
  zones ??= new Set([...Intl.supportedValuesOf('timeZone'), 'UTC']);
  if (!zones.has(value)) throw badRequest(field, 'must be an IANA time zone such as Australia/Sydney');
  return value;
}

export function checkCurrency(field: string, value: string): string {
  currencies ??= new Set(Intl.supportedValuesOf('currency'));
  if (!currencies.has(value)) throw badRequest(field, 'must be an ISO 4217 currency code such as AUD');
  return value;
}

export function checkPhone(field: string, value: string): string {
  if (!/^\+[1-9]\d{6,14}$/.test(value)) throw badRequest(field, 'must be an E.164 number: + and 7 to 15 digits, e.g. +61290000000');
  return value;
}

const regions = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });

export function checkCountry(field: string, value: string): string {
  const name = regions.of(value);
  if (!name || name === 'Unknown Region') throw badRequest(field, 'must be an ISO 3166 country code such as AU');
  return value;
}
