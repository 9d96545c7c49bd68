/*
 * Mail domains anyone can sign up to: an address there says nothing about a person's employer, so dedupe never
 * pairs two people for sharing one (directory dedupe rule 3 and 4). Kept in the repository (the npm lists fetch
 * at install time and fail offline); short on purpose: the providers most addresses come from, with Australia's
 * ISPs, and the registrable domain is compared (mail.example.com counts as example.com).
 */
export const FREE_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  // Google, Microsoft, Apple, Yahoo, AOL
  'gmail.com',
  'googlemail.com',
  'outlook.com',
  'outlook.com.au',
  'hotmail.com',
  'hotmail.com.au',
  'hotmail.co.uk',
  'live.com',
  'live.com.au',
  'msn.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'yahoo.com',
  'yahoo.com.au',
  'yahoo.co.uk',
  'ymail.com',
  'rocketmail.com',
  'aol.com',
  // Privacy-minded and independent providers
  'proton.me',
  'protonmail.com',
  'pm.me',
  'fastmail.com',
  'fastmail.fm',
  'tutanota.com',
  'tuta.io',
  'hey.com',
  'zoho.com',
  // Europe
  'gmx.com',
  'gmx.net',
  'gmx.de',
  'web.de',
  't-online.de',
  'mail.com',
  'orange.fr',
  'free.fr',
  'laposte.net',
  'libero.it',
  'seznam.cz',
  'yandex.com',
  'yandex.ru',
  'mail.ru',
  // Asia
  'qq.com',
  '163.com',
  '126.com',
  'naver.com',
  'rediffmail.com',
  // Australian ISPs (home broadband mailboxes)
  'bigpond.com',
  'bigpond.net.au',
  'optusnet.com.au',
  'iinet.net.au',
  'tpg.com.au',
  'westnet.com.au',
]);

/** Whether a registrable domain (lower case, ASCII) is a free-mail provider's. */
export const isFreeMail = (domain: string | null | undefined): boolean => domain != null && FREE_MAIL_DOMAINS.has(domain);
