import {
  type AssistantMessage,
  type ComposedRuntime,
  composeRuntime,
  define_agent_tool,
  type ToolPart,
} from "@parley/session-core";
import { createScriptedModel } from "@parley/session-core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createDatabase, type ParleyDatabase } from "../create-database.js";
import { createTestDatabase, type TestDatabase } from "../testing/test-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

const AGENT_ID = "agent:bytes";

// What `cat /proc/self/environ` or a binary file gives a tool: NUL, which PostgreSQL text and jsonb
// cannot hold, and an unpaired surrogate, which has no UTF-8 form.
const binaryOutput = define_agent_tool({
  description: "Returns output holding NUL and an unpaired surrogate.",
  input_schema: z.object({}),
  async execute() {
    return { stdout: "PATH=/bin\u0000HOME=/w\u0000", odd: "x\uD800y", "key\u0000": 1 };
  },
});
const binaryError = define_agent_tool({
  description: "Fails with a message holding NUL.",
  input_schema: z.object({}),
  async execute(): Promise<never> {
    throw new Error("cannot read a\u0000b");
  },
});

let database: TestDatabase;
let parley: ParleyDatabase;
let composed: ComposedRuntime;

beforeAll(async () => {
  database = await createTestDatabase();
  parley = await createDatabase({ url: database.url });
  const model = createScriptedModel((call) => {
    if (call.prompt.at(-1)?.role === "tool") return [{ text: "done" }];
    const tool = call.last_user_text === "error" ? "binary_error" : "binary_output";
    return [{ tool_call: { id: `call_${tool}`, name: tool, input: {} } }];
  });
  composed = composeRuntime({
    adapters: parley,
    agent: { agent_id: AGENT_ID, model, tools: { binary_output: binaryOutput, binary_error: binaryError } },
  });
});

afterAll(async () => {
  await composed?.close();
  await parley?.close();
  await database?.drop();
});

/** The Turn's tool part as a fresh store reads it back from PostgreSQL. */
async function storedToolPart(session_id: string, turn_id: string): Promise<ToolPart> {
  const store = new PrismaSessionStore(parley.pool);
  const page = await store.listMessages(session_id, { limit: 100 });
  const parts = page.items
    .filter(
      (message): message is AssistantMessage => message.type === "assistant" && message.turn_id === turn_id,
    )
    .flatMap((message) => message.parts.filter((part): part is ToolPart => part.type === "tool"));
  expect(parts).toHaveLength(1);
  return parts[0] as ToolPart;
}

describe("tool output with bytes PostgreSQL cannot hold", () => {
  it("is committed with NUL as ␀ and an unpaired surrogate as U+FFFD; the Turn completes", async () => {
    const session = await composed.runtime.createSession({ owner_id: "user:owner", agent_id: AGENT_ID });
    const turn = await session.prompt({ query: "output" });
    expect(await turn.finished).toMatchObject({ success: true, text: "done" });
    const part = await storedToolPart(session.id, turn.id);
    expect(part.state).toBe("completed");
    expect(part.output).toEqual({ stdout: "PATH=/bin\u2400HOME=/w\u2400", odd: "x\uFFFDy", "key\u2400": 1 });
  });

  it("is committed when a tool's error message holds NUL", async () => {
    const session = await composed.runtime.createSession({ owner_id: "user:owner", agent_id: AGENT_ID });
    const turn = await session.prompt({ query: "error" });
    expect(await turn.finished).toMatchObject({ success: true, text: "done" });
    const part = await storedToolPart(session.id, turn.id);
    expect(part).toMatchObject({ state: "failed", error: "cannot read a\u2400b" });
  });
});
