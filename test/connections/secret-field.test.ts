// A pasted credential goes into a header (Authorization, x-api-token, api-key): a line break in it
// would make the request fail with an error that may quote the header, so it is refused at the door.
import { describe, expect, it } from "vitest";
import { secret } from "../../src/connections/platforms/types";

describe("a secret config field", () => {
  const field = secret("An API key.");

  it("takes a token as pasted", () => {
    expect(field.safeParse("pd-0123456789abcdef").success).toBe(true);
  });

  it("refuses line breaks and other control characters, naming the rule", () => {
    for (const value of ["key\r\nX-Evil: 1", "key\n", "\tkey", "key\u0000", "key\u007f"]) {
      const parsed = field.safeParse(value);
      expect(parsed.success, JSON.stringify(value)).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe("Paste the credential alone: no line breaks or other control characters.");
    }
  });
});
