import { ULAW_SILENCE } from "@/server/voice/g711";
import { clipOfLine, type CalleeLine, type CalleeScenario } from "../voice-script";
import { loadClip, type VoiceClipId } from "../voice-clips/clips";

/**
 * The person (or machine, or phone menu) at the other end of a simulated Telnyx call. It follows the same turn-taking
 * rules as the Twilio simulator's callee (server/simulators/twilio/call.ts, `CalleeVoice`), so the same voice tests can
 * run on both carriers: a person says hello about a second after picking up, then each next line once the agent has
 * spoken and gone quiet (or `overAgentAfterMs` into the agent's speech, or `atOnce`); a machine plays its greeting and
 * beep without waiting; a phone menu repeats its prompt until a key routes it (`pressed`). What the detector hears is
 * reported through `milestone`, which call.ts turns into Telnyx's AMD webhooks
 * (https://developers.telnyx.com/docs/voice/programmable-voice/answering-machine-detection):
 * - `first-line-done`: a person's greeting ended and 1.2 s of silence followed (→ `human`);
 * - `machine-detected`: a greeting longer than `greeting_duration_millis` (default 3,500 ms) is still going, or a
 *   machine's first line ended (→ `machine`);
 * - `greeting-done`: a second after a machine's beep (→ greeting ended, `beep_detected`);
 * - `menu-prompt-done`: a phone menu's first prompt ended (→ `not_sure`).
 * This is the only module of the simulator without a Telnyx page of its own: it is the callee, not the carrier.
 */

export type CalleeMilestone = "first-line-done" | "machine-detected" | "greeting-done" | "menu-prompt-done";

export const FRAME_BYTES = 160;
export const FRAME_MS = 20;
/** How long a greeting runs before the detector calls it a machine (Telnyx's `greeting_duration_millis` default). */
const MACHINE_GREETING_MS = 3500;

type Menu = Extract<CalleeScenario, { kind: "menu" }>;

export class CalleeVoice {
  private index = 0;
  private speaking: Buffer | null = null;
  private speakingStartedMs = 0;
  private position = 0;
  /** A person picks up and says hello after about a second. */
  private gapFrames = 50;
  private agentSpokeSinceLine = false;
  private lines: CalleeLine[];
  private unpromptedUntil = 1;
  private menu: { prompts: number; waitFrames: number; connected: boolean } | null;
  private hungUp = false;
  private hangUpCountdown = -1;
  private wasTalking = false;
  private milestoneCountdown = -1;
  private pendingMilestone: CalleeMilestone = "greeting-done";
  private machineSpokenMs = 0;
  private machineReported = false;

  constructor(
    private readonly scenario: CalleeScenario,
    private readonly milestone: (kind: CalleeMilestone) => void,
    private readonly hangUp: () => void,
    private readonly options: { said?: (clip: VoiceClipId, startMs: number, endMs: number) => void; mediaMs?: () => number } = {},
  ) {
    this.lines = scenario.kind === "human" || scenario.kind === "machine" ? [...scenario.lines] : [];
    this.menu = scenario.kind === "menu" ? { prompts: 0, waitFrames: 0, connected: false } : null;
  }

  agentSpoke(): void {
    if (!this.speaking) this.agentSpokeSinceLine = true;
  }

  /** Keys the agent sent (`send_dtmf`): a phone menu routes on the first one it knows. */
  pressed(digits: string): void {
    if (this.scenario.kind !== "menu" || !this.menu || this.menu.connected) return;
    const option = [...digits].map((digit) => (this.scenario as Menu).options[digit]).find(Boolean);
    if (!option) return;
    this.menu.connected = true;
    this.lines = [option.connecting, ...option.lines];
    this.index = 0;
    this.unpromptedUntil = 2;
    this.gapFrames = 25;
    this.speaking = null;
  }

  private get replyGapFrames(): number {
    return (this.scenario.kind === "human" ? this.scenario.replyGapFrames : undefined) ?? 40;
  }

  /** The callee's next 20 ms, or null for silence. `talking`: someone listens (the stream, a recording, the detector). */
  nextFrame(talking: boolean, outboundIdleFrames: number, agentItem: { open: boolean; frames: number }): Buffer | null {
    if (this.milestoneCountdown > 0 && (this.milestoneCountdown -= 1) === 0) this.milestone(this.pendingMilestone);
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
      const myTurn =
        this.scenario.kind === "machine" ||
        options.atOnce === true ||
        (options.overAgentAfterMs !== undefined
          ? agentItem.frames * FRAME_MS >= options.overAgentAfterMs
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
    this.speaking = loadClip((this.scenario as Menu).prompt);
    this.position = 0;
    return this.speakFrame();
  }

  private report(kind: CalleeMilestone, afterFrames: number): void {
    [this.pendingMilestone, this.milestoneCountdown] = [kind, afterFrames];
  }

  private speakFrame(): Buffer {
    const speaking = this.speaking!;
    const frame = Buffer.alloc(FRAME_BYTES, ULAW_SILENCE);
    const take = Math.min(FRAME_BYTES, speaking.length - this.position);
    speaking.copy(frame, 0, this.position, this.position + take);
    this.position += take;
    if (this.scenario.kind === "machine" && this.index === 0 && !this.machineReported && (this.machineSpokenMs += FRAME_MS) >= MACHINE_GREETING_MS) {
      this.machineReported = true;
      this.milestone("machine-detected");
    }
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
    if (this.scenario.kind === "machine" && this.index === 1 && !this.machineReported) {
      this.machineReported = true;
      this.milestone("machine-detected");
    }
    if (this.scenario.kind === "machine" && this.index === this.lines.length) this.report("greeting-done", 50);
    if (this.scenario.kind === "human" && this.scenario.hangsUpAfterLastLine && this.index === this.lines.length) this.hangUpCountdown = 50;
    return frame;
  }
}
