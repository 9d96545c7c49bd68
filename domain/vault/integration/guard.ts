import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { badRequest } from '../../../protocol/errors.js';

/*
 * What an integration may reach (SSRF). The URL: https, no user or password, no query or fragment; http only to a
 * host in INTEGRATION_ALLOW_HOSTS. The address: never loopback, private, link-local, unique-local or CGNAT, checked
 * on the literal in the URL and again on every address DNS answers at connect time (undici's connect.lookup), so
 * a name that re-resolves to 10.0.0.5 after the check (DNS rebinding) is refused on the socket it would use.
 */

const BLOCKED = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  BLOCKED.addSubnet(net, prefix, 'ipv6');

/** An IPv4-mapped IPv6 address (::ffff:10.0.0.5) is judged as the IPv4 address it carries. */
export function isBlockedAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return BLOCKED.check(mapped[1], 'ipv4');
  const family = isIP(address);
  if (family === 0) return true;
  return BLOCKED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

/** The URL an integration may be connected to, or BAD_REQUEST `url` saying why not. */
export function checkUrl(raw: string, allowHosts: readonly string[]): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRequest('url', 'must be an absolute URL (https://host/path)');
  }
  const host = bare(url.hostname);
  const allowed = allowHosts.map(bare).includes(host);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && allowed)) throw badRequest('url', 'must use https');
  if (url.username || url.password) throw badRequest('url', 'must not carry a user or password: put the credential in auth');
  if (url.search || url.hash) throw badRequest('url', 'must not carry a query or fragment: put the credential in auth');
  if (!allowed && isIP(host) && isBlockedAddress(host)) {
    throw badRequest('url', `${host} is a private, loopback or link-local address, which integrations may not reach`);
  }
  return url;
}

/** The socket-time check: DNS answers that include a blocked address fail the connection. */
function guardedLookup(allowHosts: readonly string[]) {
  const allowed = new Set(allowHosts.map(bare));
  return (hostname: string, options: object, callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const list = addresses;
      const bad = allowed.has(bare(hostname)) ? undefined : list.find((a) => isBlockedAddress(a.address));
      if (bad) {
        const refused: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${bad.address}, a private or loopback address integrations may not reach`);
        refused.code = 'EPRIVATEADDRESS';
        return callback(refused, []);
      }
      if ((options as { all?: boolean }).all) return callback(null, list);
      return callback(null, list[0].address, list[0].family);
    });
  };
}

const agents = new Map<string, Agent>();

/** A fetch whose connections pass the address guard (one agent per allow-list, kept for its connection pool). */
export function guardedFetch(allowHosts: readonly string[]): typeof fetch {
  const key = [...allowHosts].sort().join(',');
  let agent = agents.get(key);
  if (!agent) {
    agent = new Agent({ connect: { lookup: guardedLookup(allowHosts) }, keepAliveTimeout: 10_000 });
    agents.set(key, agent);
  }
  const dispatcher = agent;
  return ((input: string | URL, init?: RequestInit) => undiciFetch(input, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}
