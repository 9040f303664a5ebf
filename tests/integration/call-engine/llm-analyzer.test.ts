import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getCallAnalyzer, setCallAnalyzer } from "@/server/analysis";
import { AnalysisError, createLlmAnalyzer } from "@/server/analysis/llm";
import type { AnalysisInput } from "@/server/analysis/types";
import { useTestDb } from "@/tests/helpers/db";
import { extractionDefinitions, outcomeDefinitions } from "@/tests/unit/voice/fixtures";
import { callsOf, createEngineOrganization, enroll, startCallEngine, type CallEngineHarness } from "./harness";

const db = useTestDb();

/** A local server speaking the OpenAI chat-completions API; each test decides what the "model" answers. */
type Stub = { url: string; requests: Array<{ headers: http.IncomingHttpHeaders; body: any }>; reply: (body: any) => { status: number; body: unknown }; close: () => Promise<void> };
let stub: Stub;
let engine: CallEngineHarness | null = null;

beforeAll(async () => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "call-engine-llm-"));
  const requests: Stub["requests"] = [];
  const state = { reply: (_body: any) => ({ status: 500, body: { error: { message: "no reply configured" } } }) };
  const server = http.createServer((request, response) => {
    let raw = "";
    request.on("data", (chunk) => (raw += chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/chat/completions") {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(raw);
      requests.push({ headers: request.headers, body });
      const { status, body: answer } = state.reply(body);
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  stub = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get reply() {
      return state.reply;
    },
    set reply(value) {
      state.reply = value;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
afterAll(() => stub.close());
afterEach(async () => {
  await engine?.stop();
  engine = null;
  stub.requests.length = 0;
});

function completion(content: unknown) {
  return { status: 200, body: { id: "chatcmpl-1", object: "chat.completion", model: "stub-model", choices: [{ index: 0, message: { role: "assistant", content: typeof content === "string" ? content : JSON.stringify(content) }, finish_reason: "stop" }] } };
}

const input: AnalysisInput = {
  callId: "call.llm-test",
  disposition: "answered",
  transcript: "Agent: Hi Jane, this is Ava calling.\nCustomer: Hi. Book it for Thursday at 2:30 PM.",
  durationSeconds: 95,
  endedAt: new Date("2026-03-02T15:01:35Z"),
  agent: { name: "Ava" },
  contact: { name: "Jane Doe", timezone: "America/New_York", variables: { company_name: "Acme Corp" } },
  extractionDefinitions,
  outcomeDefinitions,
  meeting: null,
  errorMessage: null,
};

/** What a model answers under the structured-output schema: the enum's result type, exactly the variables' keys. */
const modelAnswer = {
  resultType: "Goal Completed",
  summary: "Jane agreed to a meeting on Thursday.",
  extractedVariables: { interest_level: "High", callback_time: "2026-03-05T14:30:00-05:00", budget: "12,000", decision_maker: "yes", call_sentiment: "positive" },
  outcomes: [{ name: "Meeting booked", reasoning: "She asked to book Thursday." }],
  agentActions: [{ description: "Offered a meeting", actionKey: "offer_meeting" }],
  humanActions: [{ description: "Asked for Thursday", actionKey: "request_time" }],
};

describe("LLM analyser (official openai package, structured outputs)", () => {
  it("sends the transcript and definitions, and holds the answer to the call-result contract", async () => {
    stub.reply = () => completion(modelAnswer);
    const analyzer = createLlmAnalyzer({ url: stub.url, model: "stub-model", apiKey: "sk-test" });
    const result = await analyzer.analyze(input);
    expect(stub.requests).toHaveLength(1);
    const sent = stub.requests[0]!;
    expect(sent.headers.authorization).toBe("Bearer sk-test");
    expect(sent.body).toMatchObject({ model: "stub-model", temperature: 0, response_format: { type: "json_schema", json_schema: { name: "call_analysis", strict: true } } });
    // The schema holds the model to this call: the allowed result types, exactly the agent's variables, its outcome names.
    const schema = sent.body.response_format.json_schema.schema;
    expect(schema.properties.resultType.enum).toEqual(["Goal Completed", "Goal Not Completed", "No Conversation", "Opted Out"]);
    expect(Object.keys(schema.properties.extractedVariables.properties).sort()).toEqual(input.extractionDefinitions.map((d) => d.slug).sort());
    expect(schema.properties.extractedVariables.required.sort()).toEqual(input.extractionDefinitions.map((d) => d.slug).sort());
    expect(schema.properties.extractedVariables.additionalProperties).toBe(false);
    expect(schema.properties.outcomes.items.properties.name.enum).toEqual(["Meeting booked", "Interested", "Not interested"]);
    expect(sent.body.messages.map((message: { role: string }) => message.role)).toEqual(["system", "user"]);
    const user = JSON.parse(sent.body.messages[1].content);
    expect(user.transcript).toBe(input.transcript);
    expect(user.allowedResultTypes).toEqual(["Goal Completed", "Goal Not Completed", "No Conversation", "Opted Out"]);
    expect(user.extractionVariables.map((variable: { slug: string }) => variable.slug)).toContain("interest_level");
    expect(user.outcomeDefinitions.map((outcome: { name: string }) => outcome.name)).toEqual(["Meeting booked", "Interested", "Not interested"]);

    expect(result.resultType).toBe("Goal Completed");
    expect(result.extractedVariables).toEqual({
      interest_level: "high",
      callback_time: "2026-03-05 14:30:00",
      budget: 12000,
      decision_maker: true,
      call_sentiment: "positive",
    });
    expect(result.outcomes).toEqual([{ name: "Meeting booked", reasoning: "She asked to book Thursday." }]);
    expect(result.humanActions[0]).toMatchObject({ actionKey: "request_time", status: "completed", completedAt: input.endedAt.toISOString(), metadata: {} });
  });

  it("fails loudly on endpoint errors, unparsable answers and result types it may not choose", async () => {
    const analyzer = createLlmAnalyzer({ url: `${stub.url}/chat/completions`, model: "stub-model" });
    stub.reply = () => ({ status: 503, body: { error: { message: "overloaded" } } });
    await expect(analyzer.analyze(input)).rejects.toBeInstanceOf(AnalysisError);
    stub.reply = () => completion("I think the call went well!");
    await expect(analyzer.analyze(input)).rejects.toThrow(/not the expected JSON/);
    stub.reply = () => completion({ ...modelAnswer, resultType: "Busy" });
    await expect(analyzer.analyze(input)).rejects.toThrow(/not the expected JSON/);
    stub.reply = () => completion({ ...modelAnswer, outcomes: [{ name: "Totally made up", reasoning: "Not a configured outcome." }] });
    await expect(analyzer.analyze(input)).rejects.toBeInstanceOf(AnalysisError);
    stub.reply = () => ({ status: 200, body: { id: "x", object: "chat.completion", model: "m", choices: [{ index: 0, message: { role: "assistant", content: null, refusal: "I can't help with that." }, finish_reason: "stop" }] } });
    await expect(analyzer.analyze(input)).rejects.toThrow(/refused/);
    expect(stub.requests[0]!.headers.authorization).toBeUndefined();
    // Calls that never connected are not sent to the model.
    const before = stub.requests.length;
    expect((await analyzer.analyze({ ...input, disposition: "busy", transcript: null })).resultType).toBe("Busy");
    expect(stub.requests.length).toBe(before);
  });

  it("is selected by ANALYSIS_LLM_URL / ANALYSIS_LLM_MODEL / ANALYSIS_LLM_API_KEY", () => {
    try {
      setCallAnalyzer(undefined);
      vi.stubEnv("ANALYSIS_LLM_URL", "");
      expect(getCallAnalyzer().kind).toBe("rules");
      vi.stubEnv("ANALYSIS_LLM_URL", stub.url);
      vi.stubEnv("ANALYSIS_LLM_MODEL", "stub-model");
      expect(getCallAnalyzer().kind).toBe("llm");
    } finally {
      vi.unstubAllEnvs();
      setCallAnalyzer(undefined);
    }
  });

  it("runs in the engine; when the endpoint keeps failing, the last attempt falls back to the rules", async () => {
    engine = await startCallEngine(db, { start: new Date("2026-03-02T15:00:00Z"), analyzer: createLlmAnalyzer({ url: stub.url, model: "stub-model" }) });
    const { agent } = await createEngineOrganization(db);
    stub.reply = () => completion({ ...modelAnswer, resultType: "Goal Not Completed", summary: "Stub summary." });
    const viaModel = await enroll(db, { agent, phoneNumber: "+12025550501", now: engine.clock.now() });
    await engine.settle();
    const [analysed] = await callsOf(db, viaModel.sequenceId);
    expect(analysed!.resultType).toBe("Goal Not Completed");
    expect(analysed!.summary).toBe("Stub summary.");
    expect(analysed!.extractedVariables).toMatchObject({ interest_level: "high", budget: 12000 });

    stub.reply = () => ({ status: 500, body: { error: { message: "down" } } });
    const viaFallback = await enroll(db, { agent, phoneNumber: "+12025550511", now: engine.clock.now() });
    await engine.settle();
    expect((await callsOf(db, viaFallback.sequenceId))[0]!.resultType).toBe("Processing Analysis");
    await engine.runner.advance(2 * 60 * 60_000);
    const [fallback] = await callsOf(db, viaFallback.sequenceId);
    expect(fallback!.resultType).toBe("Goal Not Completed");
    expect(fallback!.summary).toContain("Ava spoke with Jane Doe");
    expect(stub.requests.length).toBeGreaterThanOrEqual(5);
  });
});
