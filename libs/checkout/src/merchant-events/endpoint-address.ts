import { lookup as dnsLookup, LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * The SSRF guard of webhook endpoints: an endpoint is a URL an admin types, and the worker POSTs
 * to it from inside the shop's network, so it must not reach loopback, private, link-local or
 * cloud-metadata addresses unless WEBHOOK_ALLOW_PRIVATE says the shop wants that. Checked when
 * an endpoint is saved and again on every connection (a name may resolve elsewhere later).
 */
export interface EndpointAddressRules {
  /** https only (production, unless private addresses are allowed). */
  requireHttps: boolean;
  allowPrivate: boolean;
}

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a private address',
  linkLocal: 'a link-local address (cloud metadata lives there)',
  carrierGradeNat: 'a carrier-grade NAT address (some clouds put metadata there)',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/** Why the worker must not connect to this IP, or null when it is a public unicast address. */
export function addressProblem(ip: string): string | null {
  if (!ipaddr.isValid(ip)) return `${ip} is not an IP address`;
  // process() turns ::ffff:10.0.0.1 into 10.0.0.1, so a mapped address is judged as what it is.
  const range = ipaddr.process(ip).range();
  if (range === 'unicast') return null;
  return `${ip} is ${RANGE_WORDS[range] ?? `in the ${range} range`}`;
}

export type Resolver = (hostname: string) => Promise<string[]>;

const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses.map((a) => a.address)),
    ),
  );

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Why this URL cannot be an endpoint, in words for the admin, or null. */
export async function endpointUrlProblem(
  raw: string,
  rules: EndpointAddressRules,
  resolve: Resolver = systemResolver,
): Promise<string | null> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  if (rules.requireHttps && url.protocol !== 'https:') return 'must use https in production';
  if (url.hash) return 'must not have a #fragment';
  if (rules.allowPrivate) return null;
  const host = bareHost(url);
  let addresses: string[];
  if (isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await resolve(host);
    } catch {
      return `${host} does not resolve`;
    }
  }
  for (const address of addresses) {
    const problem = addressProblem(address);
    if (problem) return `resolves to ${problem}`;
  }
  return null;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http.request that refuses forbidden addresses at connect time, after DNS, so a
 * name that later resolves to a private address (DNS rebinding) reaches nothing.
 */
export function guardedLookup(
  hostname: string,
  options: LookupOptions,
  callback: LookupCallback,
): void {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    for (const { address } of addresses) {
      const problem = addressProblem(address);
      if (problem) {
        const refused: NodeJS.ErrnoException = new Error(
          `refused: ${hostname} resolves to ${problem}`,
        );
        refused.code = 'EWEBHOOKADDRESS';
        return callback(refused, []);
      }
    }
    if (options.all) return callback(null, addresses);
    const [first] = addresses;
    return callback(null, first.address, first.family);
  });
}

/** The host of a URL when it is an IP literal (connections to those skip the lookup). */
export function literalAddress(raw: string): string | null {
  try {
    const host = bareHost(new URL(raw));
    return isIP(host) ? host : null;
  } catch {
    return null;
  }
}
