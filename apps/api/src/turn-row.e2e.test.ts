import { createParleyClient, type ParleyClient } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ChatCompletionsStub,
  HoldGate,
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
  // Holds a "[hold]" request in flight; each test that holds one closes it anew, so an earlier
  // test's release never lets a later test's request through.
  const gate = new HoldGate();

  beforeAll(async () => {
    // A request whose prompt asks for it is held in flight (a Turn's first model request).
    stub = await startChatCompletionsStub((request) =>
      JSON.stringify(request.body.messages.at(-1)?.content ?? "").includes("[hold]")
        ? { hold: gate.held, text_chunks: ["hello"] }
        : { text_chunks: ["again"] },
    );
    const env = { PARLEY_MODEL: "openai-compatible:stub-model", OPENAI_BASE_URL: stub.base_url };
    environment = await startE2eEnvironment({ env });
    alice = await environment.createMember("alice");
    second = await startApiProcess({ database_url: environment.database.url, env });
    clientB = createParleyClient({ url: second.url, token: alice.token });
  });

  afterAll(async () => {
    gate.release();
    await clientB?.close();
    await second?.stop();
    await environment?.close();
    await stub?.close();
  });

  it("during the Turn's first model request, both instances say running with its active_turn_id", async () => {
    gate.close();
    const onA = environment.clientFor(alice, environment.api.url);
    const session = await onA.sessions.create({ title: "first request in flight" });
    const { turn_id } = await session.prompt("hi [hold]");
    // The first model request reached the model: nothing of its output is committed.
    const deadline = Date.now() + 30_000;
    while (stub.requests.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(stub.requests).toHaveLength(1);
    const sent = stub.requests.length;
    const onB = clientB.session(session.id);
    expect((await onB.messages()).items.map((message) => message.type)).toEqual(["user"]);
    expect(await onB.status()).toMatchObject({ state: "running", active_turn_id: turn_id });
    expect(await onB.info()).toMatchObject({ state: "running" });
    expect(await session.status()).toMatchObject({ state: "running", active_turn_id: turn_id });

    gate.release();
    const finished = await onB.waitForTurn(turn_id);
    expect(finished).toMatchObject({ status: "completed" });
    expect(await onB.status()).toMatchObject({ state: "idle" });
    expect((await onB.status()).active_turn_id).toBeUndefined();
    expect(stub.requests.length).toBe(sent);
  });

  it("a holder killed (-9) during the first model request: the other instance claims its Turn within 2 s", async () => {
    const holder = await startApiProcess({
      database_url: environment.database.url,
      env: { PARLEY_MODEL: "openai-compatible:stub-model", OPENAI_BASE_URL: stub.base_url },
    });
    const onHolder = createParleyClient({ url: holder.url, token: alice.token });
    gate.close();
    const session = await onHolder.sessions.create({ title: "holder killed" });
    const before = stub.requests.length;
    const { turn_id } = await session.prompt("hi [hold] again");
    const deadline = Date.now() + 30_000;
    while (stub.requests.length === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(stub.requests).toHaveLength(before + 1);
    const onB = clientB.session(session.id);
    expect(await onB.status()).toMatchObject({ state: "running", active_turn_id: turn_id });
    await onHolder.close();
    await holder.stop("SIGKILL");
    const killed_at = Date.now();
    // Within 2 s (asserted as 2 s) another instance's recovery claims the Turn: with no model output
    // committed, nothing of it can resume, so it ends interrupted and the session is idle again.
    for (;;) {
      const status = await onB.status();
      if (status.state === "idle") break;
      expect(Date.now() - killed_at).toBeLessThan(2_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const finished = await onB.waitForTurn(turn_id);
    expect(finished).toMatchObject({ status: "failed" });
  });
});
