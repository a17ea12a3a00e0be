import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Cidr = [Address, number];

/** IPv4 ranges no webhook may reach (RFC 6890 special-purpose space that is not the public internet). */
const BLOCKED_V4 = [
  '0.0.0.0/8', // "this network"; 0.0.0.0 reaches the local host on most systems
  '10.0.0.0/8', // RFC 1918
  '100.64.0.0/10', // CGNAT (RFC 6598)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, including cloud metadata endpoints (169.254.169.254)
  '172.16.0.0/12', // RFC 1918
  '192.168.0.0/16', // RFC 1918
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved
  '255.255.255.255/32', // limited broadcast (inside 240/4, listed for clarity)
];

/** IPv6 ranges that are local by nature. */
const BLOCKED_V6 = [
  '::/128', // unspecified
  '::1/128', // loopback
  'fc00::/7', // unique local (ULA)
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated, still routed locally by some stacks)
  'ff00::/8', // multicast
  '64:ff9b:1::/48', // local-use IPv4/IPv6 translation (RFC 8215)
];

/**
 * IPv6 forms that carry an IPv4 address; a blocked IPv4 range (address, prefix length) is blocked in each of them: IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96)
 * and 6to4 (2002:aabb:ccdd::/48, which a 6to4 router tunnels straight to a.b.c.d).
 */
const EMBEDDING_FORMS: readonly ((v4: string, bits: number) => string)[] = [
  (v4, bits) => `::ffff:${v4}/${96 + bits}`,
  (v4, bits) => `::${v4}/${96 + bits}`,
  (v4, bits) => `64:ff9b::${v4}/${96 + bits}`,
  (v4, bits) => {
    const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(v4).octets;
    return `${new ipaddr.IPv6([0x2002, (a << 8) | b, (c << 8) | d, 0, 0, 0, 0, 0]).toString()}/${16 + bits}`;
  },
];

/** CIDRs a webhook may never reach: loopback, RFC 1918, link-local, CGNAT 100.64/10, 0.0.0.0/8, multicast, reserved
 *  240/4, broadcast, IPv6 unspecified/loopback, ULA fc00::/7, link-local fe80::/10, multicast ff00::/8, and the
 *  IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible and NAT64 (64:ff9b::/96) forms of the IPv4 ones. */
export const BLOCKED_RANGES: readonly string[] = Object.freeze([
  ...BLOCKED_V4,
  ...BLOCKED_V6,
  ...EMBEDDING_FORMS.flatMap((form) =>
    BLOCKED_V4.map((cidr) => {
      const [v4 = '', bits = '0'] = cidr.split('/');
      return form(v4, Number(bits));
    }),
  ),
]);

/** A canonical textual address (what DNS answers and WHATWG URLs contain); ipaddr.js alone would also accept
 *  "2130706433" or "0x7f.1", which no resolver returns. */
function parseAddress(text: string): Address | undefined {
  if (isIP(text) === 0) return undefined;
  try {
    return ipaddr.parse(text);
  } catch {
    return undefined;
  }
}

function parseCidr(entry: string): Cidr | undefined {
  const slash = entry.indexOf('/');
  const address = parseAddress(slash === -1 ? entry : entry.slice(0, slash));
  if (!address) return undefined;
  const max = address.kind() === 'ipv4' ? 32 : 128;
  if (slash === -1) return [address, max];
  const bitsText = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  return bits <= max ? [address, bits] : undefined;
}

/** The network address of a CIDR, so "10.1.2.3/8" reads back as "10.0.0.0/8". */
function formatCidr([address, bits]: Cidr): string {
  const network = address.kind() === 'ipv4'
    ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`)
    : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`);
  return `${network.toString()}/${bits}`;
}

/** Parses a comma/space separated CIDR list (a bare address means /32 or /128); throws Error naming the bad entry. */
export function parseCidrList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((entry) => {
      const cidr = parseCidr(entry);
      if (!cidr) throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 127.0.0.1/32, 10.0.0.0/8, ::1/128)`);
      return formatCidr(cidr);
    });
}

/** An IPv4-mapped IPv6 CIDR (::ffff:a.b.c.d/n, n ≥ 96) as the IPv4 CIDR it stands for. */
function unmapCidr([address, bits]: Cidr): Cidr {
  if (address.kind() === 'ipv6' && bits >= 96 && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
    return [(address as ipaddr.IPv6).toIPv4Address(), bits - 96];
  }
  return [address, bits];
}

function inAny(address: Address, ranges: readonly Cidr[]): boolean {
  return ranges.some(([network, bits]) => network.kind() === address.kind() && address.match(network, bits));
}

const BLOCKED: readonly Cidr[] = BLOCKED_RANGES.map((cidr) => ipaddr.parseCIDR(cidr));

/** Decides which addresses outbound requests may connect to. */
export class AddressPolicy {
  private readonly allowed: readonly Cidr[];

  /** allowPrivate: CIDRs exempt from the block (local development), in parseCidrList's syntax. */
  constructor(allowPrivate: readonly string[] = []) {
    this.allowed = allowPrivate.map((entry) => {
      const cidr = parseCidr(entry);
      if (!cidr) throw new Error(`"${entry}" is not an IP address or CIDR range`);
      return unmapCidr(cidr);
    });
  }

  /** True when the address is public, or private but inside an allowed CIDR. Handles IPv4-mapped IPv6 by
   *  checking the embedded IPv4 address. Unparseable → false. */
  isAllowed(ip: string): boolean {
    const address = parseAddress(ip);
    if (!address) return false;
    const forms: Address[] = [address];
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      forms.push((address as ipaddr.IPv6).toIPv4Address());
    }
    if (!forms.some((form) => inAny(form, BLOCKED))) return true;
    return forms.some((form) => inAny(form, this.allowed));
  }
}
