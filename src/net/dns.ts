import { checkHost, isIpAddress, isLocalName, type AddressPolicy } from "./address-policy";

/**
 * Host names are resolved before a user-given URL is fetched, so that a name pointing at a
 * private or metadata address (`my-box.example.com → 10.0.0.5`) is refused like the address
 * itself. Workers have no resolver API, so this asks a DNS-over-HTTPS resolver (the JSON API
 * that Cloudflare, Google and others serve). A failed or empty answer refuses the URL.
 *
 * This narrows, but cannot close, DNS rebinding: the runtime resolves the name again when it
 * connects. The address checks in checkHost still apply to every literal address.
 */
const MAX_TTL_SECONDS = 60;
const LOOKUP_TIMEOUT_MS = 5_000;

interface CachedAnswer {
  addresses: string[];
  expiresAt: number;
}

/** Per isolate: a name is looked up at most once a minute (less when its TTL is shorter). */
const cache = new Map<string, CachedAnswer>();
const MAX_CACHED = 1_000;

export class ResolutionRefused extends Error {}

/** Resolves `hostname` (not an IP literal) and checks every address it has against the policy. */
export async function checkResolvedHost(hostname: string, policy: AddressPolicy): Promise<void> {
  if (!policy.resolverUrl || isIpLiteral(hostname)) return;
  const name = hostname.toLowerCase().replace(/\.$/, "");
  // Where private networks are allowed, local names (localhost, *.local, a container's name) are
  // too, and only the machine's own resolver knows them: a public one would refuse them all.
  if (policy.allowPrivateNetworks && isLocalName(name)) return;
  const addresses = await resolve(name, policy.resolverUrl);
  if (addresses.length === 0) throw new ResolutionRefused(`Refused ${hostname}: the name has no address.`);
  for (const address of addresses) {
    // An answer that is not an address cannot be judged, so it is not trusted either.
    if (!isIpAddress(address)) throw new ResolutionRefused(`Refused ${hostname}: the resolver answered "${address.slice(0, 100)}", which is not an address.`);
    const verdict = checkHost(address.includes(":") ? `[${address}]` : address, policy);
    if (!verdict.ok) throw new ResolutionRefused(`Refused ${hostname}: it resolves to ${address}, and ${verdict.reason}.`);
  }
}

const isIpLiteral = (host: string) => host.startsWith("[") || /^[0-9.]+$/.test(host);

async function resolve(name: string, resolverUrl: string): Promise<string[]> {
  // Keyed by resolver too: one resolver's answers say nothing about another's.
  const key = `${resolverUrl} ${name}`;
  const hit = cache.get(key);
  if (hit && hit.expiresAt > Date.now()) return hit.addresses;
  const answers = await Promise.all([query(name, "A", resolverUrl), query(name, "AAAA", resolverUrl)]);
  const addresses = answers.flatMap((a) => a.addresses);
  const ttl = Math.min(MAX_TTL_SECONDS, ...answers.map((a) => a.ttl));
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value!);
  cache.set(key, { addresses, expiresAt: Date.now() + ttl * 1000 });
  return addresses;
}

/** One DoH JSON query; answers of the asked type only (CNAME chains are followed by the resolver). */
async function query(name: string, type: "A" | "AAAA", resolverUrl: string): Promise<{ addresses: string[]; ttl: number }> {
  const url = new URL(resolverUrl);
  url.searchParams.set("name", name);
  url.searchParams.set("type", type);
  let body: { Status?: number; Answer?: { type: number; data: string; TTL?: number }[] };
  try {
    const response = await fetch(url, { headers: { Accept: "application/dns-json" }, signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = await response.json();
  } catch (error) {
    throw new ResolutionRefused(`Refused ${name}: the name could not be resolved (${error instanceof Error ? error.message : String(error)}).`);
  }
  // NXDOMAIN (3) simply has no addresses; other failures are refusals.
  if (body.Status !== undefined && body.Status !== 0 && body.Status !== 3)
    throw new ResolutionRefused(`Refused ${name}: the resolver answered status ${body.Status}.`);
  const wanted = type === "A" ? 1 : 28;
  const records = (body.Answer ?? []).filter((r) => r.type === wanted && typeof r.data === "string");
  return { addresses: records.map((r) => r.data), ttl: Math.min(MAX_TTL_SECONDS, ...records.map((r) => r.TTL ?? MAX_TTL_SECONDS)) };
}

/** For tests: forget cached answers. */
export function clearDnsCache(): void {
  cache.clear();
}
