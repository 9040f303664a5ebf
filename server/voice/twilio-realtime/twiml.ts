import twilio from "twilio";

/** The agent's apology when the conversation cannot go on (the Realtime model unreachable or lost). */
export const APOLOGY_MESSAGE = "Sorry, we are having technical difficulties and have to end this call. We will call you back later. Goodbye.";

/** Twilio's text-to-speech voice for `<Say>` (voicemail message, apology): Amazon Polly's neural US voice. */
const SAY_VOICE = "Polly.Joanna-Neural";

/** `<Connect><Stream url="wss://…/media"><Parameter name="token" …/></Stream></Connect>`: the call's audio to our bridge. */
export function streamTwiml(params: { streamUrl: string; token: string }): string {
  const response = new twilio.twiml.VoiceResponse();
  const connect = response.connect();
  const stream = connect.stream({ url: params.streamUrl, name: "conversation" });
  stream.parameter({ name: "token", value: params.token });
  return response.toString();
}

/** Says the text(s) (the identification and voicemail message after the beep, or an apology), then hangs up. */
export function sayAndHangUpTwiml(text: string | readonly string[] | null): string {
  const response = new twilio.twiml.VoiceResponse();
  for (const part of typeof text === "string" ? [text] : (text ?? [])) if (part) response.say({ voice: SAY_VOICE as never }, part);
  response.hangup();
  return response.toString();
}

export function emptyTwiml(): string {
  return new twilio.twiml.VoiceResponse().toString();
}
