import type { SessionMutation } from "@parley/sdk";
import type { JsonValue } from "@parley/session-core";
import { isToolState, MutationRecorder, toolPartsOfMutation } from "@parley/session-core/testing";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatCompletionsStub,
  type StubReply,
  type StubRequest,
  startChatCompletionsStub,
} from "../models/testing/chat-completions-stub.js";
import { type E2eEnvironment, startE2eEnvironment } from "../testing/index.js";

/** A schema whose properties nest `levels` schemas deep. */
function nestedSchema(levels: number): JsonValue {
  let schema: JsonValue = { type: "string" };
  for (let level = 1; level < levels; level += 1) schema = { type: "object", properties: { inner: schema } };
  return schema;
}

const HOSTILE_PATTERN_SCHEMA = {
  type: "object",
  required: ["name"],
  properties: { name: { type: "string", pattern: "^(a+)+$" } },
};

/** The `response_schema` the stub's `request_form` call carries, by the prompt that asks for it. */
const SCHEMAS_BY_PROMPT: Record<string, JsonValue> = {
  "form with $async": {
    $async: true,
    type: "object",
    properties: { name: { type: "string", minLength: 3 } },
  },
  "form with $ref": { type: "object", properties: { name: { $ref: "#" } } },
  "form of 1 MB": { type: "object", description: "x".repeat(1024 * 1024) },
  "form 50 deep": nestedSchema(50),
  "form with a hostile pattern": HOSTILE_PATTERN_SCHEMA,
};

/** A streamed tool call's arguments, in pieces of at most 64 KiB, as a provider streams them. */
function pieces(text: string): string[] {
  const size = 64 * 1024;
  return Array.from({ length: Math.ceil(text.length / size) }, (_, index) =>
    text.slice(index * size, (index + 1) * size),
  );
}

/**
 * The model: a prompt naming a form gets a `request_form` call with that form's schema; once the
 * conversation ends with the tool's result, or for any other prompt, a closing text.
 */
function replyForForms(request: StubRequest, index: number): StubReply {
  const lastUser = [...request.body.messages].reverse().find((message) => message.role === "user");
  const schema = typeof lastUser?.content === "string" ? SCHEMAS_BY_PROMPT[lastUser.content] : undefined;
  if (schema === undefined || request.body.messages.at(-1)?.role === "tool")
    return { text_chunks: ["Done."] };
  const input = JSON.stringify({ title: "A form", response_schema: schema });
  return { tool_calls: [{ id: `call_form_${index}`, name: "request_form", argument_chunks: pieces(input) }] };
}

/**
 * How the Turn finished: its status and text, and its error (absent when it completed) — named
 * here because a `toMatchObject` failure shows only the properties it expected, not why it failed.
 */
async function finishOf(feed: MutationRecorder, turn_id: string) {
  const finish = await feed.waitFor(
    (mutation: SessionMutation) =>
      mutation.variant === "turn" && mutation.type === "finish" && mutation.turn_id === turn_id,
  );
  if (finish.variant !== "turn") throw new Error("not a Turn mutation");
  return { status: finish.status, text: finish.text, error: finish.error };
}

const COMPLETED = { status: "completed", text: "Done.", error: undefined };

/** `/healthz` asked every 100 ms in the background; each probe's outcome is kept. */
function probeHealth(url: string): { stop(): Promise<Array<{ ok: boolean; ms: number }>> } {
  const probes: Array<{ ok: boolean; ms: number }> = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(5_000) })
        .then((response) => response.ok)
        .catch(() => false);
      probes.push({ ok, ms: performance.now() - started });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return probes;
    },
  };
}

/**
 * DESIGN §10.8 through a real API process whose model is an OpenAI-compatible stub: a
 * `request_form` schema outside the accepted subset fails the tool with `invalid_input` before any
 * Interaction exists; a catastrophic-backtracking `pattern` is decided at once; the process keeps
 * serving throughout.
 */
describe("request_form schemas chosen by a model (real API, openai-compatible stub)", () => {
  let stub: ChatCompletionsStub;
  let environment: E2eEnvironment;
  let health: ReturnType<typeof probeHealth>;
  let db: pg.Client;

  beforeAll(async () => {
    stub = await startChatCompletionsStub(replyForForms);
    environment = await startE2eEnvironment({
      env: { PARLEY_MODEL: "openai-compatible:stub-model", OPENAI_BASE_URL: stub.base_url },
    });
    db = new pg.Client({ connectionString: environment.database.url });
    await db.connect();
    health = probeHealth(environment.api.url);
  });

  afterAll(async () => {
    await health?.stop();
    await db?.end();
    await environment?.close();
    await stub?.close();
  });

  it.each([
    ["form with $async", "schema uses $async, which is outside the accepted subset"],
    ["form with $ref", "schema.properties.name uses $ref, which is outside the accepted subset"],
    ["form of 1 MB", "response_schema is 1048610 bytes, more than 16384"],
    ["form 50 deep", "schemas are nested deeper than 8"],
  ])("%s: the tool fails with invalid_input and no Interaction exists", async (prompt, problem) => {
    const session = await environment.admin.client().sessions.create({ title: prompt });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const { turn_id } = await session.prompt(prompt);
    const settled = await feed.waitFor(
      (mutation) => isToolState("failed")(mutation) || isToolState("waiting-user")(mutation),
    );
    const part = toolPartsOfMutation(settled).at(-1);
    expect(part?.state).toBe("failed");
    expect(part?.error).toMatch(/^response_schema is refused \(invalid_input\): /);
    expect(part?.error).toContain(problem);
    expect(await finishOf(feed, turn_id)).toEqual(COMPLETED);
    feed.stop();

    expect(await session.interactions()).toEqual([]);
    const rows = await db.query("SELECT count(*)::int AS count FROM interactions WHERE session_id = $1", [
      session.id,
    ]);
    expect(rows.rows[0]).toEqual({ count: 0 });
    const toolResult = stub.requests.at(-1)?.body.messages.at(-1);
    expect(toolResult?.role).toBe("tool");
    expect(String(toolResult?.content)).toContain("invalid_input");
  });

  it("a pattern of ^(a+)+$ refuses a hostile answer without backtracking, and a fitting answer completes the Turn", async () => {
    const session = await environment.admin.client().sessions.create({ title: "hostile pattern" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const { turn_id } = await session.prompt("form with a hostile pattern");
    await feed.waitFor(isToolState("waiting-user"));
    const [request] = await session.interactions();
    expect(request?.response_schema).toEqual(HOSTILE_PATTERN_SCHEMA);
    const answer = (name: string) =>
      session.respond({
        interaction_id: request?.interaction_id ?? "",
        response: { type: "parley:form", outcome: "resolved", payload: { name } },
      });

    // No clock: a backtracking engine needs about 2^n steps for n a's and a "!" (95 s for 40, twice
    // that for each a more), so with 50 a's the answer could not be refused within the 120 s test
    // timeout, and the server would hold its event loop all that while; RE2 decides it at once.
    await expect(answer(`${"a".repeat(50)}!`)).rejects.toMatchObject({
      code: "interaction_invalid_response",
      message:
        'Session Interaction response does not match response_schema: payload/name must match pattern "^(a+)+$"',
    });

    await answer("a".repeat(40));
    expect(await finishOf(feed, turn_id)).toEqual(COMPLETED);
    feed.stop();
  });

  it("a later session completes a Turn, and /healthz answered every probe throughout", async () => {
    const session = await environment.admin.client().sessions.create({ title: "afterwards" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const { turn_id } = await session.prompt("hello");
    expect(await finishOf(feed, turn_id)).toEqual(COMPLETED);
    feed.stop();

    const probes = await health.stop();
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.filter((probe) => !probe.ok)).toEqual([]);
    expect(environment.api.child.exitCode).toBeNull();
  });
});
