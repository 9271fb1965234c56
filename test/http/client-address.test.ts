import { describe, expect, it } from "vitest";
import { UNVERIFIED_ADDRESS, trustedClientAddress } from "../../src/http/rate-limit";

const request = (cf?: object) => {
  const r = new Request("http://hub.test/v1/auth/login", { headers: { "CF-Connecting-IP": "203.0.113.9" } });
  // Requests that came through Cloudflare's edge carry `cf`; a direct or local one does not.
  if (cf) Object.defineProperty(r, "cf", { value: cf });
  return r;
};

describe("the client address behind per-address limits", () => {
  it("trusts CF-Connecting-IP by default only on production, for requests that came through Cloudflare", () => {
    expect(trustedClientAddress(request({ colo: "FRA" }), { environment: "production", trustClientIpHeader: "auto" })).toBe("203.0.113.9");
    expect(trustedClientAddress(request(), { environment: "production", trustClientIpHeader: "auto" })).toBe(UNVERIFIED_ADDRESS);
    expect(trustedClientAddress(request({ colo: "FRA" }), { environment: "sandbox", trustClientIpHeader: "auto" })).toBe(UNVERIFIED_ADDRESS);
    expect(trustedClientAddress(request(), { environment: "sandbox", trustClientIpHeader: "auto" })).toBe(UNVERIFIED_ADDRESS);
  });

  it("follows TRUST_CLIENT_IP_HEADER when the deployment says so", () => {
    expect(trustedClientAddress(request(), { environment: "sandbox", trustClientIpHeader: "always" })).toBe("203.0.113.9");
    expect(trustedClientAddress(request({ colo: "FRA" }), { environment: "production", trustClientIpHeader: "never" })).toBe(UNVERIFIED_ADDRESS);
    // Trusted but absent: the shared bucket, never a bucket of its own per missing header.
    expect(trustedClientAddress(new Request("http://hub.test/"), { environment: "sandbox", trustClientIpHeader: "always" })).toBe(UNVERIFIED_ADDRESS);
  });
});
