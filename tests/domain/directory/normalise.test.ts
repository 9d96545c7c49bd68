import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../protocol/errors.js';
import { FREE_MAIL_DOMAINS, isFreeMail } from '../../../domain/directory/free-mail.js';
import {
  normaliseChannel,
  normaliseEmail,
  normaliseIdentifier,
  normalisePhone,
  normaliseTags,
  normaliseWebsite,
  registrableDomain,
  tryEmail,
  tryPhone,
} from '../../../domain/directory/normalise.js';

/** The directory's normalisers: email keys with provider rules, E.164, registrable domains, identifiers. */

const message = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return `${(err as ApiError).code} ${(err as ApiError).message}`;
  }
  throw new Error('expected a refusal');
};

describe('email keys', () => {
  it('lower-case everywhere, IDN domains as ASCII, the registrable domain alongside', () => {
    expect(tryEmail('  Jane.Doe@ACME.com.au ')).toEqual({
      kind: 'email',
      service: null,
      value: 'Jane.Doe@ACME.com.au',
      key: 'jane.doe@acme.com.au',
      domain: 'acme.com.au',
    });
    expect(tryEmail('anna@Bücher.de')).toMatchObject({ key: 'anna@xn--bcher-kva.de', domain: 'xn--bcher-kva.de' });
    expect(tryEmail('ops@mail.sales.acme.co.uk')?.domain).toBe('acme.co.uk');
  });

  it('applies provider rules only where the provider ignores the difference', () => {
    // Gmail ignores dots and +tags, and googlemail.com is gmail.com.
    expect(tryEmail('Jane.Doe+news@googlemail.com')?.key).toBe('janedoe@gmail.com');
    // Outlook.com and iCloud deliver +tags to the base address; dots matter there.
    expect(tryEmail('jane.doe+x@outlook.com')?.key).toBe('jane.doe@outlook.com');
    expect(tryEmail('jane.doe+x@icloud.com')?.key).toBe('jane.doe@icloud.com');
    // Yahoo's -keyword addresses are separate names; company domains keep dots and tags.
    expect(tryEmail('jane-shopping@yahoo.com')?.key).toBe('jane-shopping@yahoo.com');
    expect(tryEmail('jane.doe+x@acme.com')?.key).toBe('jane.doe+x@acme.com');
  });

  it('refuses what is not an address, naming the field', () => {
    for (const bad of ['jane', 'jane@', '@acme.com', 'jane doe@acme.com', 'Jane <jane@acme.com>', 'jane@localhost', 'jane@acme..com', 'jane@1.2.3.4']) {
      expect(tryEmail(bad), bad).toBeNull();
    }
    expect(message(() => normaliseEmail('nope', 'channels.0.value'))).toBe('BAD_REQUEST channels.0.value: not a valid email address');
  });
});

describe('phone numbers', () => {
  it('E.164 from national (default AU) or international forms; extensions left out of the key', () => {
    for (const v of ['0412345678', '0412 345 678', '+61 412 345 678', '(+61) 412-345-678', '0412345678 ext 12'])
      expect(tryPhone(v)?.key, v).toBe('+61412345678');
    expect(tryPhone('(02) 9876 5432')?.key).toBe('+61298765432');
    expect(tryPhone('+44 20 7946 0958')?.key).toBe('+442079460958');
    expect(tryPhone('020 7946 0958', 'GB')?.key).toBe('+442079460958');
  });

  it('refuses invalid numbers naming the field and the country it was read as', () => {
    expect(message(() => normalisePhone('12345', 'channels.1.value'))).toBe('BAD_REQUEST channels.1.value: not a valid AU phone number');
    expect(message(() => normalisePhone('0412', 'value', 'NZ'))).toBe('BAD_REQUEST value: not a valid NZ phone number');
    expect(message(() => normalisePhone('+1 555', 'value'))).toBe('BAD_REQUEST value: not a valid phone number');
    expect(tryPhone('call me')).toBeNull();
  });
});

describe('channels, websites, identifiers, tags', () => {
  it('im handles by service, compared ignoring case; a service is required', () => {
    expect(normaliseChannel({ kind: 'im', service: 'Slack', value: ' @Jane ' }, 'channels.2')).toMatchObject({
      service: 'slack',
      value: '@Jane',
      key: 'slack:@jane',
    });
    expect(message(() => normaliseChannel({ kind: 'im', value: 'jane' }, 'channels.2'))).toMatch(/^BAD_REQUEST channels\.2\.service: required/);
  });

  it('websites keep their scheme; the registrable domain is compared (private suffixes count)', () => {
    expect(normaliseWebsite('www.acme.com.au/about', 'website')).toEqual({ website: 'https://www.acme.com.au/about', domain: 'acme.com.au' });
    expect(normaliseWebsite('https://shop.Bücher.de', 'website').domain).toBe('xn--bcher-kva.de');
    expect(registrableDomain('acme.github.io')).toBe('acme.github.io');
    expect(message(() => normaliseWebsite('ftp://acme.com', 'website'))).toBe('BAD_REQUEST website: not a web address');
    expect(message(() => normaliseWebsite('mailto:jane@acme.com', 'website'))).toBe('BAD_REQUEST website: not a web address');
    for (const local of ['localhost', 'intranet.corp', '10.0.0.1']) {
      expect(
        message(() => normaliseWebsite(local, 'website')),
        local,
      ).toMatch(/^BAD_REQUEST website: not a public web address/);
    }
  });

  it('identifiers: spaces and dots out, upper case; an ABN passes the ATO checksum, an ACN has 9 digits', () => {
    expect(normaliseIdentifier('abn', '51 824 753 556', 'f')).toBe('51824753556');
    expect(normaliseIdentifier('vat', 'gb 123.456.789', 'f')).toBe('GB123456789');
    expect(message(() => normaliseIdentifier('abn', '51 824 753 557', 'identifiers.abn'))).toMatch(/^BAD_REQUEST identifiers\.abn: not a valid ABN/);
    expect(message(() => normaliseIdentifier('acn', '1234', 'identifiers.acn'))).toMatch(/not a valid ACN/);
  });

  it('tags: trimmed, lower case, unique', () => {
    expect(normaliseTags([' VIP', 'vip', 'Supplier ', ''])).toEqual(['vip', 'supplier']);
  });

  it('free-mail list: registrable domains only, real providers', () => {
    for (const d of FREE_MAIL_DOMAINS) expect(registrableDomain(d), d).toBe(d);
    expect(isFreeMail('gmail.com')).toBe(true);
    expect(isFreeMail('bigpond.com')).toBe(true);
    expect(isFreeMail('acme.com.au')).toBe(false);
    expect(isFreeMail(null)).toBe(false);
  });
});
