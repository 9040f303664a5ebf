import OpenAI from "openai";
import { pcm24kToUlaw8k } from "@/server/voice/pcm";
import type { TwilioRealtimeSettings } from "./settings";

/**
 * The disclosures as audio: spoken by a text-to-speech model (OpenAI `audio/speech`, in the agent's voice) from their
 * exact text, then played into the call ourselves. Why not the Realtime model: a speech-to-speech model told to "say
 * exactly" may still paraphrase, and nothing in the Realtime API makes it read a text verbatim; a TTS model reads the
 * input it is given. Why not TwiML `<Say>` before the stream: it would talk over the callee's hello and play to
 * answering machines before Twilio's verdict, in another voice. Cached per (model, voice, text): the texts are the
 * agent's, the same on every call.
 */
export type DisclosureSpeech = { synthesize(text: string, voice: string): Promise<Buffer> };

const CACHE_LIMIT = 64;

export function createDisclosureSpeech(settings: Pick<TwilioRealtimeSettings, "openai">): DisclosureSpeech {
  const client = new OpenAI({ apiKey: settings.openai.apiKey, baseURL: settings.openai.baseUrl, maxRetries: 2, timeout: 15_000 });
  const cache = new Map<string, Promise<Buffer>>();
  return {
    synthesize(text, voice) {
      const key = `${settings.openai.speechModel}\u0000${voice}\u0000${text}`;
      const cached = cache.get(key);
      if (cached) return cached;
      const audio = (async () => {
        const response = await client.audio.speech.create({ model: settings.openai.speechModel, voice, input: text, response_format: "pcm" });
        const ulaw = pcm24kToUlaw8k(new Uint8Array(await response.arrayBuffer()));
        if (ulaw.length < 800) throw new Error("the speech model returned no audio for a disclosure");
        return ulaw;
      })();
      cache.set(key, audio);
      // A failure is not cached: the next call asks again.
      audio.catch(() => cache.delete(key));
      if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value!);
      return audio;
    },
  };
}
