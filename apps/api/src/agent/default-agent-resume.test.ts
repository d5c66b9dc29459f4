import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Session, TurnHandle } from "@parley/session-core";
import { RuntimeHarness } from "@parley/session-core/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDemoModel } from "../models/demo-model.js";
import { createDefaultAgent } from "./create-default-agent.js";
import { approvalResponse, nextPendingInteraction, toolPartsOf } from "./testing/agent-test-runtime.js";

let base: string;
let root: string;
let harness: RuntimeHarness;

beforeEach(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "parley-resume-")));
  root = path.join(base, "workspace");
  await mkdir(root);
  await writeFile(path.join(root, "notes.txt"), "remember the milk");
  harness = new RuntimeHarness({
    model: createDemoModel(),
    agents: [createDefaultAgent({ model: createDemoModel() })],
    workspace: { workspace_id: null, root },
  });
});

afterEach(async () => {
  await harness.shutdown();
  await rm(base, { recursive: true, force: true });
});

/**
 * Process A asks for approval of `query`'s tool call, then dies; the answer on process B resumes the
 * Turn. A waiting Turn is rows only (DESIGN §10.7): B's recovery finds nothing to drive, and the
 * instance that commits the answer resumes it.
 */
async function askThenDie(
  query: string,
): Promise<{ survivor: Session; turn: TurnHandle; interaction_id: string }> {
  const session = await harness.createSession({ agent_id: "default" });
  const turn = await session.prompt({ query });
  const { interaction_id } = await nextPendingInteraction(session, turn);
  harness.sever("A");
  const b = harness.runtime("B");
  expect(await b.recover()).toEqual({ resumed_session_ids: [] });
  const survivor = await b.openSession(session.id);
  if (survivor === null) throw new Error("the session is gone");
  return { survivor, turn, interaction_id };
}

/** The last text of the Turn, once its last assistant message is closed. */
async function finalText(session: Session, turn_id: string): Promise<string> {
  for (;;) {
    const messages = (await session.messages()).items;
    const done = messages.filter(
      (message) =>
        message.type === "assistant" && message.turn_id === turn_id && message.status !== "streaming",
    );
    const last = done.at(-1);
    if (last?.type === "assistant" && messages.at(-1) === last) {
      const texts = last.parts.flatMap((part) => (part.type === "text" ? [part.text] : []));
      return texts.at(-1) ?? "";
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("durable resume: a tool waiting for approval when its process died", () => {
  it("delete_file runs again on the survivor, attaches to the same approval, deletes exactly once", async () => {
    const { survivor, turn, interaction_id } = await askThenDie("delete notes.txt");
    expect((await survivor.interactions()).map((request) => request.interaction_id)).toEqual([
      interaction_id,
    ]);
    expect(await readFile(path.join(root, "notes.txt"), "utf8")).toBe("remember the milk");

    await survivor.respond({ interaction_id, response: approvalResponse("approved") });
    expect(await finalText(survivor, turn.id)).toBe("Done: I deleted notes.txt.");
    const tools = await toolPartsOf(survivor, turn.id);
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({
      state: "completed",
      output: { success: true, deleted: "notes.txt" },
      interactions: [{ interaction_id, status: "resolved" }],
    });
    expect(await readFile(path.join(root, "notes.txt")).catch(() => "deleted")).toBe("deleted");
  });

  it("a denial answered on the survivor leaves the file alone", async () => {
    const { survivor, turn, interaction_id } = await askThenDie("write notes.txt: overwritten");
    await survivor.respond({ interaction_id, response: approvalResponse("denied") });
    expect(await finalText(survivor, turn.id)).toBe(
      "You denied the approval, so I did not write notes.txt. Nothing was changed.",
    );
    expect(await readFile(path.join(root, "notes.txt"), "utf8")).toBe("remember the milk");
  });
});
