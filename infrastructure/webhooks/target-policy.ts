import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may reach (SSRF protection). Only public unicast addresses, unless
 * WEBHOOK_ALLOW_PRIVATE_TARGETS allows loopback, private (RFC 1918), unique-local (fc00::/7) and
 * CGNAT (100.64/10) ones for development and tests. Cloud metadata addresses, link-local,
 * unspecified, multicast, broadcast and reserved ranges are refused always. IPv4-mapped IPv6
 * addresses (::ffff:0:0/96) are judged as the IPv4 address they carry; the deprecated
 * IPv4-compatible ones (::/96 other than :: and ::1, e.g. [::127.0.0.1], which URL parsing turns
 * into [::7f00:1]) are refused always.
 *
 * The check runs twice: at registration (the URL's host, resolved) and at connect time, inside the
 * connection's own DNS lookup (`guardedLookup`), so a name that resolves elsewhere later (DNS
 * rebinding) is still refused; IP-literal hosts never reach a lookup and are checked directly.
 */
export type TargetPolicy = {
  allowPrivate: boolean;
  /** Name resolution; tests inject one. Default: the system resolver (dns.lookup, all addresses). */
  resolve?: Resolve;
};

export type Resolve = (hostname: string) => Promise<LookupAddress[]>;

const METADATA_ADDRESSES = new Set(['169.254.169.254', 'fd00:ec2::254']);
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

export class TargetNotAllowedError extends Error {
  readonly code = 'WEBHOOK_TARGET_NOT_ALLOWED';
  constructor(readonly target: string, readonly reason: string) {
    super(`webhook target ${target} is not allowed (${reason})`);
    this.name = 'TargetNotAllowedError';
  }
}

export const systemResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * An IPv6 address with an embedded dotted quad in the form the WHATWG URL parser writes it
 * (::127.0.0.1 → ::7f00:1): ipaddr.js reads any "::a.b.c.d" as IPv4-mapped, hiding the ::/96 form.
 */
const canonicalIPv6 = (address: string): string => {
  if (isIP(address) !== 6 || !address.includes('.')) return address;
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
};

/** Why an IP address may not be reached, or null if it may. */
export const refusalReason = (address: string, allowPrivate: boolean): string | null => {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(canonicalIPv6(address));
  if (parsed.kind() === 'ipv6') {
    const words = (parsed as ipaddr.IPv6).parts;
    const compatible = words.slice(0, 6).every((word) => word === 0) && (words[6] !== 0 || words[7] > 1);
    if (compatible) return 'ipv4Compatible';
    if ((parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (METADATA_ADDRESSES.has(parsed.toNormalizedString()) || METADATA_ADDRESSES.has(parsed.toString())) return 'cloud metadata address';
  const range = parsed.range();
  if (range === 'unicast') return null;
  if (allowPrivate && PRIVATE_RANGES.has(range)) return null;
  return range;
};

const unbracket = (hostname: string): string => hostname.replace(/^\[(.*)\]$/, '$1');

const withTimeout = <T>(promise: Promise<T>, ms: number): Promise<T | undefined> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      () => {
        clearTimeout(timer);
        resolve(undefined);
      },
    );
  });

/**
 * The registration-time check. Returns why the URL is refused, or null. A host that cannot be
 * resolved now is accepted (it may be set up later): the connect-time check is the one that counts.
 */
export const checkWebhookUrl = async (raw: string, policy: TargetPolicy & { resolveTimeoutMs?: number }): Promise<string | null> => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a valid absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol.replace(':', '')} is not allowed (http or https only)`;
  const host = unbracket(url.hostname);
  if (!host) return 'the URL has no host';
  if (isIP(host)) {
    const reason = refusalReason(host, policy.allowPrivate);
    return reason ? `${host} is a ${reason} address` : null;
  }
  if (!policy.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) return `${host} is a loopback name`;
  const addresses = await withTimeout((policy.resolve ?? systemResolve)(host), policy.resolveTimeoutMs ?? 2000);
  for (const { address } of addresses ?? []) {
    const reason = refusalReason(address, policy.allowPrivate);
    if (reason) return `${host} resolves to ${address}, a ${reason} address`;
  }
  return null;
};

/** The connect-time check of an IP-literal host (these never go through a lookup). */
export const assertLiteralTargetAllowed = (hostname: string, allowPrivate: boolean): void => {
  const host = unbracket(hostname);
  if (!isIP(host)) return;
  const reason = refusalReason(host, allowPrivate);
  if (reason) throw new TargetNotAllowedError(host, reason);
};

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for net/tls connect (undici's `connect.lookup`): resolves, refuses the connection if
 * any address is not allowed, and answers in the shape the caller asked for.
 */
export const guardedLookup =
  (policy: TargetPolicy) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    (policy.resolve ?? systemResolve)(hostname).then(
      (all) => {
        const refused = all.find(({ address }) => refusalReason(address, policy.allowPrivate) !== null);
        if (refused) {
          callback(new TargetNotAllowedError(`${hostname} (${refused.address})`, refusalReason(refused.address, policy.allowPrivate) as string), '');
          return;
        }
        const family = options.family === 4 || options.family === 6 ? options.family : undefined;
        const addresses = family ? all.filter((entry) => entry.family === family) : all;
        if (addresses.length === 0) {
          callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
          return;
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
