import twilio from "twilio";

/** The agent's apology when the conversation cannot go on (the conversation's, said here with `<Say>`). */
export { APOLOGY_MESSAGE } from "@/server/voice/conversation/hooks";

/** Twilio's text-to-speech voice for `<Say>` (voicemail message, apology): Amazon Polly's neural US voice. */
export const SAY_VOICE = "Polly.Joanna-Neural";

/** An empty TwiML document to build on (`<Response/>`): how code outside this folder writes TwiML without the `twilio` package. */
export function voiceResponse(): InstanceType<typeof twilio.twiml.VoiceResponse> {
  return new twilio.twiml.VoiceResponse();
}

/**
 * `<Connect><Stream url="wss://…/media"><Parameter name="token" …/></Stream></Connect>`: the call's audio to our bridge.
 * `resume` (after pressed digits or a transfer nobody answered) tells the bridge to carry on the same conversation.
 */
export function streamTwiml(params: { streamUrl: string; token: string; resume?: string }): string {
  const response = new twilio.twiml.VoiceResponse();
  appendStream(response, params);
  return response.toString();
}

function appendStream(response: InstanceType<typeof twilio.twiml.VoiceResponse>, params: { streamUrl: string; token: string; resume?: string }) {
  const connect = response.connect();
  const stream = connect.stream({ url: params.streamUrl, name: "conversation" });
  stream.parameter({ name: "token", value: params.token });
  if (params.resume) stream.parameter({ name: "resume", value: params.resume });
}

/**
 * Keys pressed on the live call (twilio.com/docs/voice/twiml/play, `digits`; `w` waits half a second), then the media
 * stream again: the same conversation goes on (the bridge carries its context over).
 */
export function playDigitsThenStreamTwiml(params: { digits: string; streamUrl: string; token: string }): string {
  const response = new twilio.twiml.VoiceResponse();
  response.play({ digits: params.digits });
  appendStream(response, { ...params, resume: `digits:${params.digits}` });
  return response.toString();
}

/**
 * Cold transfer (twilio.com/docs/voice/twiml/dial, …/twiml/number, …/twiml/sip): Twilio dials the target with our
 * number as caller ID and bridges it to the caller; `action` is told how the dial ended (the agent comes back when
 * nobody answered).
 */
export function coldTransferTwiml(params: { destination: string; callerId: string; timeoutSeconds: number; timeLimitSeconds: number; action: string; sip: boolean }): string {
  const response = new twilio.twiml.VoiceResponse();
  const dial = response.dial({ callerId: params.callerId, timeout: params.timeoutSeconds, timeLimit: params.timeLimitSeconds, action: params.action, method: "POST" });
  if (params.sip) dial.sip(params.destination);
  else dial.number(params.destination);
  return response.toString();
}

/**
 * Warm transfer, the caller's side (twilio.com/docs/voice/twiml/conference): the caller waits in the room with
 * Twilio's hold music (the default `waitUrl`) until the person joins; when the caller leaves, the room ends.
 */
export function holdInConferenceTwiml(params: { conferenceName: string }): string {
  const response = new twilio.twiml.VoiceResponse();
  response.dial().conference({ startConferenceOnEnter: false, endConferenceOnExit: true, beep: "false" }, params.conferenceName);
  return response.toString();
}

/** Warm transfer, the person's side: the whisper (only they hear it), then the room with the caller. */
export function whisperThenConferenceTwiml(params: { whisper: string; conferenceName: string }): string {
  const response = new twilio.twiml.VoiceResponse();
  response.say({ voice: SAY_VOICE as never }, params.whisper);
  response.dial().conference({ startConferenceOnEnter: true, endConferenceOnExit: true, beep: "false" }, params.conferenceName);
  return response.toString();
}

/** The person answered after the caller had been taken back: they hear why, and the leg ends. */
export function callerGoneTwiml(): string {
  const response = new twilio.twiml.VoiceResponse();
  response.say({ voice: SAY_VOICE as never }, "Sorry, the caller is no longer waiting. Goodbye.");
  response.hangup();
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
