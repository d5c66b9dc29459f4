import type { ParleySession } from "@parley/sdk";
import type { AssistantMessage, ToolPart } from "@parley/session-core";

/** What the `shell` tool part holds once it completed (`ShellRunResult` of `@parley/tools`). */
export type ShellOutput = {
  exit_code: number | null;
  stdout: string;
  stderr: string;
  timed_out: boolean;
  note?: string;
};

/**
 * Runs `command` through the demo model's "run …" in a fresh always-allow session of `client`
 * (optionally in a named workspace), and returns the session with the shell tool's output.
 */
export async function runShellThroughDemoModel(
  client: {
    sessions: {
      create(input: { approval_mode: "always-allow"; workspace_id?: string }): Promise<ParleySession>;
    };
  },
  command: string,
  workspace_id?: string,
): Promise<{ session: ParleySession; output: ShellOutput }> {
  const session = await client.sessions.create({
    approval_mode: "always-allow",
    ...(workspace_id === undefined ? {} : { workspace_id }),
  });
  const { turn_id } = await session.prompt(`run ${command}`);
  return { session, output: await shellOutputOf(session, turn_id) };
}

/** The shell tool part's output once it completed (polled: the Turn runs in the API process). */
async function shellOutputOf(session: ParleySession, turn_id: string): Promise<ShellOutput> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const page = await session.messages({ limit: 100 });
    const tool = page.items
      .filter(
        (message): message is AssistantMessage => message.type === "assistant" && message.turn_id === turn_id,
      )
      .flatMap((message) => message.parts)
      .find((part): part is ToolPart => part.type === "tool" && part.tool_name === "shell");
    if (tool?.state === "completed") return tool.output as ShellOutput;
    if (tool?.state === "failed") throw new Error(`shell failed: ${tool.error}`);
    if (Date.now() > deadline) throw new Error(`shell did not complete: ${JSON.stringify(page.items)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
