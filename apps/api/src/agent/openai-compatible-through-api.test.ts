import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createModelFromSetting } from "../models/create-model-from-setting.js";
import {
  type ChatCompletionsStub,
  startChatCompletionsStub,
} from "../models/testing/chat-completions-stub.js";
import {
  type InProcessApiWithModel,
  startInProcessApiWithModel,
} from "./testing/in-process-api-with-model.js";
import {
  expectApprovalFlowThroughApi,
  expectQuestionFlowThroughApi,
  replyForApiFlows,
} from "./testing/stub-flows-through-api.js";

/**
 * The same flows as `openai-compatible-through-api.e2e.test.ts`, through the real HTTP + WebSocket
 * server in this process (in-memory adapters instead of Postgres): `openai-compatible:stub-model`
 * over HTTP to the stub, driven by the SDK.
 */
describe("openai-compatible model through the API (in process, SDK client)", () => {
  let stub: ChatCompletionsStub;
  let api: InProcessApiWithModel;
  let client: ParleyClient;

  beforeAll(async () => {
    stub = await startChatCompletionsStub(replyForApiFlows);
    api = await startInProcessApiWithModel(
      createModelFromSetting("openai-compatible:stub-model", { OPENAI_BASE_URL: stub.base_url }),
    );
    await writeFile(path.join(api.project_root, "notes.txt"), "remember the milk");
    client = createParleyClient({ url: api.url, token: await api.memberToken("alice") });
  });

  afterAll(async () => {
    await client?.close();
    await api?.close();
    await stub?.close();
  });

  it("approval flow", async () => {
    await expectApprovalFlowThroughApi(client, stub, api.project_root);
  });

  it("question flow", async () => {
    await expectQuestionFlowThroughApi(client, stub);
  });
});
