import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createModelFromSetting } from "../models/create-model-from-setting.js";
import { startResponsesApiStub } from "../models/testing/responses-api-stub.js";
import {
  type AgentTestRuntime,
  approvalResponse,
  nextPendingInteraction,
  startAgentTestRuntime,
} from "./testing/agent-test-runtime.js";

let harness: AgentTestRuntime | undefined;
let stub: Awaited<ReturnType<typeof startResponsesApiStub>> | undefined;

afterEach(async () => {
  await harness?.dispose();
  await stub?.close();
});

describe("openai:<id> (Responses API) with OPENAI_BASE_URL, over HTTP through the runtime", () => {
  it("runs an approval flow and sends the tool result back in the Turn's second request", async () => {
    stub = await startResponsesApiStub();
    harness = await startAgentTestRuntime(
      createModelFromSetting("openai:gpt-stub", {
        OPENAI_API_KEY: "sk-stub",
        OPENAI_BASE_URL: stub.base_url,
      }),
    );
    await writeFile(path.join(harness.root, "notes.txt"), "x");
    const session = await harness.createSession();
    const turn = await session.prompt({ query: "delete notes.txt" });
    const request = await nextPendingInteraction(session, turn);
    expect(request.source).toEqual({
      type: "tool",
      tool_call_id: "call_resp_delete",
      tool_name: "delete_file",
    });
    await session.respond({ interaction_id: request.interaction_id, response: approvalResponse("approved") });
    expect(await turn.finished).toMatchObject({ success: true, text: "Deleted notes.txt." });
    expect(stub.bodies).toHaveLength(2);
    // The call goes back inline (no `item_reference` to server-stored items), so a proxy that stores
    // nothing still gets the whole conversation.
    expect(stub.bodies[1]?.input.slice(1)).toEqual([
      { role: "user", content: [{ type: "input_text", text: "delete notes.txt" }] },
      {
        type: "function_call",
        call_id: "call_resp_delete",
        name: "delete_file",
        arguments: '{"path":"notes.txt"}',
      },
      {
        type: "function_call_output",
        call_id: "call_resp_delete",
        // As stored: object keys in Postgres jsonb's order.
        output: '{"deleted":"notes.txt","success":true}',
      },
    ]);
  });
});
