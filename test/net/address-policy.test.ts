import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkHost } from "../../src/net/address-policy";
import { call, json, newApiKey, newUser } from "../helpers/api";

const production = { allowPrivateNetworks: false };
const sandbox = { allowPrivateNetworks: true };
const hostOf = (url: string) => new URL(url).hostname;

describe("outbound address policy", () => {
  it("refuses link-local and cloud metadata addresses everywhere, in every spelling", () => {
    for (const url of [
      "http://169.254.169.254/latest/meta-data/",
      "http://2852039166/", // 169.254.169.254 as one decimal number
      "http://0xA9FEA9FE/",
      "http://0251.0376.0251.0376/", // octal
      "http://[::ffff:169.254.169.254]/",
      "http://[fe80::1]/",
      "http://[fd00:ec2::254]/",
      "http://metadata.google.internal/computeMetadata/v1/",
      "http://100.100.100.200/latest/meta-data/", // Alibaba Cloud
      "http://[64:ff9b::a9fe:a9fe]/", // NAT64 of 169.254.169.254
      "http://[2002:a9fe:a9fe::]/", // 6to4 of 169.254.169.254
    ]) {
      expect(checkHost(hostOf(url), sandbox).ok, url).toBe(false);
      expect(checkHost(hostOf(url), production).ok, url).toBe(false);
    }
  });

  it("refuses loopback and private ranges on production only", () => {
    for (const url of [
      "http://127.0.0.1:8787/",
      "http://localhost/",
      "http://[::1]/",
      "http://10.1.2.3/",
      "http://172.20.0.1/",
      "http://192.168.1.1/",
      "http://100.64.0.1/",
      "http://[fd12::1]/",
      "http://2130706433/",
      "http://[::ffff:127.0.0.1]/",
      "http://intranet/",
    ]) {
      expect(checkHost(hostOf(url), production).ok, url).toBe(false);
      expect(checkHost(hostOf(url), sandbox).ok, url).toBe(true);
    }
    for (const url of ["https://api.hubapi.com/", "https://8.8.8.8/", "http://[2606:4700::1111]/", "http://172.32.0.1/"]) {
      expect(checkHost(hostOf(url), production).ok, url).toBe(true);
    }
  });

  it("refuses metadata addresses in http_request and in MCP server URLs, with a clear error", async () => {
    const { key } = await newApiKey(await newUser());
    const result = await json(
      await call("/v1/tools/execute", { token: key, json: { name: "http_request", arguments: { url: "http://169.254.169.254/latest/meta-data/iam/" } } }),
    );
    expect(result).toMatchObject({ success: false, error_message: expect.stringContaining("link-local and metadata addresses are never reachable") });
    const tested = await json(await call("/v1/connections/test", { token: key, json: { platform: "mcp", config: { url: "http://[fe80::1]/mcp" } } }));
    expect(tested).toMatchObject({ success: false, status: "error", message: expect.stringContaining("never reachable") });
    const platform = await json(
      await call("/v1/connections/test", { token: key, json: { platform: "slack", config: { bot_token: "xoxb-1", base_url: "http://169.254.169.254/api" } } }),
    );
    expect(platform).toMatchObject({ success: false, message: expect.stringContaining("never reachable") });
  });

  it("allows loopback on this sandbox deployment, so local servers and fakes work", async () => {
    expect(env.ENVIRONMENT).toBe("sandbox");
    const { key } = await newApiKey(await newUser());
    const result = await json(
      await call("/v1/tools/execute", { token: key, json: { name: "http_request", arguments: { url: `${env.TEST_FAKE_URL}/s/policy/things/7` } } }),
    );
    expect(result).toMatchObject({ success: true, result: { status: 200 } });
  });
});
