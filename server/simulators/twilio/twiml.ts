/** The TwiML verbs the simulator executes (what the app sends): enough of Twilio's grammar for outbound AI calls. */
export type TwimlVerb =
  | { verb: "Connect.Stream"; url: string; parameters: Record<string, string> }
  | { verb: "Say"; text: string; voice: string | null }
  | { verb: "Pause"; seconds: number }
  | { verb: "Dial"; number: string }
  | { verb: "Record"; maxLength: number; timeout: number; playBeep: boolean; action: string | null; recordingStatusCallback: string | null }
  | { verb: "Hangup" };

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'" };
const decode = (text: string) => text.replace(/&(amp|lt|gt|quot|apos);/g, (entity) => ENTITIES[entity]!);

function attributes(raw: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const match of raw.matchAll(/([A-Za-z_:][\w:.-]*)\s*=\s*"([^"]*)"/g)) result[match[1]!] = decode(match[2]!);
  return result;
}

/** Parses a `<Response>` document; throws (Twilio error 12100) on anything it cannot read. */
export function parseTwiml(xml: string): TwimlVerb[] {
  const body = xml.replace(/<\?xml[^>]*\?>/, "").trim();
  const response = body.match(/^<Response\s*>([\s\S]*)<\/Response>$/) ?? (body.match(/^<Response\s*\/>$/) ? [body, ""] : null);
  if (!response) throw new Error("12100 Document parse failure: no <Response> element");
  const verbs: TwimlVerb[] = [];
  const pattern = /<(Connect|Say|Pause|Hangup|Dial|Record)((?:\s+[^>]*?)?)(\/>|>([\s\S]*?)<\/\1>)/g;
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
    } else if (name === "Dial") {
      // `<Dial>+1…</Dial>` or `<Dial><Number>+1…</Number></Dial>` (https://www.twilio.com/docs/voice/twiml/dial).
      const inside = (inner ?? "").trim();
      const number = decode((inside.match(/<Number[^>]*>([\s\S]*?)<\/Number>/)?.[1] ?? inside).trim());
      if (!number) throw new Error("12100 <Dial> without a number");
      verbs.push({ verb: "Dial", number });
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
    } else {
      verbs.push({ verb: "Hangup" });
    }
    rest = rest.replace(match[0], "");
  }
  if (rest.replace(/<!--[\s\S]*?-->/g, "").trim()) throw new Error(`12100 unsupported TwiML: ${rest.trim().slice(0, 80)}`);
  return verbs;
}
