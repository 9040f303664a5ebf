import { encodeUlawSample, ULAW_SILENCE } from "@/server/voice/g711";

/**
 * A room the simulator bridges calls in: a TwiML `<Conference>` (twilio.com/docs/voice/twiml/conference: the room
 * starts when a participant with `startConferenceOnEnter` joins — until then the others hear the hold music of
 * `waitUrl` —, and ends when one with `endConferenceOnExit` leaves, or when the last one does), and the private
 * two-party room of a `<Dial><Number>`/`<Sip>` bridge (twilio.com/docs/voice/twiml/dial: the parties talk until one
 * hangs up). Participants exchange their callee's speech frame by frame (SimCall.hear).
 */
export type RoomParticipant = { hear(frame: Buffer): void };
export type JoinOptions = { startConferenceOnEnter: boolean; endConferenceOnExit: boolean };

export class SimRoom {
  readonly participants = new Map<RoomParticipant, JoinOptions>();
  started = false;
  ended = false;
  private readonly endWaiters: Array<() => void> = [];

  constructor(
    readonly name: string,
    private readonly onEnded: (room: SimRoom) => void,
  ) {}

  /** Resolves when the room has ended (the participant must still `leave`). */
  join(participant: RoomParticipant, options: JoinOptions): Promise<void> {
    if (this.ended) return Promise.resolve();
    this.participants.set(participant, options);
    if (options.startConferenceOnEnter) this.started = true;
    return new Promise((resolve) => this.endWaiters.push(resolve));
  }

  leave(participant: RoomParticipant): void {
    const options = this.participants.get(participant);
    if (!options) return;
    this.participants.delete(participant);
    if ((options.endConferenceOnExit && this.started) || this.participants.size === 0) this.end();
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.participants.clear();
    for (const resolve of this.endWaiters.splice(0)) resolve();
    this.onEnded(this);
  }

  /** The others this participant talks with (none until the room has started). */
  partnersOf(participant: RoomParticipant): RoomParticipant[] {
    if (!this.started || this.ended) return [];
    return [...this.participants.keys()].filter((other) => other !== participant);
  }
}

/** DTMF frequency pairs (ITU-T Q.23): row tone + column tone per key. */
const DTMF: Record<string, [number, number]> = {
  "1": [697, 1209], "2": [697, 1336], "3": [697, 1477], A: [697, 1633],
  "4": [770, 1209], "5": [770, 1336], "6": [770, 1477], B: [770, 1633],
  "7": [852, 1209], "8": [852, 1336], "9": [852, 1477], C: [852, 1633],
  "*": [941, 1209], "0": [941, 1336], "#": [941, 1477], D: [941, 1633],
};

/**
 * The audio of TwiML `<Play digits="…">` (twilio.com/docs/voice/twiml/play#attributes-digits): each key a 250 ms
 * dual tone then 100 ms of silence; `w` waits half a second. Unknown characters are skipped.
 */
export function dtmfAudio(digits: string): Buffer {
  const parts: Buffer[] = [];
  for (const key of digits.toUpperCase()) {
    if (key === "W") {
      parts.push(Buffer.alloc(4000, ULAW_SILENCE));
      continue;
    }
    const pair = DTMF[key];
    if (!pair) continue;
    const tone = Buffer.alloc(2000);
    for (let i = 0; i < tone.length; i += 1) {
      const t = i / 8000;
      tone[i] = encodeUlawSample(6000 * (Math.sin(2 * Math.PI * pair[0] * t) + Math.sin(2 * Math.PI * pair[1] * t)));
    }
    parts.push(tone, Buffer.alloc(800, ULAW_SILENCE));
  }
  return Buffer.concat(parts);
}
