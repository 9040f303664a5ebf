/**
 * The browser's side of a test call: it speaks Twilio Media Streams to `/ws/agent-test` — the microphone as 8 kHz
 * µ-law `media` frames, the agent's `media` played back in order, each `mark` echoed once the audio before it has
 * played, `clear` stops playback — so the server runs the phone call's own Realtime session. The `test.*` events
 * (transcript, tool calls, latency, hang-up) go to `onEvent`. The agent's voice plays through an <audio> element.
 */

export type TestCallEvent =
  | { event: "test.transcript"; speaker: "agent" | "customer"; text: string; offsetMs: number }
  | { event: "test.tool"; toolCall: { name: string; arguments: Record<string, unknown>; result: { ok: boolean; message: string }; offsetMs: number } }
  | { event: "test.latency"; latencyMs: number }
  | { event: "test.hangup"; reason: string };

const SAMPLE_RATE = 8000;
const FRAME_BYTES = 160;

function encodeUlaw(sample: number): number {
  const BIAS = 0x84;
  const CLIP = 32635;
  let value = Math.max(-32768, Math.min(32767, Math.round(sample * 32767)));
  const sign = value < 0 ? 0x80 : 0;
  if (sign) value = -value;
  value = Math.min(value, CLIP) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (value & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (value >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

function decodeUlaw(byte: number): number {
  const value = ~byte & 0xff;
  const sign = value & 0x80;
  const exponent = (value >> 4) & 0x07;
  const mantissa = value & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return (sign ? -magnitude : magnitude) / 32768;
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export type BrowserTestCall = {
  /** Ends the call from the page (the server then finishes and analyses it). */
  hangUp(): void;
  /** A typed turn, for when there is no microphone or to try a phrase. */
  say(text: string): void;
  /** The loudest agent output level seen so far (0–1): above zero when the agent was heard. */
  peakLevel(): number;
};

export async function startBrowserTestCall(params: {
  url: string;
  audio: HTMLAudioElement;
  onEvent: (event: TestCallEvent) => void;
  onClosed: () => void;
  onError: (message: string) => void;
}): Promise<BrowserTestCall> {
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false, channelCount: 1 } });
  const context = new AudioContext();
  const output = context.createMediaStreamDestination();
  const analyser = context.createAnalyser();
  analyser.fftSize = 512;
  analyser.connect(output);
  params.audio.srcObject = output.stream;
  void params.audio.play().catch(() => {});

  const streamSid = `MZbrowser${Date.now()}`;
  const ws = new WebSocket(params.url);
  let frames = 0;
  let pending: number[] = [];
  let playAt = 0;
  let playing: AudioBufferSourceNode[] = [];
  let markTimers: number[] = [];
  let peak = 0;
  const send = (message: Record<string, unknown>) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ ...message, streamSid }));
  };

  const level = new Uint8Array(analyser.fftSize);
  const meter = window.setInterval(() => {
    analyser.getByteTimeDomainData(level);
    for (const value of level) peak = Math.max(peak, Math.abs(value - 128) / 128);
  }, 50);

  // The microphone, resampled to 8 kHz and sent in 20 ms frames.
  const source = context.createMediaStreamSource(microphone);
  const processor = context.createScriptProcessor(2048, 1, 1);
  const ratio = context.sampleRate / SAMPLE_RATE;
  let position = 0;
  processor.onaudioprocess = (event) => {
    const input = event.inputBuffer.getChannelData(0);
    for (; position < input.length; position += ratio) pending.push(encodeUlaw(input[Math.floor(position)]!));
    position -= input.length;
    while (pending.length >= FRAME_BYTES) {
      const frame = Uint8Array.from(pending.slice(0, FRAME_BYTES));
      pending = pending.slice(FRAME_BYTES);
      frames += 1;
      send({ event: "media", media: { track: "inbound", chunk: String(frames), timestamp: String(frames * 20), payload: toBase64(frame) } });
    }
  };
  source.connect(processor);
  // A script processor only runs when connected; its output is silent.
  processor.connect(context.destination);

  const play = (bytes: Uint8Array) => {
    const buffer = context.createBuffer(1, bytes.length, SAMPLE_RATE);
    const channel = buffer.getChannelData(0);
    for (let i = 0; i < bytes.length; i += 1) channel[i] = decodeUlaw(bytes[i]!);
    const node = context.createBufferSource();
    node.buffer = buffer;
    node.connect(analyser);
    playAt = Math.max(playAt, context.currentTime + 0.05);
    node.start(playAt);
    playAt += buffer.duration;
    playing.push(node);
    node.onended = () => {
      playing = playing.filter((candidate) => candidate !== node);
    };
  };

  const stopAll = () => {
    window.clearInterval(meter);
    processor.disconnect();
    source.disconnect();
    for (const track of microphone.getTracks()) track.stop();
    for (const timer of markTimers) window.clearTimeout(timer);
    markTimers = [];
  };

  ws.onopen = () => {
    send({ event: "connected", protocol: "Call", version: "1.0.0" });
    send({ event: "start", start: { streamSid, callSid: streamSid, tracks: ["inbound"], mediaFormat: { encoding: "audio/x-mulaw", sampleRate: SAMPLE_RATE, channels: 1 } } });
  };
  ws.onmessage = (message) => {
    let data: { event?: string; media?: { payload?: string }; mark?: { name?: string } } & Record<string, unknown>;
    try {
      data = JSON.parse(String(message.data));
    } catch {
      return;
    }
    if (data.event === "media" && data.media?.payload) play(fromBase64(data.media.payload));
    else if (data.event === "mark" && data.mark?.name) {
      const name = data.mark.name;
      const delay = Math.max(0, (playAt - context.currentTime) * 1000);
      markTimers.push(window.setTimeout(() => send({ event: "mark", mark: { name } }), delay));
    } else if (data.event === "clear") {
      for (const node of playing) node.stop();
      playing = [];
      playAt = context.currentTime;
    } else if (typeof data.event === "string" && data.event.startsWith("test.")) params.onEvent(data as unknown as TestCallEvent);
  };
  ws.onerror = () => params.onError("The test call's connection failed.");
  ws.onclose = () => {
    // Let the last agent audio finish before the context goes.
    const tail = Math.max(0, (playAt - context.currentTime) * 1000);
    stopAll();
    window.setTimeout(() => void context.close(), tail + 200);
    params.onClosed();
  };

  return {
    hangUp() {
      send({ event: "stop" });
      ws.close(1000, "hung up");
    },
    say(text: string) {
      send({ event: "test.say", text });
    },
    peakLevel: () => peak,
  };
}
