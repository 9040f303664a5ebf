import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls } from "@/db/schema";
import { getRecordingStore, localRecordingPath, localRecordingStore, RecordingTooLargeError } from "@/server/storage/recording-store";
import { signLocalRecordingUrl, verifyLocalRecordingUrl } from "@/server/storage/recording-url-signer";
import { parseRangeHeader } from "@/server/storage/serve-local-recording";
import { recordingStorageSettings } from "@/server/storage/storage-settings";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createConversation, createOrgWithAgent, makeWav, useRecordingsSandbox } from "./fixtures";

useRecordingsSandbox();
const db = useTestDb();

/** A minimal S3-compatible object server (path-style PUT/GET/HEAD/DELETE) over real HTTP, recording each request. */
function startStubS3() {
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const requests: Array<{ method: string; path: string; query: URLSearchParams; authorization: string | undefined }> = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stub");
    requests.push({ method: req.method ?? "", path: url.pathname, query: url.searchParams, authorization: req.headers.authorization });
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const key = decodeURIComponent(url.pathname);
      const object = objects.get(key);
      if (req.method === "PUT") {
        objects.set(key, { body: Buffer.concat(chunks), contentType: String(req.headers["content-type"] ?? "") });
        res.writeHead(200, { ETag: '"stub"' }).end();
      } else if (req.method === "DELETE") {
        objects.delete(key);
        res.writeHead(204).end();
      } else if (!object) {
        res.writeHead(404, { "Content-Type": "application/xml" }).end(req.method === "HEAD" ? undefined : "<Error><Code>NoSuchKey</Code></Error>");
      } else {
        res.writeHead(200, { "Content-Type": object.contentType, "Content-Length": object.body.length });
        res.end(req.method === "HEAD" ? undefined : object.body);
      }
    });
  });
  return { server, objects, requests };
}

describe("S3-compatible recording storage", () => {
  const stub = startStubS3();
  let endpoint = "";
  const env = {
    RECORDING_STORAGE: "s3",
    RECORDING_S3_BUCKET: "call-audio",
    RECORDING_S3_REGION: "eu-west-1",
    RECORDING_S3_FORCE_PATH_STYLE: "true",
    RECORDING_S3_PREFIX: "recordings/",
    RECORDING_S3_ACCESS_KEY_ID: "AKIDEXAMPLE",
    RECORDING_S3_SECRET_ACCESS_KEY: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => stub.server.listen(0, "127.0.0.1", resolve));
    endpoint = `http://127.0.0.1:${(stub.server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => stub.server.close(() => resolve())));

  it("is selected by settings and puts, checks, presigns (3 hours, injected clock) and deletes through the SDK", async () => {
    const settings = recordingStorageSettings({ ...env, RECORDING_S3_ENDPOINT: endpoint });
    expect(settings).toMatchObject({ kind: "s3", bucket: "call-audio", forcePathStyle: true, prefix: "recordings/" });
    const store = getRecordingStore(settings);
    expect(store.kind).toBe("s3");
    const wav = makeWav(500);
    await store.put("org.x/call.1.wav", wav, "audio/wav");
    expect(stub.objects.get("/call-audio/recordings/org.x/call.1.wav")).toMatchObject({ contentType: "audio/wav" });
    expect(stub.requests.at(-1)!.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/s3\/aws4_request/);
    expect(await store.exists("org.x/call.1.wav")).toBe(true);
    expect(await store.exists("org.x/nope.wav")).toBe(false);

    const now = new Date("2026-07-01T09:30:00.250Z");
    const urls = await store.signUrls(["org.x/call.1.wav", "https://provider.example/x.wav"], now);
    expect([...urls.keys()]).toEqual(["org.x/call.1.wav"]);
    const signed = urls.get("org.x/call.1.wav")!;
    expect(signed.expiresAt.toISOString()).toBe("2026-07-01T12:30:01.000Z");
    const url = new URL(signed.url);
    expect(url.origin).toBe(endpoint);
    expect(url.pathname).toBe("/call-audio/recordings/org.x/call.1.wav");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("10800");
    expect(url.searchParams.get("X-Amz-Date")).toBe("20260701T093001Z");
    expect(url.searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/);
    const fetched = await fetch(url);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(Buffer.from(wav))).toBe(true);

    await store.delete("org.x/call.1.wav");
    expect(stub.objects.has("/call-audio/recordings/org.x/call.1.wav")).toBe(false);
  });

  it("serves presigned bucket URLs through POST /recordings when RECORDING_STORAGE=s3", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const { sequence, calls: made } = await createConversation(db, { organizationId: organization.id, agentId: agent.id }, [{}, {}]);
    Object.assign(process.env, env, { RECORDING_S3_ENDPOINT: endpoint });
    try {
      const key = `${organization.id}/${made[0]!.id}.wav`;
      await getRecordingStore().put(key, makeWav(), "audio/wav");
      await db.update(calls).set({ recordingKey: key, recordingDurationSeconds: 1 }).where(eq(calls.id, made[0]!.id));
      const res = await apiClient(db)("/recordings", { method: "POST", key: apiKey, body: { sequenceIds: [sequence.id] } });
      expect(res.status).toBe(200);
      const [withAudio, without] = res.body.recordings[0].calls;
      expect(withAudio.recordingStatus).toBe("downloaded");
      expect(withAudio.url.startsWith(`${endpoint}/call-audio/recordings/${organization.id}/`)).toBe(true);
      expect(without.recordingStatus).toBe("no-recording");
      const audio = await fetch(withAudio.url);
      expect(Buffer.from(await audio.arrayBuffer()).equals(Buffer.from(makeWav()))).toBe(true);
    } finally {
      for (const name of [...Object.keys(env), "RECORDING_S3_ENDPOINT"]) delete process.env[name];
    }
  });

  it("stores a streamed download (putStream) with one PutObject, and refuses one over the cap without storing it", async () => {
    const store = getRecordingStore(recordingStorageSettings({ ...env, RECORDING_S3_ENDPOINT: endpoint }));
    const wav = Buffer.from(makeWav(800));
    const chunks = [wav.subarray(0, 300), wav.subarray(300)];
    expect(await store.putStream("org.x/streamed.wav", Readable.from(chunks), "audio/wav", { maxBytes: wav.length })).toBe(wav.length);
    expect(stub.objects.get("/call-audio/recordings/org.x/streamed.wav")?.body.equals(wav)).toBe(true);
    await expect(store.putStream("org.x/big.wav", Readable.from(chunks), "audio/wav", { maxBytes: wav.length - 1 })).rejects.toBeInstanceOf(RecordingTooLargeError);
    expect(stub.objects.has("/call-audio/recordings/org.x/big.wav")).toBe(false);
  });

  it("refuses incomplete settings", () => {
    expect(recordingStorageSettings({})).toEqual({ kind: "local" });
    expect(() => recordingStorageSettings({ RECORDING_STORAGE: "s3" })).toThrow(/RECORDING_S3_BUCKET/);
    expect(() => recordingStorageSettings({ RECORDING_STORAGE: "gcs" })).toThrow();
    expect(() => recordingStorageSettings({ RECORDING_STORAGE: "s3", RECORDING_S3_BUCKET: "b", RECORDING_S3_ACCESS_KEY_ID: "x" })).toThrow();
  });
});

describe("local recording store", () => {
  it("streams a download into place, and leaves nothing at the key (and no partial file) when it fails", async () => {
    const wav = Buffer.from(makeWav(800));
    const key = "org.stream/call.1.wav";
    expect(await localRecordingStore.putStream(key, Readable.from([wav.subarray(0, 100), wav.subarray(100)]), "audio/wav", { maxBytes: wav.length })).toBe(wav.length);
    expect(readFileSync(localRecordingPath(key)).equals(wav)).toBe(true);
    const failing = async function* () {
      yield wav.subarray(0, 100);
      throw new Error("connection reset");
    };
    await expect(localRecordingStore.putStream("org.stream/call.2.wav", failing(), "audio/wav", { maxBytes: wav.length })).rejects.toThrow("connection reset");
    await expect(localRecordingStore.putStream("org.stream/call.3.wav", Readable.from([wav]), "audio/wav", { maxBytes: 10 })).rejects.toBeInstanceOf(RecordingTooLargeError);
    expect(readdirSync(path.dirname(localRecordingPath(key)))).toEqual(["call.1.wav"]);
  });
});

describe("local URL signing", () => {
  const secret = Buffer.from("another-secret-0123456789abcdef");
  it("binds key and expiry to the server secret", () => {
    const expiresAt = new Date("2026-01-01T03:00:00Z");
    const url = new URL(signLocalRecordingUrl("org.a/call b.wav", expiresAt, { baseUrl: "https://app.example", secret }));
    expect(url.pathname).toBe("/api/recordings/org.a/call%20b.wav");
    const before = new Date("2026-01-01T02:59:59.999Z");
    expect(verifyLocalRecordingUrl(url, before, { secret })).toEqual({ ok: true, key: "org.a/call b.wav", expiresAt });
    expect(verifyLocalRecordingUrl(url, expiresAt, { secret })).toEqual({ ok: false, reason: "expired" });
    expect(verifyLocalRecordingUrl(url, before, { secret: Buffer.from("a-different-secret-0123456789") })).toEqual({ ok: false, reason: "bad-signature" });
  });

  it("parses single byte ranges and ignores what it cannot serve as one range", () => {
    expect(parseRangeHeader(null, 100)).toBeNull();
    expect(parseRangeHeader("bytes=0-9", 100)).toEqual({ start: 0, end: 9 });
    expect(parseRangeHeader("bytes=90-200", 100)).toEqual({ start: 90, end: 99 });
    expect(parseRangeHeader("bytes=50-", 100)).toEqual({ start: 50, end: 99 });
    expect(parseRangeHeader("bytes=-30", 100)).toEqual({ start: 70, end: 99 });
    expect(parseRangeHeader("bytes=-300", 100)).toEqual({ start: 0, end: 99 });
    expect(parseRangeHeader("bytes=100-", 100)).toBe("unsatisfiable");
    expect(parseRangeHeader("bytes=-0", 100)).toBe("unsatisfiable");
    expect(parseRangeHeader("bytes=0-1,5-6", 100)).toBeNull();
    expect(parseRangeHeader("bytes=9-3", 100)).toBeNull();
    expect(parseRangeHeader("items=0-1", 100)).toBeNull();
  });
});
