/**
 * Which hosts a user-given URL may point at. The WHATWG URL parser has already normalised
 * hostnames (decimal, octal and hex IPv4 forms become dotted quads; IPv6 is bracketed), so the
 * checks below see one canonical spelling.
 */
export interface AddressPolicy {
  /** Loopback and private ranges (RFC 1918, CGNAT, IPv6 ULA and site-local): allowed off production only. */
  allowPrivateNetworks: boolean;
  /** A DNS-over-HTTPS endpoint (JSON API) that host names are resolved with before they are fetched; none: names are not resolved. */
  resolverUrl?: string;
}

/** Names that always mean this machine or a private network, whatever DNS says. */
const LOOPBACK_NAMES = new Set(["localtest.me", "lvh.me", "vcap.me", "lacolhost.com"]);

/** The deployment's policy for user-given URLs. */
/** The deployment's settings for user-given URLs (ALLOW_PRIVATE_NETWORK_URLS, DNS_RESOLVER_URL), as parsed into Config. */
export interface AddressSettings {
  allowPrivateNetworkUrls: boolean;
  dnsResolverUrl: string | undefined;
}

export function addressPolicyFor(config: AddressSettings): AddressPolicy {
  return { allowPrivateNetworks: config.allowPrivateNetworkUrls, resolverUrl: config.dnsResolverUrl };
}

export type AddressVerdict = { ok: true } | { ok: false; reason: string };

const METADATA_HOSTS = new Set(["metadata.google.internal", "metadata", "metadata.azure.com", "instance-data", "instance-data.ec2.internal"]);
/** Metadata services outside link-local space (Alibaba Cloud). */
const METADATA_IPV4 = new Set(["100.100.100.200"]);

export function checkHost(hostname: string, policy: AddressPolicy): AddressVerdict {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (METADATA_HOSTS.has(host)) return refuse("cloud metadata endpoints are never reachable");
  const v4 = parseIPv4(host);
  const v6 = !v4 && host.startsWith("[") ? parseIPv6(host.slice(1, -1)) : undefined;
  const mapped = v6 ? ipv4FromMapped(v6) : undefined;
  const ipv4 = v4 ?? mapped;

  if (ipv4) {
    const [a = 0, b = 0] = ipv4;
    if (METADATA_IPV4.has(ipv4.join("."))) return refuse("cloud metadata endpoints are never reachable");
    if (a === 169 && b === 254) return refuse("link-local and metadata addresses are never reachable");
    if (a === 0 || a >= 224) return refuse("reserved, multicast and broadcast addresses are not reachable");
    const loopback = a === 127;
    const privateRange =
      a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127) || (a === 198 && (b === 18 || b === 19));
    if ((loopback || privateRange) && !policy.allowPrivateNetworks) return refuse("loopback and private addresses are not reachable from this deployment");
    return { ok: true };
  }
  if (v6) {
    const first = v6[0]!;
    if ((first & 0xffc0) === 0xfe80) return refuse("link-local and metadata addresses are never reachable");
    // Teredo (2001::/32) tunnels to an IPv4 address hidden in the address: never followed.
    if (first === 0x2001 && v6[1] === 0) return refuse("Teredo tunnel addresses are not reachable");
    if (first === 0xfd00 && v6[1] === 0x0ec2) return refuse("cloud metadata endpoints are never reachable"); // AWS fd00:ec2::254
    if ((first & 0xff00) === 0xff00) return refuse("multicast addresses are not reachable");
    const unspecified = v6.every((part) => part === 0);
    const loopback = v6.slice(0, 7).every((part) => part === 0) && v6[7] === 1;
    if (unspecified) return refuse("the unspecified address is not reachable");
    const uniqueLocal = (first & 0xfe00) === 0xfc00;
    const siteLocal = (first & 0xffc0) === 0xfec0; // fec0::/10, deprecated but still routed on some networks
    const localNat64 = first === 0x64 && v6[1] === 0xff9b && v6[2] === 1; // 64:ff9b:1::/48 (RFC 8215)
    if ((loopback || uniqueLocal || siteLocal || localNat64) && !policy.allowPrivateNetworks)
      return refuse("loopback and private addresses are not reachable from this deployment");
    return { ok: true };
  }
  if (isLocalName(host) && !policy.allowPrivateNetworks) return refuse("local host names are not reachable from this deployment");
  // Wildcard DNS names spell their address (127.0.0.1.nip.io, 10-0-0-1.sslip.io): judged as it.
  for (const embedded of embeddedAddresses(host)) {
    const verdict = checkHost(embedded, policy);
    if (!verdict.ok) return refuse(`the name stands for ${embedded.replace(/^\[|\]$/g, "")}: ${verdict.reason}`);
  }
  return { ok: true };
}

/** Names that mean this machine or a private network by their spelling alone (lower case, no trailing dot). */
export function isLocalName(host: string): boolean {
  return (
    host === "localhost" ||
    host.endsWith(".localhost") ||
    host.endsWith(".local") ||
    host.endsWith(".internal") ||
    host.endsWith(".home.arpa") ||
    LOOPBACK_NAMES.has(host) ||
    [...LOOPBACK_NAMES].some((name) => host.endsWith(`.${name}`)) ||
    !host.includes(".")
  );
}

/** Services that answer any name under them with the address the name spells. */
const WILDCARD_DNS = ["nip.io", "sslip.io"];

/**
 * Every address a name may spell: dotted quads in four consecutive labels or four dash-separated
 * parts of one label, anywhere in the name; and under wildcard DNS services also an IPv4
 * address as 8 hex digits (0a000001.nip.io) and IPv6 with dashes for colons (--1.sslip.io).
 * All of them are returned, so public-looking decoys cannot hide a private one behind them.
 */
function embeddedAddresses(host: string): Set<string> {
  const found = new Set<string>();
  const isByte = (part: string) => part.length > 0 && part.length <= 3 && [...part].every((ch) => ch >= "0" && ch <= "9") && Number(part) <= 255;
  const scan = (parts: string[]) => {
    for (let i = 0; i + 4 <= parts.length; i++) {
      const window = parts.slice(i, i + 4);
      if (window.every(isByte)) found.add(window.map(Number).join("."));
    }
  };
  const labels = host.split(".");
  scan(labels);
  for (const label of labels) if (label.includes("-")) scan(label.split("-"));
  if (WILDCARD_DNS.some((service) => host.endsWith(`.${service}`))) {
    for (const label of labels) if (label.length <= 63) spelledInLabel(label, found);
  }
  return found;
}

const isHex = (text: string) => text.length > 0 && [...text].every((ch) => (ch >= "0" && ch <= "9") || (ch >= "a" && ch <= "f"));

/** `0a000001` (alone or as one dash-separated part) as 10.0.0.1; `fe80--1` or `app-fe80--1` as [fe80::1]. */
function spelledInLabel(label: string, found: Set<string>) {
  const parts = label.split("-");
  for (const part of parts) {
    if (part.length === 8 && isHex(part)) found.add([0, 2, 4, 6].map((i) => parseInt(part.slice(i, i + 2), 16)).join("."));
  }
  // The IPv6 spelling may follow a prefix (`app-`): every dash-separated suffix is tried.
  for (let start = 0; start < parts.length; start++) {
    const candidate = parts.slice(start).join(":");
    if (candidate.includes(":") && parseIPv6(candidate)) found.add(`[${candidate}]`);
  }
}

const refuse = (reason: string): AddressVerdict => ({ ok: false, reason });

/** Whether `text` is an IPv4 address in dotted form or an IPv6 address (without brackets). */
export const isIpAddress = (text: string) => parseIPv4(text) !== undefined || parseIPv6(text) !== undefined;

function parseIPv4(host: string): number[] | undefined {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((b) => b <= 255) ? bytes : undefined;
}

/** Eight 16-bit groups, or undefined if the text is not an IPv6 address. */
function parseIPv6(text: string): number[] | undefined {
  let address = text.split("%")[0]!;
  // A dotted IPv4 tail (::ffff:1.2.3.4) becomes the two groups it stands for.
  const tailStart = address.lastIndexOf(":") + 1;
  const tail = address.slice(tailStart);
  if (tailStart > 0 && tail.includes(".")) {
    const v4 = parseIPv4(tail);
    if (!v4) return undefined;
    address = `${address.slice(0, tailStart)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`;
  }
  const halves = address.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] ? halves[0].split(":") : [];
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const missing = 8 - head.length - rest.length;
  if (halves.length === 1 ? head.length !== 8 : missing < 0) return undefined;
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill("0"), ...rest];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  return groups.map((g) => parseInt(g, 16));
}

/**
 * IPv6 forms that carry an IPv4 address, judged as that address: ::ffff:a.b.c.d (mapped),
 * ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64) and 2002:AABB:CCDD:: (6to4).
 */
function ipv4FromMapped(v6: number[]): number[] | undefined {
  const bytes = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  if (v6[0] === 0x2002) return bytes(v6[1]!, v6[2]!);
  if (v6[0] === 0x64 && v6[1] === 0xff9b && v6.slice(2, 6).every((p) => p === 0)) return bytes(v6[6]!, v6[7]!);
  // Local-use NAT64 (64:ff9b:1::/48) carries its IPv4 address in the last 32 bits too.
  if (v6[0] === 0x64 && v6[1] === 0xff9b && v6[2] === 1 && isMetadataOrLinkLocal(bytes(v6[6]!, v6[7]!))) return bytes(v6[6]!, v6[7]!);
  const prefixZero = v6.slice(0, 5).every((p) => p === 0);
  if (!prefixZero || (v6[5] !== 0xffff && v6[5] !== 0) || (v6[5] === 0 && v6[6] === 0)) return undefined;
  return bytes(v6[6]!, v6[7]!);
}

const isMetadataOrLinkLocal = (ipv4: number[]) => (ipv4[0] === 169 && ipv4[1] === 254) || METADATA_IPV4.has(ipv4.join("."));
