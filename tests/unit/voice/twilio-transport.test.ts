import { randomBytes } from "node:crypto";
import { utils } from "@openai/agents-realtime";
import { describe, expect, it } from "vitest";
import { arrayBufferToBase64, base64ToArrayBuffer, TwilioTransport } from "@/server/voice/twilio-realtime/twilio-transport";

// The SDK's own converters, taken before a transport installs the native ones.
const sdk = { encode: utils.arrayBufferToBase64, decode: utils.base64ToArrayBuffer };

/** A stand-in for Twilio's socket: the transport only listens on it and writes to it. */
const twilioSocket = { addEventListener: () => {}, removeEventListener: () => {}, send: () => {}, close: () => {}, readyState: 1 };

describe("Twilio transport: native base64 for the SDK's audio path", () => {
  it("encodes and decodes exactly as the SDK's converters, for frames of every size and views on larger buffers", () => {
    for (const size of [0, 1, 2, 3, 159, 160, 161, 320, 4096, 65_537]) {
      const bytes = new Uint8Array(randomBytes(size));
      const encoded = sdk.encode(bytes.buffer);
      expect(arrayBufferToBase64(bytes.buffer)).toBe(encoded);
      expect(new Uint8Array(base64ToArrayBuffer(encoded))).toEqual(new Uint8Array(sdk.decode(encoded)));
      expect(base64ToArrayBuffer(encoded).byteLength).toBe(size);
    }
    // A view (e.g. a slice of a larger buffer) encodes its own bytes only.
    const whole = new Uint8Array(randomBytes(400));
    expect(arrayBufferToBase64(whole.subarray(100, 260))).toBe(sdk.encode(whole.slice(100, 260).buffer));
  });

  it("is what the SDK's Twilio transport uses once a transport exists, and appends the caller's audio as the SDK does", () => {
    const transport = new TwilioTransport({ twilioWebSocket: twilioSocket as unknown as WebSocket });
    expect(utils.arrayBufferToBase64).toBe(arrayBufferToBase64);
    expect(utils.base64ToArrayBuffer).toBe(base64ToArrayBuffer);

    const events: unknown[] = [];
    transport.sendEvent = (event) => void events.push(event);
    const frame = new Uint8Array(randomBytes(160));
    // Not connected to the model: nothing is sent (as the SDK's sendAudio).
    transport.sendAudio(frame.buffer);
    expect(events).toEqual([]);
    Object.defineProperty(transport, "status", { get: () => "connected" });
    transport.sendAudio(frame.buffer);
    transport.sendAudio(frame.buffer, { commit: true });
    const append = { type: "input_audio_buffer.append", audio: sdk.encode(frame.buffer) };
    expect(events).toEqual([append, append, { type: "input_audio_buffer.commit" }]);
  });
});
