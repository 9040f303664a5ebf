import { describe, expect, it } from "vitest";
import { DEFAULT_AFTER_SIGN_IN, safeCallbackPath } from "@/server/auth/safe-callback";

describe("safeCallbackPath: where sign-in leads", () => {
  it("keeps same-origin paths with their query and fragment", () => {
    expect(safeCallbackPath("/org_1/agents")).toBe("/org_1/agents");
    expect(safeCallbackPath("/invite/abc_DEF-123")).toBe("/invite/abc_DEF-123");
    expect(safeCallbackPath("/org_1/calls?x=1#t")).toBe("/org_1/calls?x=1#t");
    // Non-ASCII is percent-encoded, so a Location header never carries raw bytes.
    expect(safeCallbackPath("/org_1/é")).toBe("/org_1/%C3%A9");
  });

  it("sends every other host, scheme and trick to the default page", () => {
    const attempts = [
      "/\\evil.example",
      "/\t/evil.example",
      "/\\/evil.example",
      "\\\\evil.example",
      "//evil.example",
      "///evil.example",
      "/\n/evil.example",
      "/\r\n/evil.example",
      "/\u0000/evil.example",
      "/x\u2028y",
      "/x\u2029y",
      "/x\u0085y",
      "https://evil.example/",
      "http:/evil.example",
      "javascript:alert(1)",
      "evil.example",
      " /org_1",
      "",
      "/sign-in",
      "/sign-in?callbackUrl=//evil.example",
      "/api/auth/signout",
    ];
    for (const value of attempts) expect(safeCallbackPath(value), JSON.stringify(value)).toBe(DEFAULT_AFTER_SIGN_IN);
    expect(safeCallbackPath(undefined)).toBe(DEFAULT_AFTER_SIGN_IN);
    expect(safeCallbackPath(["/a", "/b"])).toBe(DEFAULT_AFTER_SIGN_IN);
  });

  it("leaves encoded forms encoded: they stay paths on this origin", () => {
    // A browser never decodes %2F or %5C into the authority: these are paths here.
    expect(safeCallbackPath("/%2F%2Fevil.example")).toBe("/%2F%2Fevil.example");
    expect(safeCallbackPath("/%09/evil.example")).toBe("/%09/evil.example");
    // A path that the parser itself would turn into `//host` is refused.
    expect(safeCallbackPath("/.//evil.example")).toBe(DEFAULT_AFTER_SIGN_IN);
    expect(safeCallbackPath("/%2e%2e//evil.example")).toBe(DEFAULT_AFTER_SIGN_IN);
  });
});
