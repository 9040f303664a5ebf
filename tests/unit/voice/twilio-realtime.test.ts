import http from "node:http";
import type { AddressInfo } from "node:net";
import { inspect } from "node:util";
import twilio from "twilio";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { recognize } from "@/server/simulators/openai-realtime";
import { twilioSignature } from "@/server/simulators/twilio";
import { parseTwiml } from "@/server/simulators/twilio/twiml";
import { loadClip } from "@/server/simulators/voice-clips/clips";
import { ulawRms } from "@/server/voice/g711";
import { createMediaStreamServer } from "@/server/voice/twilio-realtime/media-bridge";
import { readTwilioRealtimeSettings, VoiceSettingsError } from "@/server/voice/twilio-realtime/settings";
import { isSignedByTwilio } from "@/server/carriers/twilio/signature";
import { createStreamToken, verifyStreamToken } from "@/server/voice/twilio-realtime/stream-token";
import { sayAndHangUpTwiml, streamTwiml } from "@/server/carriers/twilio/twiml";
import { validateVoiceSettings } from "@/server/voice/voice-settings";

const SID = `AC${"a".repeat(32)}`;
const ENV = {
  TWILIO_ACCOUNT_SID: SID,
  TWILIO_AUTH_TOKEN: "auth-token-secret",
  PUBLIC_BASE_URL: "https://calls.example.com",
  OPENAI_API_KEY: "sk-openai-secret",
  ANALYSIS_LLM_URL: "https://api.openai.com/v1",
  ANALYSIS_LLM_MODEL: "gpt-4.1-mini",
};

describe("real voice engine settings", () => {
  it("name every missing setting, refuse a non-https public URL, and require the LLM analyser", () => {
    const error = (() => {
      try {
        readTwilioRealtimeSettings({ PUBLIC_BASE_URL: "http://calls.example.com" });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(VoiceSettingsError);
    for (const name of ["TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "OPENAI_API_KEY", "ANALYSIS_LLM_URL", "ANALYSIS_LLM_MODEL", "PUBLIC_BASE_URL must be the https://"]) {
      expect(error!.message).toContain(name);
    }
    expect(() => readTwilioRealtimeSettings({ ...ENV, TWILIO_API_KEY: `SK${"1".repeat(32)}` })).toThrow(/TWILIO_API_SECRET/);
    expect(() => validateVoiceSettings({ VOICE_ENGINE: "twilio-realtime" })).toThrow(/missing: TWILIO_ACCOUNT_SID/);
    expect(() => validateVoiceSettings({ VOICE_ENGINE: "carrier-pigeon" })).toThrow(/unknown/);
    expect(() => validateVoiceSettings({})).not.toThrow();
  });

  it("defaults the model and URLs, uses an API key for REST when given, and never shows a secret", () => {
    const settings = readTwilioRealtimeSettings({ ...ENV, TWILIO_API_KEY: `SK${"1".repeat(32)}`, TWILIO_API_SECRET: "api-secret" });
    expect(settings.openai).toMatchObject({ model: "gpt-realtime", realtimeUrl: "wss://api.openai.com/v1/realtime?model=gpt-realtime" });
    expect(settings.twilio).toMatchObject({ apiBaseUrl: "https://api.twilio.com", restUsername: `SK${"1".repeat(32)}`, restPassword: "api-secret", authToken: "auth-token-secret" });
    const shown = `${JSON.stringify(settings)} ${inspect(settings, { depth: 5 })}`;
    for (const secret of ["auth-token-secret", "sk-openai-secret", "api-secret"]) expect(shown).not.toContain(secret);
    const local = readTwilioRealtimeSettings({ ...ENV, OPENAI_BASE_URL: "http://127.0.0.1:9999/v1", REALTIME_MODEL: "gpt-realtime-mini" });
    expect(local.openai.realtimeUrl).toBe("ws://127.0.0.1:9999/v1/realtime?model=gpt-realtime-mini");
  });
});

describe("stream token, TwiML and signatures", () => {
  const now = new Date("2026-03-02T15:00:00Z");

  it("a stream token names its call, expires, and cannot be forged or moved to another call", () => {
    const token = createStreamToken({ callId: "call.abc", authToken: "secret", now });
    expect(verifyStreamToken(token, { authToken: "secret", now })).toBe("call.abc");
    expect(verifyStreamToken(token, { authToken: "secret", now: new Date(now.getTime() + 301_000) })).toBeNull();
    expect(verifyStreamToken(token, { authToken: "other", now })).toBeNull();
    expect(verifyStreamToken(token.replace("call.abc", "call.abd"), { authToken: "secret", now })).toBeNull();
    expect(verifyStreamToken(undefined, { authToken: "secret", now })).toBeNull();
  });

  it("our TwiML is what the Twilio simulator executes", () => {
    expect(parseTwiml(streamTwiml({ streamUrl: "wss://calls.example.com/ws/voice/twilio", token: "t.1.x" }))).toEqual([
      { verb: "Connect.Stream", url: "wss://calls.example.com/ws/voice/twilio", parameters: { token: "t.1.x" } },
    ]);
    expect(parseTwiml(sayAndHangUpTwiml("Call us back & soon."))).toEqual([{ verb: "Say", text: "Call us back & soon.", voice: "Polly.Joanna-Neural" }, { verb: "Hangup" }]);
  });

  it("the simulator signs as Twilio does: the twilio package validates it, over the public URL only", () => {
    const url = "https://calls.example.com/api/voice/twilio/status?callId=call.abc";
    const params = { CallSid: `CA${"b".repeat(32)}`, CallStatus: "completed", CallDuration: "42" };
    const signature = twilioSignature("auth-token-secret", url, params);
    expect(twilio.validateRequest("auth-token-secret", signature, url, params)).toBe(true);
    const settings = readTwilioRealtimeSettings(ENV);
    expect(isSignedByTwilio(settings, { pathAndQuery: "/api/voice/twilio/status?callId=call.abc", signature, form: params })).toBe(true);
    expect(isSignedByTwilio(settings, { pathAndQuery: "/api/voice/twilio/status?callId=call.abd", signature, form: params })).toBe(false);
    expect(isSignedByTwilio(settings, { pathAndQuery: "/api/voice/twilio/status?callId=call.abc", signature, form: { ...params, CallDuration: "1" } })).toBe(false);
    expect(isSignedByTwilio(settings, { pathAndQuery: "/api/voice/twilio/status?callId=call.abc", signature: null, form: params })).toBe(false);
  });

  it("the Realtime simulator recognizes each callee clip, also with its start cut off, and not silence", () => {
    for (const id of ["callee.hello", "callee.yes-book", "callee.remove-me", "callee.voicemail-greeting"] as const) {
      const clip = loadClip(id);
      expect(recognize(clip)).toBe(id);
      expect(recognize(clip.subarray(Math.floor(clip.length * 0.4)))).toBe(id);
      expect(ulawRms(clip)).toBeGreaterThan(1000);
    }
    expect(recognize(Buffer.alloc(8000, 0xff))).toBeNull();
  });
});

describe("media stream endpoint", () => {
  it("refuses an unsigned handshake (403) and closes a stream whose start has no valid token, reading nothing", async () => {
    const settings = readTwilioRealtimeSettings(ENV);
    const media = createMediaStreamServer({
      settings,
      getDb: () => {
        throw new Error("the database must not be touched");
      },
      now: () => new Date(),
      log: () => {},
      hangUp: async () => {},
      onStreamEnded: () => {},
    });
    const server = http.createServer();
    server.on("upgrade", (req, socket, head) => {
      if (!media.handleUpgrade(req, socket, head)) socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/voice/twilio`;
    try {
      const unsigned = new WebSocket(base);
      const status = await new Promise<number>((resolve) => unsigned.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)));
      expect(status).toBe(403);

      const signature = twilioSignature(ENV.TWILIO_AUTH_TOKEN, "wss://calls.example.com/ws/voice/twilio", {});
      for (const token of [undefined, "forged.9999999999.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", createStreamToken({ callId: "call.x", authToken: ENV.TWILIO_AUTH_TOKEN, now: new Date(Date.now() - 3_600_000) })]) {
        const ws = new WebSocket(base, { headers: { "x-twilio-signature": signature } });
        await new Promise((resolve) => ws.once("open", resolve));
        const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
        ws.send(JSON.stringify({ event: "connected", protocol: "Call", version: "1.0.0" }));
        ws.send(JSON.stringify({ event: "start", streamSid: "MZ1", start: { streamSid: "MZ1", callSid: "CA1", customParameters: token ? { token } : {}, mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 } } }));
        expect(await closed).toBe(1008);
      }
      expect(media.live.size).toBe(0);
    } finally {
      await media.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
