import { describe, expect, it } from "vitest";
import { sameOriginRecordingUrl } from "@/server/storage/recording-route";
import { signLocalRecordingUrl, verifyLocalRecordingUrl } from "@/server/storage/recording-url-signer";

const secret = Buffer.from("a-test-secret-of-32-characters!!");

describe("recording links in the console", () => {
  it("turns the API's absolute link to the local store into a same-origin path that still verifies", () => {
    const expiresAt = new Date("2030-01-01T00:00:00Z");
    const absolute = signLocalRecordingUrl("org_1/call 1.wav", expiresAt, { baseUrl: "http://localhost:3000", secret });
    expect(absolute.startsWith("http://localhost:3000/api/recordings/")).toBe(true);
    const relative = sameOriginRecordingUrl(absolute);
    expect(relative.startsWith("/api/recordings/org_1/call%201.wav?expires=")).toBe(true);
    // Browsed at another host name, the path resolves against that host and the signature still holds.
    const atOtherHost = new URL(relative, "http://127.0.0.1:3000");
    expect(verifyLocalRecordingUrl(atOtherHost, new Date("2029-12-31T00:00:00Z"), { secret })).toMatchObject({ ok: true, key: "org_1/call 1.wav" });
  });

  it("leaves links to other stores alone", () => {
    const presigned = "https://bucket.s3.example.com/org_1/call.wav?X-Amz-Signature=abc";
    expect(sameOriginRecordingUrl(presigned)).toBe(presigned);
    expect(sameOriginRecordingUrl("not a url")).toBe("not a url");
  });
});
