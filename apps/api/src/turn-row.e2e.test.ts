import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatCompletionsStub,
  startChatCompletionsStub,
} from "./models/testing/chat-completions-stub.js";
import {
  type ApiProcess,
  type E2eEnvironment,
  type E2eUser,
  startApiProcess,
  startE2eEnvironment,
} from "./testing/index.js";

/**
 * The Turn row (DESIGN §10.7) across real API processes: a Turn whose first model request is in
 * flight has committed no model output yet, and the instance that does not run it still says
 * `running` with its `active_turn_id` (both read the row).
 */
describe("status and info read the Turn row on every instance", () => {
  let stub: ChatCompletionsStub;
  let environment: E2eEnvironment;
  let second: ApiProcess;
  let alice: E2eUser;
  let clientB: ParleyClient;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    stub = await startChatCompletionsStub((_request, index) =>
      index === 0 ? { hold: held, text_chunks: ["hello"] } : { text_chunks: ["again"] },
    );
    const env = { PARLEY_MODEL: "openai-compatible:stub-model", OPENAI_BASE_URL: stub.base_url };
    environment = await startE2eEnvironment({ env });
    alice = await environment.createMember("alice");
    second = await startApiProcess({ database_url: environment.database.url, env });
    clientB = createParleyClient({ url: second.url, token: alice.token });
  });

  afterAll(async () => {
    release();
    await clientB?.close();
    await second?.stop();
    await environment?.close();
    await stub?.close();
  });

  it("during the Turn's first model request, both instances say running with its active_turn_id", async () => {
    const onA = environment.clientFor(alice, environment.api.url);
    const session = await onA.sessions.create({ title: "first request in flight" });
    const { turn_id } = await session.prompt("hi");
    // The first model request reached the model: nothing of its output is committed.
    const deadline = Date.now() + 30_000;
    while (stub.requests.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(stub.requests).toHaveLength(1);
    const onB = clientB.session(session.id);
    expect((await onB.messages()).items.map((message) => message.type)).toEqual(["user"]);
    expect(await onB.status()).toMatchObject({ state: "running", active_turn_id: turn_id });
    expect(await onB.info()).toMatchObject({ state: "running" });
    expect(await session.status()).toMatchObject({ state: "running", active_turn_id: turn_id });

    release();
    const finished = await onB.waitForTurn(turn_id);
    expect(finished).toMatchObject({ status: "completed" });
    expect(await onB.status()).toMatchObject({ state: "idle" });
    expect((await onB.status()).active_turn_id).toBeUndefined();
  });
});
