import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type E2eEnvironment,
  isToolState,
  isTurnFinish,
  MutationRecorder,
  type NodeRun,
  REPO_ROOT,
  runNode,
  startE2eEnvironment,
} from "../testing/index.js";

const EXAMPLES = path.join(REPO_ROOT, "packages/sdk/examples");
const EXAMPLE = path.join(EXAMPLES, "approve-pending.mjs");

/** Runs the example as a user would, resolving `@parley/sdk` from its sources (no build needed). */
function runExample(env: Record<string, string>, script = EXAMPLE, args: string[] = []): Promise<NodeRun> {
  return runNode(["--conditions=parley-source", "--import", "tsx", script, ...args], env);
}

describe("the README's plain Node script (packages/sdk/examples/approve-pending.mjs)", () => {
  let environment: E2eEnvironment;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("approves the pending approval from another process and the Turn resumes", async () => {
    const erin = await environment.createMember("erin");
    const session = await erin.client().sessions.create({ title: "cleanup" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt("write report.txt: done");
    await feed.waitFor(isToolState("waiting-user"));

    const run = await runExample({ PARLEY_URL: environment.api.url, PARLEY_TOKEN: environment.admin.token });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout.trim().split("\n")).toEqual([
      'approved write_file in "cleanup" (erin): resolved',
      "1 pending approval(s) handled",
    ]);

    expect(await feed.waitFor(isTurnFinish)).toMatchObject({ status: "completed" });
    expect(await session.interactions()).toEqual([]);
    feed.stop();
  });

  it("run-with-policy.mjs approves a write under tmp/ and denies a delete outside it, printing each Turn's result", async () => {
    const frank = await environment.createMember("frank");
    const env = { PARLEY_URL: environment.api.url, PARLEY_TOKEN: frank.token };
    const script = path.join(EXAMPLES, "run-with-policy.mjs");

    const write = await runExample(env, script, ["write tmp/notes.txt: hello"]);
    expect(write.stderr).toBe("");
    expect(write.code).toBe(0);
    expect(write.stdout.trim().split("\n")).toEqual([
      "policy: approve write_file tmp/notes.txt",
      "turn completed: Done: I wrote 5 bytes to tmp/notes.txt (a new file).",
    ]);

    const remove = await runExample(env, script, ["delete notes.txt"]);
    expect(remove.stderr).toBe("");
    expect(remove.code).toBe(0);
    expect(remove.stdout.trim().split("\n")).toEqual([
      "policy: deny delete_file (notes.txt is outside tmp/)",
      // The policy's reason reaches the model, which repeats it (docs/behaviour.md#approvals).
      'turn completed: You denied the approval, so I did not delete notes.txt. Nothing was changed. Your reason: "notes.txt is outside tmp/" — I\'ll take that into account.',
    ]);
  });
});
