import type { Locator, Page, WebSocketRoute } from "@playwright/test";
import { createSession, expect, openSession, screenshot, sendPrompt, test } from "./support/fixtures";

const textOf = async (locator: Locator) => (await locator.textContent()) ?? "";

/** The mutation a tRPC WebSocket message carries, if it carries one (`{ id, data }`, tracked). */
function mutationOf(message: string | Buffer): { variant?: string; type?: string } | null {
  try {
    const parsed = JSON.parse(String(message)) as { result?: { data?: { data?: unknown } } };
    const data = parsed.result?.data?.data;
    return typeof data === "object" && data !== null ? data : null;
  } catch {
    return null; // PONG and other control frames
  }
}

const isDelta = (message: string | Buffer) => mutationOf(message)?.variant === "delta";
const isTurnFinish = (message: string | Buffer) => {
  const mutation = mutationOf(message);
  return mutation?.variant === "turn" && mutation.type === "finish";
};

/**
 * Sits between the page and the API's WebSocket. Once `holdDeltas()` is called, the first text
 * delta the server sends and every result after it are held back, in order, and handed to the page
 * one delta at a time (`releaseDelta`); control frames (PONG) pass, so the client keeps the socket.
 * The demo model streams faster than a screen draws, so this is how the test sees each step of
 * the stream instead of racing it. `dropConnection` cuts the socket with whatever it still held:
 * those live mutations are lost for good, as on a real cut.
 */
async function streamGate(page: Page) {
  let holding = false;
  let held: (string | Buffer)[] = [];
  let current: { page: WebSocketRoute; server: WebSocketRoute } | null = null;
  await page.routeWebSocket(/\/trpc/, (socket) => {
    const server = socket.connectToServer();
    current = { page: socket, server };
    socket.onMessage((message) => server.send(message));
    server.onMessage((message) => {
      const result = String(message).startsWith("{");
      if (holding && result && (held.length > 0 || isDelta(message))) held.push(message);
      else socket.send(message);
    });
  });
  return {
    holdDeltas: () => {
      holding = true;
    },
    heldDeltas: () => held.filter(isDelta).length,
    /** True once the Turn's finish is held too: the whole stream is in hand. */
    heldTurnFinish: () => held.some(isTurnFinish),
    releaseDelta: () => {
      while (held.length > 0) {
        const message = held.shift() as string | Buffer;
        current?.page.send(message);
        if (isDelta(message)) return;
      }
    },
    dropConnection: async () => {
      holding = false;
      held = [];
      const cut = current;
      current = null;
      await cut?.server.close({ code: 4000, reason: "cut by the test" });
      await cut?.page.close({ code: 4000, reason: "cut by the test" });
    },
  };
}

test("a streamed reply grows in place, and after a reconnect shows exactly its persisted text, once", async ({
  member,
}) => {
  const { page, context } = member;
  const gate = await streamGate(page);
  const session_id = await createSession(page, "Streams live");
  gate.holdDeltas();
  // Anything the demo model does not understand gets its (long, many-delta) help text.
  await sendPrompt(page, "hello there");
  const agent = page.getByRole("article", { name: "Agent" });
  const reply = agent.locator(".assistant-text");
  await expect.poll(() => gate.heldTurnFinish()).toBe(true);
  const deltas = gate.heldDeltas();
  // Live deltas (§10.6): the demo's reply streams as many; a runtime that coalesced it into one
  // revision would fail here.
  expect(deltas).toBeGreaterThanOrEqual(3);

  // Each delta grows the text in place: three are stepped through.
  const steps = 3;
  const lengths: number[] = [];
  for (let step = 0; step < steps; step += 1) {
    const before = lengths.at(-1) ?? 0;
    gate.releaseDelta();
    await expect.poll(async () => (await textOf(reply)).length).toBeGreaterThan(before);
    lengths.push((await textOf(reply)).length);
    // Still the reply being written: its close (the final checkpoint) is held back.
    await expect(agent).toHaveAttribute("aria-busy", "true");
  }
  await expect(reply).toHaveCount(1);
  await screenshot(page, "live-streaming-mid-stream");

  // The connection drops with the rest of the stream still in flight: those live deltas are gone.
  await gate.dropConnection();
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
  await expect(agent).toHaveAttribute("aria-busy", "false");
  await expect(reply).toHaveCount(1);
  const shown = await textOf(reply);
  await screenshot(page, "live-streaming-after-reconnect");

  // What a fresh page loads is the persisted state alone: the reconnected view shows the same.
  const fresh = await context.newPage();
  await openSession(fresh, session_id);
  const persisted = fresh.getByRole("article", { name: "Agent" }).locator(".assistant-text");
  await expect(persisted).toHaveCount(1);
  expect(shown).toBe(await textOf(persisted));
  expect(shown.split("built-in demo model")).toHaveLength(2);
  // Seen while it was written: strictly growing, and short of the final text while deltas remained.
  expect(lengths).toEqual([...lengths].sort((a, b) => a - b));
  expect(new Set(lengths).size).toBe(steps);
  expect(lengths.at(-1)).toBeLessThanOrEqual(shown.length - (deltas > steps ? 1 : 0));
});
