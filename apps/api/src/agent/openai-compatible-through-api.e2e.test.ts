import { mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, it } from "vitest";
import {
  type ChatCompletionsStub,
  startChatCompletionsStub,
} from "../models/testing/chat-completions-stub.js";
import { type E2eEnvironment, startE2eEnvironment } from "../testing/index.js";
import {
  expectApprovalFlowThroughApi,
  expectQuestionFlowThroughApi,
  replyForApiFlows,
} from "./testing/stub-flows-through-api.js";

/**
 * The end-to-end proof: a real API process (Postgres) configured with
 * `PARLEY_MODEL=openai-compatible:stub-model` talks HTTP to a chat-completions stub started here; the
 * SDK drives an approval flow and a question flow, and the stub receives the tool results in the
 * second request of the same Turn.
 */
describe("openai-compatible model through the API (real process, Postgres, SDK client)", () => {
  let stub: ChatCompletionsStub;
  let environment: E2eEnvironment;
  let project_root: string;

  beforeAll(async () => {
    project_root = await realpath(await mkdtemp(path.join(tmpdir(), "parley-stub-ws-")));
    await writeFile(path.join(project_root, "notes.txt"), "remember the milk");
    stub = await startChatCompletionsStub(replyForApiFlows);
    environment = await startE2eEnvironment({
      env: {
        PARLEY_MODEL: "openai-compatible:stub-model",
        OPENAI_BASE_URL: stub.base_url,
        PARLEY_WORKSPACES: `project=${project_root}`,
      },
    });
  });

  afterAll(async () => {
    await environment?.close();
    await stub?.close();
    await rm(project_root, { recursive: true, force: true });
  });

  it("approval flow", async () => {
    await expectApprovalFlowThroughApi(environment.admin.client(), stub, project_root);
  });

  it("question flow", async () => {
    await expectQuestionFlowThroughApi(environment.admin.client(), stub);
  });
});
