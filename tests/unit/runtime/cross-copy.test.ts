import { describe, expect, it, vi } from "vitest";

/** Two copies of the same modules, as the custom server's graph and a Next.js bundle hold them in one process. */
async function twoCopies() {
  vi.resetModules();
  const first = { errors: await import("@/server/errors"), provider: await import("@/server/providers/chili-piper/client"), body: await import("@/server/http/request-body") };
  vi.resetModules();
  const second = { errors: await import("@/server/errors"), provider: await import("@/server/providers/chili-piper/client"), body: await import("@/server/http/request-body") };
  return { first, second };
}

describe("instanceof across module copies (server/runtime/cross-copy.ts)", () => {
  it("an AppError made by one copy is an AppError to the other; a ProviderRequestError is both, strictly", async () => {
    const { first, second } = await twoCopies();
    expect(first.errors.AppError).not.toBe(second.errors.AppError);
    const appError = new first.errors.AppError("NOT_FOUND", "gone");
    expect(appError instanceof second.errors.AppError).toBe(true);
    expect(second.errors.appCodeOfError(appError)).toBe("NOT_FOUND");
    expect(appError instanceof second.provider.ProviderRequestError).toBe(false);
    const providerError = new first.provider.ProviderRequestError("PROVIDER_ERROR", "down", { status: 503 });
    expect(providerError instanceof second.provider.ProviderRequestError).toBe(true);
    expect(providerError instanceof second.errors.AppError).toBe(true);
    expect(providerError instanceof Error).toBe(true);
    expect(new first.body.BodyTooLargeError(10) instanceof second.body.BodyTooLargeError).toBe(true);
    expect(new Error("plain") instanceof second.errors.AppError).toBe(false);
    expect({ code: "NOT_FOUND" } instanceof second.errors.AppError).toBe(false);
  });
});
