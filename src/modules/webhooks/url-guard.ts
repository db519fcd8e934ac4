import { type LookupAddress, type LookupOptions, lookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

export const MAX_URL_LENGTH = 2048;

/** Names that reach the host itself or a cloud metadata service whatever they resolve to. */
const BLOCKED_NAMES = new Set(['localhost', 'metadata', 'metadata.google.internal', 'instance-data']);
const BLOCKED_SUFFIXES = ['.localhost', '.internal', '.local'];

/**
 * Why webhooks and feeds may not reach this address (loopback, private, link-local, CGNAT, unspecified, multicast,
 * reserved...), or null for an ordinary public unicast address. IPv4-mapped IPv6 addresses are judged as IPv4; the
 * other IPv6 forms that carry an IPv4 address are refused whatever it is: IPv4-compatible `::/96` (`[::127.0.0.1]`
 * is `[::7f00:1]`, which ipaddr.js calls unicast), IPv4-translated `::ffff:0:0:0/96`, NAT64 `64:ff9b::/96` and
 * `64:ff9b:1::/48`, 6to4 `2002::/16` and Teredo `2001::/32`, since a gateway on the way may deliver them to it.
 */
export function forbiddenRange(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) {
      ip = v6.toIPv4Address();
    } else if (v6.match(IPV4_COMPATIBLE) && v6.range() === 'unicast') {
      return 'IPv4-compatible';
    }
  }
  const range = ip.range();
  return range === 'unicast' ? null : range;
}

/** `::/96`: the unspecified and loopback addresses have ranges of their own; the rest embed an IPv4 address. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

function literalHost(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return ipaddr.isValid(bare) ? bare : null;
}

function blockedName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return BLOCKED_NAMES.has(name) || BLOCKED_SUFFIXES.some((suffix) => name.endsWith(suffix));
}

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    lookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

/**
 * Decides which webhook URLs may be called. Checked when a subscription is created and again on every delivery,
 * where the connection is made to exactly the addresses that were checked (no second DNS answer can slip in).
 * `allowPrivate` (WEBHOOK_ALLOW_PRIVATE) lifts the address rules for local development and tests.
 */
const LOCAL_NAME = 'names this computer, a local network or a cloud metadata service';

export class UrlGuard {
  constructor(
    private readonly allowPrivate: boolean,
    private readonly resolve: Resolver = systemResolver,
  ) {}

  /** The problem with this URL in words, or null when a webhook may be sent to it. */
  async problemWith(raw: string): Promise<string | null> {
    const syntax = this.syntaxProblem(raw);
    if (syntax) return syntax;
    if (this.allowPrivate) return null;
    const url = new URL(raw);
    const literal = literalHost(url.hostname);
    if (literal !== null) {
      const range = forbiddenRange(literal);
      return range ? `${literal} is a ${range} address, which webhooks may not reach` : null;
    }
    if (blockedName(url.hostname)) return `must be a public address: ${url.hostname} ${LOCAL_NAME}`;
    let addresses: LookupAddress[];
    try {
      addresses = await this.resolve(url.hostname);
    } catch {
      return `${url.hostname} does not resolve`;
    }
    if (addresses.length === 0) return `${url.hostname} does not resolve`;
    for (const { address } of addresses) {
      const range = forbiddenRange(address);
      if (range)
        return `${url.hostname} resolves to ${address}, a ${range} address, which webhooks may not reach`;
    }
    return null;
  }

  syntaxProblem(raw: string): string | null {
    if (raw.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'is not a URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
    if (url.username || url.password) return 'must not carry credentials; put a token in the path or query';
    if (!url.hostname) return 'has no host';
    return null;
  }

  /**
   * A DNS lookup for http.request that refuses names resolving to any forbidden address, so the address
   * connected to is one that was checked. Null when the address rules are lifted.
   */
  connectLookup(): LookupFunction | null {
    if (this.allowPrivate) return null;
    const resolve = this.resolve;
    return (hostname: string, options: LookupOptions, callback) => {
      const fail = (message: string) =>
        callback(Object.assign(new Error(message), { code: 'EADDRNOTALLOWED' }), '', 0);
      if (blockedName(hostname)) return fail(`${hostname} ${LOCAL_NAME}`);
      resolve(hostname).then(
        (addresses) => {
          const first = addresses[0];
          if (!first) return fail(`${hostname} does not resolve`);
          for (const { address } of addresses) {
            const range = forbiddenRange(address);
            if (range) return fail(`${hostname} resolves to ${address}, a ${range} address`);
          }
          if (options.all) callback(null, addresses);
          else callback(null, first.address, first.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, '', 0),
      );
    };
  }

  /** For an IP-literal URL (never passed to a lookup), the reason it is refused at delivery. */
  literalProblem(url: URL): string | null {
    if (this.allowPrivate) return null;
    const literal = literalHost(url.hostname);
    if (literal === null) return null;
    const range = forbiddenRange(literal);
    return range ? `${literal} is a ${range} address` : null;
  }
}
