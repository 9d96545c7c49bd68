import type { Verdict } from '../receive.js';
import type { DnsResolver } from './config.js';

/*
 * SPF, DKIM and DMARC of one arriving message, by mailauth's authenticate: SPF of the client's address for the
 * MAIL FROM domain (or the HELO name for a bounce), every DKIM signature, and DMARC's alignment of the From domain
 * with a passing SPF or DKIM domain. Lookups go through the injected resolver (tests answer offline) and are bounded
 * in time: a DNS outage gives temperror verdicts, never a lost message. BIMI is not checked (nothing shows logos).
 */

export interface AuthInput {
  raw: Buffer;
  /** The connecting client's address. */
  ip: string;
  /** Its EHLO/HELO name. */
  helo: string;
  /** MAIL FROM ('' for a bounce). */
  mailFrom: string;
  /** This server's name, for Authentication-Results. */
  mta: string;
  resolver?: DnsResolver;
  timeoutMs: number;
}

export interface AuthVerdicts {
  spf: Verdict;
  dkim: Verdict;
  dmarc: Verdict;
}

const VERDICTS = new Set<Verdict>(['pass', 'fail', 'softfail', 'neutral', 'none', 'temperror', 'permerror', 'policy']);
const verdict = (v: string | undefined): Verdict => (v && VERDICTS.has(v as Verdict) ? (v as Verdict) : v ? 'permerror' : 'none');

/** IPv4 clients reach a dual-stack socket as ::ffff:a.b.c.d; SPF wants a.b.c.d. */
export const plainIp = (ip: string): string => ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

export async function checkAuth(input: AuthInput): Promise<AuthVerdicts> {
  const { authenticate } = await import('mailauth');
  const run = authenticate(input.raw, {
    ip: plainIp(input.ip),
    helo: input.helo,
    sender: input.mailFrom,
    mta: input.mta,
    resolver: input.resolver,
    disableBimi: true,
  });
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), input.timeoutMs);
  });
  try {
    // mailauth refusing the message itself (it cannot be parsed) is no verdict to retry for.
    const res = await Promise.race([run, late]).catch(() => 'broken' as const);
    if (res === 'broken') return { spf: 'permerror', dkim: 'permerror', dmarc: 'permerror' };
    if (res === 'late') return { spf: 'temperror', dkim: 'temperror', dmarc: 'temperror' };
    const signatures = res.dkim.results ?? [];
    const dkim: Verdict = signatures.length === 0 ? 'none' : signatures.some((s) => s.status.result === 'pass') ? 'pass' : verdict(signatures[0].status.result);
    return {
      spf: res.spf ? verdict(res.spf.status.result) : 'none',
      dkim,
      dmarc: res.dmarc ? verdict(res.dmarc.status.result) : 'none',
    };
  } finally {
    clearTimeout(timer);
    // A lookup still running after the deadline settles into nothing.
    run.catch(() => undefined);
  }
}
