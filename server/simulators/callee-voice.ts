import { ULAW_SILENCE } from "@/server/voice/g711";
import type { CarrierAmdEvent } from "@/server/voice/answer-classifier/types";
import { corpusAmd, corpusClipAudio } from "./answer-corpus/numbers";
import { clipOfLine, type CalleeClip, type CalleeLine, type CalleeScenario } from "./voice-script";
import { loadClip } from "./voice-clips/clips";

/** One frame of the call's media: 20 ms of 8 kHz µ-law, as both carriers stream it. */
export const FRAME_BYTES = 160;
export const FRAME_MS = 20;

/**
 * What the callee's side lets an answering-machine detector conclude, reported through `milestone` for the carrier
 * simulator to turn into its own AMD result (Twilio's `AnsweredBy`, Telnyx's `call.machine.*` webhooks):
 * - `first-line-done`: a person's first words ended and 1.2 s of silence followed (Twilio's default
 *   `MachineDetectionSpeechEndThreshold`, twilio.com/docs/voice/answering-machine-detection) → a human;
 * - `machine-detected`: only with `machineDetectedAfterMs` (Telnyx): a machine's greeting has run that long, or its
 *   first line ended, whichever comes first;
 * - `greeting-done`: a second after a machine's beep (greeting ended, beep detected);
 * - `menu-prompt-done`: a phone menu's first prompt ended and 1.2 s of silence followed (neither a person nor a machine);
 * - `amd:<AnsweredBy>`: instead of all the above for an answer-corpus item, Twilio's result as modelled for it
 *   (answer-corpus/render.ts `modelCarrierAmd`, the bench's "Twilio AMD alone"), at its time from the opening's start.
 */
export type CalleeMilestone = "first-line-done" | "machine-detected" | "greeting-done" | "menu-prompt-done" | `amd:${string}`;

/** The audio of a line the callee says. */
export function calleeAudio(clip: CalleeClip): Buffer {
  return clip.startsWith("corpus:") ? corpusClipAudio(clip as `corpus:${string}`) : loadClip(clip as Exclude<CalleeClip, `corpus:${string}`>);
}

export type CalleeVoiceOptions = {
  /** A caller (inbound) waits for the agent's greeting before their first line too. */
  waitsForAgent?: boolean;
  /**
   * Report `machine-detected` once a machine's first line has run this long (or ended): Telnyx's detector decides on
   * the greeting's length (`greeting_duration_millis`); Twilio's reports only the end of the beep.
   */
  machineDetectedAfterMs?: number;
  /** Each line said, on the media clock (the simulator's record of who spoke when). */
  said?: (clip: CalleeClip, startMs: number, endMs: number) => void;
  mediaMs?: () => number;
};

type Menu = Extract<CalleeScenario, { kind: "menu" }>;
type Scripted = Exclude<CalleeScenario, { kind: "corpus" }>;

/**
 * The callee's side of a simulated call, the same on every carrier simulator (Twilio's and Telnyx's), so the same
 * voice tests run on both: its scripted utterances (voice-script.ts, by the number's last digit or as a test set
 * them), each said once the other side has spoken and gone quiet (a person waits for their turn), or
 * `overAgentAfterMs` into the agent's speech, or `atOnce`; a person says hello about a second after picking up; a
 * machine plays its greeting and beep without waiting; a phone menu says its prompt until a key is pressed
 * (`pressed`), then connects to a person, who talks in turn. The callee only talks while someone can hear it
 * (`nextFrame`'s `talking`: the agent's media stream, a recording, the detector, or a person it is bridged with); the
 * carrier sends the frames it returns, and turns its `milestone`s into AMD results and its `hangUp` into the end of
 * the call.
 */
export class CalleeVoice {
  private index = 0;
  private speaking: Buffer | null = null;
  private speakingStartedMs = 0;
  private position = 0;
  /** A person picks up and says hello after about a second. */
  private gapFrames = 50;
  private agentSpokeSinceLine = false;
  private lines: CalleeLine[];
  /** Lines before this index are said without waiting for a turn (a greeting, a menu's announcement). */
  private unpromptedUntil = 1;
  /** Phone menu: prompts said, frames until the next one; `connected` once a key led to a person. */
  private menu: { prompts: number; waitFrames: number; connected: boolean } | null;
  private hungUp = false;
  private hangUpCountdown = -1;
  private wasTalking = false;
  /** Frames of silence before the detector reports `pendingMilestone` (see CalleeMilestone). */
  private milestoneCountdown = -1;
  private pendingMilestone: CalleeMilestone = "greeting-done";
  private machineSpokenMs = 0;
  private machineReported = false;
  private readonly scenario: Scripted;
  /** An answer-corpus item: its modelled AMD result, and media ms since its opening started (-1: not yet). */
  private readonly modelledAmd: CarrierAmdEvent | null = null;
  private readonly corpus: boolean;
  private corpusMs = -1;
  private speakingOpening = false;

  constructor(
    scenario: CalleeScenario,
    private readonly milestone: (kind: CalleeMilestone) => void,
    private readonly hangUp: () => void,
    private readonly options: CalleeVoiceOptions = {},
  ) {
    this.corpus = scenario.kind === "corpus";
    if (scenario.kind === "corpus") {
      this.modelledAmd = corpusAmd(scenario.item);
      // The opening is the audio from the first frame (its own silence is part of it).
      this.gapFrames = 0;
    }
    this.scenario = scenario.kind === "corpus" ? scenario.callee : scenario;
    scenario = this.scenario;
    this.lines = scenario.kind === "human" || scenario.kind === "machine" ? [...scenario.lines] : [];
    this.menu = scenario.kind === "menu" ? { prompts: 0, waitFrames: 0, connected: false } : null;
    if (options.waitsForAgent) this.unpromptedUntil = 0;
  }

  /** Saying a line now. */
  get isSpeaking(): boolean {
    return this.speaking !== null;
  }

  /** Said every line. */
  get finished(): boolean {
    return this.speaking === null && this.index >= this.lines.length;
  }

  agentSpoke(): void {
    // What the agent says while the callee is still talking does not count as its reply to the callee's line (a
    // corpus opening ends in seconds of silence: what the agent says there does).
    if (!this.speaking || this.speakingOpening) this.agentSpokeSinceLine = true;
  }

  /** Keys played to the callee (Twilio's `<Play digits>`, Telnyx's `send_dtmf`): a phone menu routes on the first one it knows. */
  pressed(digits: string): void {
    if (this.scenario.kind !== "menu" || !this.menu || this.menu.connected) return;
    const option = [...digits].map((digit) => (this.scenario as Menu).options[digit]).find(Boolean);
    if (!option) {
      // A corpus menu says its prompt again at once on a wrong key (the recorded ones just keep waiting).
      if (this.corpus && !this.speaking) this.menu.waitFrames = 0;
      return;
    }
    this.menu.connected = true;
    this.lines = [option.connecting, ...option.lines];
    this.index = 0;
    // The announcement and the person's first words come unprompted; then the person talks in turn.
    this.unpromptedUntil = 2;
    this.gapFrames = 25;
    this.speaking = null;
  }

  private get replyGapFrames(): number {
    return (this.scenario.kind === "human" ? this.scenario.replyGapFrames : undefined) ?? 40;
  }

  /** The callee's next 20 ms, or null for silence. `talking`: someone listens. */
  nextFrame(talking: boolean, outboundIdleFrames: number, agentItem: { open: boolean; frames: number } = { open: false, frames: 0 }): Buffer | null {
    if (this.milestoneCountdown > 0 && (this.milestoneCountdown -= 1) === 0) this.milestone(this.pendingMilestone);
    if (this.corpusMs >= 0 && this.modelledAmd && (this.corpusMs += FRAME_MS) >= this.modelledAmd.atMs && this.corpusMs - FRAME_MS < this.modelledAmd.atMs) {
      this.milestone(`amd:${this.modelledAmd.answeredBy}`);
    }
    // Back from hold (or a menu's tones): a person waits to be spoken to before they say their next line.
    if (talking && !this.wasTalking) this.agentSpokeSinceLine = false;
    this.wasTalking = talking;
    if (this.hangUpCountdown > 0 && (this.hangUpCountdown -= 1) === 0 && !this.hungUp) {
      this.hungUp = true;
      this.hangUp();
    }
    if (!talking && !this.speaking) return null;
    if (!this.speaking) {
      if (this.menu && !this.menu.connected) return this.nextMenuFrame();
      if (this.index >= this.lines.length) return null;
      if (this.gapFrames > 0) {
        this.gapFrames -= 1;
        return null;
      }
      const line = this.lines[this.index]!;
      const options: Exclude<CalleeLine, string> = typeof line === "string" ? { clip: line } : line;
      const agentDone = this.agentSpokeSinceLine && outboundIdleFrames >= this.replyGapFrames && !agentItem.open;
      // A person who picks up to an agent already greeting listens first; one who speaks over the agent does so
      // `overAgentAfterMs` into its speech; a machine or a screener speaks when its turn comes; a menu's announcement
      // and the person it connects to speak unprompted; everyone else waits for the agent to finish.
      const myTurn =
        this.scenario.kind === "machine" ||
        options.atOnce === true ||
        (options.overAgentAfterMs !== undefined
          ? agentItem.frames * FRAME_MS >= options.overAgentAfterMs
          : this.index < this.unpromptedUntil
            ? this.menu?.connected || this.index > 0 || !this.agentSpokeSinceLine || agentDone
            : agentDone);
      if (!myTurn) return null;
      this.speaking = calleeAudio(clipOfLine(line));
      this.speakingOpening = clipOfLine(line).startsWith("corpus:");
      this.speakingStartedMs = this.options.mediaMs?.() ?? 0;
      this.position = 0;
      this.agentSpokeSinceLine = false;
    }
    return this.speakFrame();
  }

  private nextMenuFrame(): Buffer | null {
    const menu = this.menu!;
    if (menu.waitFrames > 0) {
      menu.waitFrames -= 1;
      return null;
    }
    if (menu.prompts >= 3) {
      // Nobody pressed anything: the menu hangs up, as many do.
      if (!this.hungUp) {
        this.hungUp = true;
        this.hangUp();
      }
      return null;
    }
    menu.prompts += 1;
    menu.waitFrames = Math.round((this.scenario as Menu).repeatAfterMs / FRAME_MS);
    this.speaking = calleeAudio((this.scenario as Menu).prompt);
    this.speakingOpening = this.corpus;
    this.position = 0;
    return this.speakFrame();
  }

  private report(kind: CalleeMilestone, afterFrames: number): void {
    // A corpus item's AMD result is modelled on its opening instead.
    if (this.corpus) return;
    [this.pendingMilestone, this.milestoneCountdown] = [kind, afterFrames];
  }

  /** A machine's greeting heard long enough (or over): the detector calls it a machine, once. */
  private reportMachine(): void {
    this.machineReported = true;
    if (!this.corpus) this.milestone("machine-detected");
  }

  private speakFrame(): Buffer {
    const speaking = this.speaking!;
    // The modelled AMD's clock starts with the opening's first frame.
    if (this.corpus && this.corpusMs < 0) this.corpusMs = 0;
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    const take = Math.min(FRAME_BYTES, speaking.length - this.position);
    speaking.copy(frame, 0, this.position, this.position + take);
    this.position += take;
    const machineAfterMs = this.options.machineDetectedAfterMs;
    const machineGreeting = machineAfterMs !== undefined && this.scenario.kind === "machine" && !this.machineReported;
    if (machineGreeting && this.index === 0 && (this.machineSpokenMs += FRAME_MS) >= machineAfterMs) this.reportMachine();
    if (this.position < speaking.length) return frame;
    if (!this.menu || this.menu.connected) this.options.said?.(clipOfLine(this.lines[this.index]!), this.speakingStartedMs, (this.options.mediaMs?.() ?? 0) + FRAME_MS);
    this.speaking = null;
    if (this.menu && !this.menu.connected) {
      if (this.menu.prompts === 1) this.report("menu-prompt-done", 60);
      return frame;
    }
    this.index += 1;
    this.gapFrames = this.scenario.kind === "machine" ? 15 : this.menu && this.index === 1 ? 100 : 0;
    if (this.scenario.kind === "human" && this.index === 1) this.report("first-line-done", 60);
    if (machineAfterMs !== undefined && this.scenario.kind === "machine" && this.index === 1 && !this.machineReported) this.reportMachine();
    if (this.scenario.kind === "machine" && this.index === this.lines.length) this.report("greeting-done", 50);
    if ((this.scenario.kind === "human" || this.scenario.kind === "machine") && this.scenario.hangsUpAfterLastLine && this.index === this.lines.length) this.hangUpCountdown = 50;
    // A fax machine's CNG goes on until the call ends.
    if (this.scenario.kind === "machine" && this.scenario.repeatsLastLine && this.index === this.lines.length) this.index -= 1;
    return frame;
  }
}
