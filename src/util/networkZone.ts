// Which network a host name is in: this machine (loopback), a private network, or the internet.
// Used to keep a remote server from pointing the editor at the user's own machine or network.
// Names are first canonicalised the way a browser does (`0x7f.1` and `2130706433` are 127.0.0.1).

export type NetworkZone = 'loopback' | 'private' | 'public';

/** How far inside a zone is: a server may only name zones no further inside than its own. */
const DEPTH: Record<NetworkZone, number> = { public: 0, private: 1, loopback: 2 };

export function zoneIsWithin(zone: NetworkZone, allowed: NetworkZone): boolean {
  return DEPTH[zone] <= DEPTH[allowed];
}

/** The zone of a URL's host (`new URL(...).hostname`: IPv6 in brackets, IPv4 canonical). */
export function zoneOfUrl(url: URL): NetworkZone {
  return zoneOfHostname(url.hostname);
}

/**
 * The zone of a host name as it would appear in a URL (`[::1]` or `::1`, `127.0.0.1`,
 * `printer.local`). A name that cannot be parsed is treated as public only if it has no
 * private-looking suffix; callers refuse unparsable entries elsewhere.
 */
export function zoneOfHostname(hostname: string): NetworkZone {
  let host = hostname.toLowerCase();
  if (host.endsWith('.')) host = host.slice(0, -1);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.includes(':')) return zoneOfIpv6(host);
  const canonical = canonicalHost(host);
  const v4 = parseIpv4(canonical);
  if (v4) return zoneOfIpv4(v4);
  if (canonical === 'localhost' || canonical.endsWith('.localhost')) return 'loopback';
  if (PRIVATE_SUFFIXES.some((suffix) => canonical === suffix || canonical.endsWith(`.${suffix}`))) return 'private';
  return 'public';
}

/** Names only a local network resolves (mDNS, RFC 8375, the names home routers hand out). */
const PRIVATE_SUFFIXES = ['local', 'home.arpa', 'internal', 'lan'];

function canonicalHost(host: string): string {
  try {
    return new URL(`http://${host.replace(/^\*\./, 'wildcard.')}/`).hostname;
  } catch {
    return host;
  }
}

function parseIpv4(host: string): number[] | undefined {
  const parts = host.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined;
}

function zoneOfIpv4([a, b]: number[]): NetworkZone {
  if (a === 127 || a === 0) return 'loopback';
  if (a === 10) return 'private';
  if (a === 172 && b >= 16 && b <= 31) return 'private';
  if (a === 192 && b === 168) return 'private';
  if (a === 169 && b === 254) return 'private';
  return 'public';
}

function zoneOfIpv6(host: string): NetworkZone {
  let canonical: string;
  try {
    canonical = new URL(`http://[${host}]/`).hostname.slice(1, -1);
  } catch {
    return 'private';
  }
  if (canonical === '::1' || canonical === '::') return 'loopback';
  // IPv4-mapped (::ffff:7f00:1 is 127.0.0.1): the zone of the IPv4 address.
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped) {
    const high = parseInt(mapped[1], 16);
    const low = parseInt(mapped[2], 16);
    return zoneOfIpv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  }
  const first = parseInt(canonical.split(':')[0] || '0', 16);
  if ((first & 0xfe00) === 0xfc00) return 'private'; // fc00::/7, unique local
  if ((first & 0xffc0) === 0xfe80) return 'private'; // fe80::/10, link local
  return 'public';
}
