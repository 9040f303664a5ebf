/**
 * What a `<Dial>` connects to: a number or SIP URI (twilio.com/docs/voice/twiml/number, …/twiml/sip; a bare number
 * as the Dial's text is a `<Number>`), or a conference room (twilio.com/docs/voice/twiml/conference).
 */
export type DialTarget =
  | { kind: "number"; destination: string }
  | { kind: "conference"; name: string; startConferenceOnEnter: boolean; endConferenceOnExit: boolean; waitUrl: string | null; beep: boolean };

/** The TwiML verbs the simulator executes (what the app sends): enough of Twilio's grammar for outbound AI calls. */
export type TwimlVerb =
  | { verb: "Connect.Stream"; url: string; parameters: Record<string, string> }
  | { verb: "Say"; text: string; voice: string | null }
  | { verb: "Pause"; seconds: number }
  | { verb: "Record"; maxLength: number; timeout: number; playBeep: boolean; action: string | null; recordingStatusCallback: string | null }
  /** twilio.com/docs/voice/twiml/play: DTMF tones (`digits`, `w` = half a second's wait), or an audio URL (hold music). */
  | { verb: "Play"; digits: string | null; url: string | null; loop: number }
  /** twilio.com/docs/voice/twiml/dial: `action` gets DialCallStatus/DialCallSid/DialCallDuration when the dial ends. */
  | { verb: "Dial"; target: DialTarget; action: string | null; method: string; callerId: string | null; timeout: number; timeLimit: number | null }
  | { verb: "Hangup" }
  /**
   * twilio.com/docs/voice/twiml/reject: as the first verb, the call is never answered and ends `busy` (reason `busy`)
   * or `no-answer` (reason `rejected`, the default); anywhere else it hangs up.
   */
  | { verb: "Reject"; reason: "busy" | "rejected" };

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'" };
const decode = (text: string) => text.replace(/&(amp|lt|gt|quot|apos);/g, (entity) => ENTITIES[entity]!);

function attributes(raw: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const match of raw.matchAll(/([A-Za-z_:][\w:.-]*)\s*=\s*"([^"]*)"/g)) result[match[1]!] = decode(match[2]!);
  return result;
}

function dialTarget(inner: string): DialTarget {
  const noun = inner.trim().match(/^<(Number|Sip|Conference)((?:\s+[^>]*?)?)>([\s\S]*?)<\/\1>$/);
  if (!noun) {
    const bare = decode(inner.trim());
    if (!/^\+?[\d\s()-]{3,}$/.test(bare)) throw new Error(`12100 unsupported <Dial> content: ${inner.trim().slice(0, 80)}`);
    return { kind: "number", destination: bare.replace(/[\s()-]/g, "") };
  }
  const [, noun_, rawAttributes, text] = noun as unknown as [string, string, string, string];
  const attrs = attributes(rawAttributes ?? "");
  const value = decode(text.trim());
  if (noun_ !== "Conference") return { kind: "number", destination: value };
  const flag = (name: string, fallback: boolean) => (attrs[name] === undefined ? fallback : attrs[name] === "true");
  return {
    kind: "conference",
    name: value,
    startConferenceOnEnter: flag("startConferenceOnEnter", true),
    endConferenceOnExit: flag("endConferenceOnExit", false),
    waitUrl: attrs.waitUrl ?? null,
    beep: flag("beep", true),
  };
}

/** Parses a `<Response>` document; throws (Twilio error 12100) on anything it cannot read. */
export function parseTwiml(xml: string): TwimlVerb[] {
  const body = xml.replace(/<\?xml[^>]*\?>/, "").trim();
  const response = body.match(/^<Response\s*>([\s\S]*)<\/Response>$/) ?? (body.match(/^<Response\s*\/>$/) ? [body, ""] : null);
  if (!response) throw new Error("12100 Document parse failure: no <Response> element");
  const verbs: TwimlVerb[] = [];
  const pattern = /<(Connect|Say|Pause|Play|Dial|Record|Hangup|Reject)((?:\s+[^>]*?)?)(\/>|>([\s\S]*?)<\/\1>)/g;
  let rest = response[1]!;
  for (const match of rest.matchAll(pattern)) {
    const [, name, rawAttributes, , inner] = match;
    const attrs = attributes(rawAttributes ?? "");
    if (name === "Connect") {
      const stream = (inner ?? "").match(/<Stream((?:\s+[^>]*?)?)(\/>|>([\s\S]*?)<\/Stream>)/);
      if (!stream) throw new Error("12100 <Connect> without <Stream>");
      const streamAttrs = attributes(stream[1] ?? "");
      const parameters: Record<string, string> = {};
      for (const parameter of (stream[3] ?? "").matchAll(/<Parameter((?:\s+[^>]*?)?)\/>/g)) {
        const p = attributes(parameter[1] ?? "");
        if (p.name) parameters[p.name] = p.value ?? "";
      }
      verbs.push({ verb: "Connect.Stream", url: streamAttrs.url ?? "", parameters });
    } else if (name === "Say") {
      verbs.push({ verb: "Say", text: decode((inner ?? "").trim()), voice: attrs.voice ?? null });
    } else if (name === "Record") {
      // https://www.twilio.com/docs/voice/twiml/record: maxLength (s, default 3600), timeout (silence, s, default 5),
      // playBeep (default true), action, recordingStatusCallback.
      verbs.push({
        verb: "Record",
        maxLength: Number(attrs.maxLength ?? 3600),
        timeout: Number(attrs.timeout ?? 5),
        playBeep: attrs.playBeep !== "false",
        action: attrs.action ?? null,
        recordingStatusCallback: attrs.recordingStatusCallback ?? null,
      });
    } else if (name === "Pause") {
      verbs.push({ verb: "Pause", seconds: Number(attrs.length ?? 1) });
    } else if (name === "Play") {
      const url = decode((inner ?? "").trim()) || null;
      if (!attrs.digits && !url) throw new Error("12100 <Play> needs digits or a URL");
      verbs.push({ verb: "Play", digits: attrs.digits ?? null, url, loop: Number(attrs.loop ?? 1) });
    } else if (name === "Dial") {
      verbs.push({
        verb: "Dial",
        target: dialTarget(inner ?? ""),
        action: attrs.action ?? null,
        method: (attrs.method ?? "POST").toUpperCase(),
        callerId: attrs.callerId ?? null,
        timeout: Number(attrs.timeout ?? 30),
        timeLimit: attrs.timeLimit ? Number(attrs.timeLimit) : null,
      });
    } else if (name === "Reject") {
      if (attrs.reason && attrs.reason !== "busy" && attrs.reason !== "rejected") throw new Error(`12100 <Reject> reason must be busy or rejected, not ${attrs.reason}`);
      verbs.push({ verb: "Reject", reason: attrs.reason === "busy" ? "busy" : "rejected" });
    } else {
      verbs.push({ verb: "Hangup" });
    }
    rest = rest.replace(match[0], "");
  }
  if (rest.replace(/<!--[\s\S]*?-->/g, "").trim()) throw new Error(`12100 unsupported TwiML: ${rest.trim().slice(0, 80)}`);
  return verbs;
}
