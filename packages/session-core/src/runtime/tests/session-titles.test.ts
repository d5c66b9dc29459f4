import { describe, expect, it } from "vitest";
import { RuntimeHarness } from "../../testing/runtime-harness.js";
import { createScriptedModel } from "../../testing/scripted-model.js";

function titleMutations(harness: RuntimeHarness, session_id: string) {
  return harness
    .mutations(session_id)
    .flatMap((mutation) =>
      mutation.variant === "session" && mutation.type === "title" ? [mutation.title] : [],
    );
}

describe("session titles", () => {
  it("a session created without a title is untitled until its first prompt names it", async () => {
    const harness = new RuntimeHarness({
      model: createScriptedModel([[{ text: "one" }], [{ text: "two" }]]),
    });
    const session = await harness.createSession({ title: "" });
    expect((await session.info()).title).toBe("");
    const first = await session.prompt({ query: "Summarise the release notes\nwith links" });
    expect((await session.info()).title).toBe("Summarise the release notes…");
    await first.finished;
    const second = await session.prompt({ query: "And now the changelog" });
    await second.finished;
    expect((await session.info()).title).toBe("Summarise the release notes…");
    expect(titleMutations(harness, session.id)).toEqual(["Summarise the release notes…"]);
  });

  it("a retried prompt (same request_id) neither titles again nor publishes twice", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([[{ text: "one" }]]) });
    const session = await harness.createSession({ title: "" });
    const turn = await session.prompt({ query: "hello", request_id: "r1" });
    await session.prompt({ query: "hello", request_id: "r1" });
    await turn.finished;
    expect(titleMutations(harness, session.id)).toEqual(["hello"]);
  });

  it("rename trims, publishes the title and wins over every later prompt", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([[{ text: "one" }]]) });
    const session = await harness.createSession({ title: "" });
    const info = await session.rename("  Deploy plan ");
    expect(info.title).toBe("Deploy plan");
    const turn = await session.prompt({ query: "hello" });
    await turn.finished;
    expect((await session.info()).title).toBe("Deploy plan");
    expect(titleMutations(harness, session.id)).toEqual(["Deploy plan"]);
  });

  it("rename refuses a blank or over-long title (invalid_input) and a closed session (session_closed)", async () => {
    const harness = new RuntimeHarness({ model: createScriptedModel([]) });
    const session = await harness.createSession({ title: "" });
    await expect(session.rename("   ")).rejects.toMatchObject({ code: "invalid_input" });
    await expect(session.rename("x".repeat(201))).rejects.toMatchObject({ code: "invalid_input" });
    expect((await session.rename("y".repeat(200))).title).toBe("y".repeat(200));
    await session.close();
    await expect(session.rename("after close")).rejects.toMatchObject({ code: "session_closed" });
    expect((await session.info()).title).toBe("y".repeat(200));
  });
});
