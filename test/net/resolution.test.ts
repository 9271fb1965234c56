import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkHost } from "../../src/net/address-policy";
import { checkResolvedHost, clearDnsCache } from "../../src/net/dns";
import { OutboundRefused, safeFetch } from "../../src/net/safe-fetch";

const production = { allowPrivateNetworks: false };
const sandbox = { allowPrivateNetworks: true };
const hostOf = (url: string) => new URL(url).hostname;

describe("more address ranges", () => {
  it("refuses site-local, local-use NAT64 and Teredo addresses on production, and metadata behind them everywhere", () => {
    for (const url of ["http://[fec0::1]/", "http://[fefe:1::2]/", "http://[64:ff9b:1::a00:5]/", "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/"]) {
      expect(checkHost(hostOf(url), production).ok, url).toBe(false);
    }
    expect(checkHost(hostOf("http://[64:ff9b:1::a9fe:a9fe]/"), sandbox)).toMatchObject({ ok: false, reason: expect.stringContaining("link-local") });
    expect(checkHost(hostOf("http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/"), sandbox).ok).toBe(false);
    // Neighbours of those ranges stay reachable.
    for (const url of ["http://[2001:4860::8888]/", "http://[64:ff9b::808:808]/", "http://[fe00::1]/"])
      expect(checkHost(hostOf(url), production).ok, url).toBe(true);
  });

  it("refuses names that are literal aliases of private or metadata addresses", () => {
    for (const host of [
      "127.0.0.1.nip.io",
      "app.10.0.0.1.sslip.io",
      "10-0-0-1.sslip.io",
      "app-192-168-1-1.nip.io",
      "localtest.me",
      "api.lvh.me",
      "router.home.arpa",
    ]) {
      expect(checkHost(host, production).ok, host).toBe(false);
      expect(checkHost(host, sandbox).ok, host).toBe(true);
    }
    for (const host of ["169.254.169.254.nip.io", "169-254-169-254.sslip.io"]) expect(checkHost(host, sandbox).ok, host).toBe(false);
    for (const host of ["8.8.8.8.nip.io", "api.v1.example.com", "2024-11-22.example.com"]) expect(checkHost(host, production).ok, host).toBe(true);
  });

  it("reads the hex and IPv6 spellings of wildcard DNS services, and is not fooled by public decoys", () => {
    for (const host of ["0a000001.nip.io", "app-7f000001.nip.io", "--1.sslip.io", "app-fc00--5.sslip.io", "1.1.1.1.8.8.8.8.10.0.0.1.nip.io"]) {
      expect(checkHost(host, production).ok, host).toBe(false);
      expect(checkHost(host, sandbox).ok, host).toBe(true);
    }
    for (const host of ["a9fea9fe.nip.io", "fe80--1.sslip.io"])
      expect(checkHost(host, sandbox), host).toMatchObject({ ok: false, reason: expect.stringContaining("link-local") });
    expect(checkHost("fe80--1.sslip.io", sandbox)).toMatchObject({ reason: expect.stringContaining("the name stands for fe80::1") });
    // Outside those services, such labels are ordinary names; public spellings pass everywhere.
    for (const host of ["0a000001.example.com", "cafe--1.example.com", "08080808.nip.io", "2606-4700--1111.sslip.io", "my-app.nip.io"])
      expect(checkHost(host, production).ok, host).toBe(true);
  });
});

describe("host names resolved before they are fetched", () => {
  const resolverUrl = `${env.TEST_FAKE_URL}/dns-query`;
  // The fake resolver lives on loopback, so the fetched URLs must be allowed to be public names
  // whose addresses the resolver names; the fetch itself never happens for refused names.
  const policy = { allowPrivateNetworks: false, resolverUrl };
  const refusal = async (url: string) => {
    clearDnsCache();
    try {
      await safeFetch(url, { method: "GET" }, { policy, timeoutMs: 2000 });
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it("refuses a name that resolves to a private, loopback or metadata address", async () => {
    for (const [name, address] of [
      ["private.example.test", "10.0.0.5"],
      ["metadata.example.test", "169.254.169.254"],
      ["loopback6.example.test", "::1"],
    ]) {
      const error = await refusal(`http://${name}/`);
      expect(error, name).toBeInstanceOf(OutboundRefused);
      expect((error as Error).message).toContain(`resolves to ${address}`);
    }
  });

  it("judges IPv4 addresses inside IPv6 answers as IPv4, and refuses answers that are not addresses", async () => {
    expect(((await refusal("http://mapped.example.test/")) as Error).message).toContain("resolves to ::ffff:10.0.0.5");
    expect(((await refusal("http://garbage.example.test/")) as Error).message).toContain("which is not an address");
  });

  it("leaves local names to the machine where private networks are allowed, but still refuses metadata there", async () => {
    clearDnsCache();
    const local = { allowPrivateNetworks: true, resolverUrl };
    for (const name of ["localhost", "mcp.localhost", "printer.local", "mcp-server"])
      await expect(checkResolvedHost(name, local), name).resolves.toBeUndefined();
    await expect(checkResolvedHost("private.example.test", local)).resolves.toBeUndefined();
    await expect(checkResolvedHost("metadata.example.test", local)).rejects.toThrow("resolves to 169.254.169.254");
  });

  it("keeps each resolver's answers to itself", async () => {
    clearDnsCache();
    await expect(checkResolvedHost("public.example.test", policy)).resolves.toBeUndefined();
    // Cached for the working resolver, but a broken one must still fail closed, not reuse it.
    const broken = { allowPrivateNetworks: false, resolverUrl: `${env.TEST_FAKE_URL}/not-a-resolver` };
    await expect(checkResolvedHost("public.example.test", broken)).rejects.toThrow("could not be resolved");
  });

  it("fails closed when a name has no address or the resolver fails", async () => {
    expect(((await refusal("http://missing.example.test/")) as Error).message).toContain("has no address");
    expect(((await refusal("http://servfail.example.test/")) as Error).message).toContain("status 2");
    const broken = { allowPrivateNetworks: false, resolverUrl: `${env.TEST_FAKE_URL}/not-a-resolver` };
    clearDnsCache();
    await expect(safeFetch("http://public.example.test/", { method: "GET" }, { policy: broken, timeoutMs: 2000 })).rejects.toThrow("could not be resolved");
  });

  it("lets a name with only public addresses through, in any spelling", async () => {
    clearDnsCache();
    await expect(checkResolvedHost("public.example.test", policy)).resolves.toBeUndefined();
    await expect(checkResolvedHost("Public.Example.Test.", policy)).resolves.toBeUndefined();
    // Without a resolver (the local default) names are not looked up at all.
    await expect(checkResolvedHost("private.example.test", { allowPrivateNetworks: false })).resolves.toBeUndefined();
  });
});
