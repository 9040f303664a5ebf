import { ULAW_SILENCE } from "@/server/voice/g711";
import { clipOfLine, type CalleeLine, type CalleeScenario } from "../voice-script";
import { loadClip, type VoiceClipId } from "../voice-clips/clips";
import { FRAME_BYTES, FRAME_MS } from "./call-types";

export type AmdMilestone = "first-line-done" | "greeting-done" | "menu-prompt-done";

/**
 * The callee's side of the line: its scripted utterances, each said once the other side has spoken and gone quiet (a
 * person waits for their turn); a machine plays its greeting and beep without waiting; a phone menu says its prompt
 * until a key is pressed (`pressed`), then connects to a person, who talks in turn. The callee only talks while
 * someone can hear it (the agent's media stream, or a person it is bridged with).
 */
export class CalleeVoice {
  private index = 0;
  private speaking: Buffer | null = null;
  private speakingStartedMs = 0;
  private position = 0;
  /** A person picks up and says hello after about a second. */
  private gapFrames = 50;
  private agentSpokeSinceLine = false;
  private streaming = false;
  private lines: CalleeLine[];
  /** Lines before this index are said without waiting for a turn (a greeting, a menu's announcement). */
  private unpromptedUntil = 1;
  /** Phone menu: prompts said, frames until the next one; `connected` once a key led to a person. */
  private menu: { prompts: number; waitFrames: number; connected: boolean } | null;
  private hungUp = false;
  private hangUpCountdown = -1;
  private wasTalking = false;

  constructor(
    private readonly scenario: CalleeScenario,
    private readonly milestone: (kind: AmdMilestone) => void,
    private readonly hangUp: () => void,
    private readonly options: {
      /** A caller (inbound) waits for the agent's greeting before their first line too. */
      waitsForAgent?: boolean;
      /** Each line said, on the media clock (the simulator's record of who spoke when). */
      said?: (clip: VoiceClipId, startMs: number, endMs: number) => void;
      mediaMs?: () => number;
    } = {},
  ) {
    this.lines = scenario.kind === "human" || scenario.kind === "machine" ? [...scenario.lines] : [];
    this.menu = scenario.kind === "menu" ? { prompts: 0, waitFrames: 0, connected: false } : null;
    if (options.waitsForAgent) this.unpromptedUntil = 0;
  }

  streamStarted() {
    this.streaming = true;
  }

  /** Saying a line now. */
  get isSpeaking(): boolean {
    return this.speaking !== null;
  }

  /** Said every line. */
  get finished(): boolean {
    return this.speaking === null && this.index >= this.lines.length;
  }

  streamStopped() {
    this.streaming = false;
  }

  agentSpoke() {
    // What the agent says while the callee is still talking does not count as its reply to the callee's line.
    if (!this.speaking) this.agentSpokeSinceLine = true;
  }

  /** Keys pressed on the line (`<Play digits>`): a phone menu routes on the first one it knows. */
  pressed(digits: string) {
    if (this.scenario.kind !== "menu" || !this.menu || this.menu.connected) return;
    const option = [...digits].map((digit) => (this.scenario as Extract<CalleeScenario, { kind: "menu" }>).options[digit]).find(Boolean);
    if (!option) return;
    this.menu.connected = true;
    this.lines = [option.connecting, ...option.lines];
    this.index = 0;
    // The announcement and the person's first words come unprompted; then the person talks in turn.
    this.unpromptedUntil = 2;
    this.gapFrames = 25;
    this.speaking = null;
  }

  /**
   * Frames of silence before the detector reports: after a person's first words, `MachineDetectionSpeechEndThreshold`
   * (default 1,200 ms, twilio.com/docs/voice/answering-machine-detection); after a machine's beep, a second.
   */
  private amdCountdown = -1;
  private amdVerdict: AmdMilestone = "greeting-done";

  private get replyGapFrames(): number {
    return (this.scenario.kind === "human" ? this.scenario.replyGapFrames : undefined) ?? 40;
  }

  nextFrame(talking: boolean, outboundIdleFrames: number, agentItem: { open: boolean; frames: number } = { open: false, frames: 0 }): Buffer | null {
    if (this.amdCountdown > 0 && (this.amdCountdown -= 1) === 0) this.milestone(this.amdVerdict);
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
      const machine = this.scenario.kind === "machine";
      const line = this.lines[this.index]!;
      const options: Exclude<CalleeLine, string> = typeof line === "string" ? { clip: line } : line;
      const agentDone = this.agentSpokeSinceLine && outboundIdleFrames >= this.replyGapFrames && !agentItem.open;
      // A person who picks up to an agent already greeting listens first; one who speaks over the agent does so
      // `overAgentAfterMs` into its speech; a machine or a screener speaks when its turn comes; a menu's announcement
      // and the person it connects to speak unprompted; everyone else waits for the agent to finish.
      const myTurn =
        machine ||
        options.atOnce === true ||
        (options.overAgentAfterMs !== undefined
          ? agentItem.frames * 20 >= options.overAgentAfterMs
          : this.index < this.unpromptedUntil
            ? this.menu?.connected || this.index > 0 || !this.agentSpokeSinceLine || agentDone
            : agentDone);
      if (!myTurn) return null;
      this.speaking = loadClip(clipOfLine(line));
      this.speakingStartedMs = this.options.mediaMs?.() ?? 0;
      this.position = 0;
      this.agentSpokeSinceLine = false;
    }
    return this.speakFrame();
  }

  private nextMenuFrame(): Buffer | null {
    const menu = this.menu!;
    const scenario = this.scenario as Extract<CalleeScenario, { kind: "menu" }>;
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
    menu.waitFrames = Math.round(scenario.repeatAfterMs / FRAME_MS);
    this.speaking = loadClip(scenario.prompt);
    this.position = 0;
    return this.speakFrame();
  }

  private speakFrame(): Buffer {
    const speaking = this.speaking!;
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    const take = Math.min(FRAME_BYTES, speaking.length - this.position);
    speaking.copy(frame, 0, this.position, this.position + take);
    this.position += take;
    if (this.position >= speaking.length) {
      if (!this.menu || this.menu.connected) this.options.said?.(clipOfLine(this.lines[this.index]!), this.speakingStartedMs, (this.options.mediaMs?.() ?? 0) + FRAME_MS);
      this.speaking = null;
      if (this.menu && !this.menu.connected) {
        if (this.menu.prompts === 1) [this.amdVerdict, this.amdCountdown] = ["menu-prompt-done", 60];
        return frame;
      }
      this.index += 1;
      this.gapFrames = this.scenario.kind === "machine" ? 15 : this.menu && this.index === 1 ? 100 : 0;
      if (this.scenario.kind === "human" && this.index === 1) [this.amdVerdict, this.amdCountdown] = ["first-line-done", 60];
      if (this.scenario.kind === "machine" && this.index === this.lines.length) [this.amdVerdict, this.amdCountdown] = ["greeting-done", 50];
      if (this.scenario.kind === "human" && this.scenario.hangsUpAfterLastLine && this.index === this.lines.length) this.hangUpCountdown = 50;
    }
    return frame;
  }
}
