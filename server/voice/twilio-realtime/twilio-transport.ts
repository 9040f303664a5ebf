import { TwilioRealtimeTransportLayer } from "@openai/agents-extensions";
import { utils } from "@openai/agents-realtime";

/**
 * Base64 of audio with Node's native codec, for the SDK's audio path.
 *
 * Every 20 ms frame crosses base64 twice in the SDK: Twilio's payload is decoded and encoded again for
 * `input_audio_buffer.append`, the model's delta is decoded and encoded again for Twilio's `media`. The SDK's
 * converters are written for browsers (`String.fromCharCode(...bytes)` then `btoa`; `atob` then `charCodeAt` per
 * byte): in the bridge at 100 calls they were its largest single cost, about 18 µs per frame, where `Buffer` takes
 * well under 1 µs (bench/media-bridge.ts, docs/call-quality.md "Measured"). Same output for every input
 * (tests/unit/voice/twilio-transport.test.ts).
 */
export function arrayBufferToBase64(audio: ArrayBuffer | ArrayBufferView): string {
  const bytes = ArrayBuffer.isView(audio) ? Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength) : Buffer.from(audio);
  return bytes.toString("base64");
}

export function base64ToArrayBuffer(base64: string): ArrayBuffer {
  const bytes = Buffer.from(base64, "base64");
  // A fresh buffer of its own (a Buffer may be a view on Node's shared pool).
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

/**
 * The SDK's Twilio transport reads its converters from the `utils` object that `@openai/agents-realtime` exports
 * (`utils.arrayBufferToBase64(audio)` when it writes a frame to Twilio, `utils.base64ToArrayBuffer` for Twilio's
 * frames): they are pointed at the native ones once, before the first transport is made. Only these two entries are
 * replaced; the SDK's own model-socket code keeps its module-private copies.
 */
let installed = false;
function useNativeBase64() {
  if (installed) return;
  installed = true;
  utils.arrayBufferToBase64 = arrayBufferToBase64;
  utils.base64ToArrayBuffer = base64ToArrayBuffer;
}

/**
 * The SDK's `TwilioRealtimeTransportLayer` with the caller's audio appended through the native codec: `sendAudio`
 * (the public method the transport calls for every Twilio frame, and for the silence it pads gaps with) sends the same
 * `input_audio_buffer.append` (and `commit`) events the SDK's does, when connected, as the SDK's does.
 */
export class TwilioTransport extends TwilioRealtimeTransportLayer {
  constructor(options: ConstructorParameters<typeof TwilioRealtimeTransportLayer>[0]) {
    useNativeBase64();
    super(options);
  }

  override sendAudio(audio: ArrayBuffer, options: { commit?: boolean } = {}): void {
    if (this.status !== "connected") return;
    this.sendEvent({ type: "input_audio_buffer.append", audio: arrayBufferToBase64(audio) });
    if (options.commit) this.sendEvent({ type: "input_audio_buffer.commit" });
  }
}
