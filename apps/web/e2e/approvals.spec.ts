import { existsSync } from "node:fs";
import type { Page, Route } from "@playwright/test";
import {
  collectPageErrors,
  createSession,
  expect,
  putWorkspaceFile,
  screenshot,
  sendPrompt,
  test,
  toolCard,
} from "./support/fixtures";

/** A session's entry in the sidebar list. */
function sidebarEntry(page: Page, title: string) {
  return page
    .getByRole("complementary", { name: "Sessions" })
    .locator(".session-item")
    .filter({ has: page.locator(".session-item-title", { hasText: title }) });
}

/**
 * Holds every session-list read from now on (a list endpoint that answers late), so the sidebar can
 * only change through the live feed: no poll or re-read can bring it in step. Returns the release.
 */
async function holdSessionList(page: Page): Promise<() => Promise<void>> {
  const held: Route[] = [];
  const matches = (url: URL) => url.pathname.includes("session.list");
  await page.route(matches, (route) => {
    held.push(route);
  });
  return async () => {
    await page.unroute(matches);
    for (const route of held) await route.continue().catch(() => undefined);
  };
}

test.describe("approvals", () => {
  test("approving a delete shows the real call, then runs it once the server says so", async ({
    member,
    stack,
  }) => {
    const { page } = member;
    const errors = collectPageErrors(page);
    const session_id = await createSession(page, "Tidy the workspace");
    const file = putWorkspaceFile(stack, session_id, "notes.txt", "old notes\n");

    await sendPrompt(page, "delete notes.txt");
    const tool = toolCard(page, "delete_file");
    await expect(tool).toHaveAttribute("data-state", "waiting-user");
    const card = tool.getByTestId("interaction-card");
    await expect(card).toHaveAttribute("data-status", "pending");
    // the tool is named once, in the tool card's header; the card shows the effect: path and size
    await expect(card.getByRole("heading", { name: "Approval needed" })).toBeVisible();
    await expect(tool.locator(".tool-name")).toHaveText("delete_file");
    await expect(card.getByTestId("approval-effect")).toContainText("notes.txt");
    await expect(card.getByTestId("delete-effect")).toHaveText("deletes 10 bytes");
    await expect(page.getByTestId("pending-count")).toHaveText("1 waiting for an answer");
    await expect(page.getByRole("button", { name: "Stop" })).toBeVisible();
    // screen readers hear about the new request
    await expect(page.locator(".session-view [aria-live=polite].sr-only")).toHaveText(
      "Approval needed for delete_file.",
    );
    await screenshot(page, "approval-pending");

    // an answered card folds to one line saying who decided
    await card.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(card).toHaveAttribute("data-status", "resolved");
    await expect(card.getByTestId("interaction-outcome-line")).toHaveText("Approved by you");
    await expect(card.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);

    await expect(tool).toHaveAttribute("data-state", "completed");
    await expect(page.getByText("Done: I deleted notes.txt.")).toBeVisible();
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");
    await expect(page.getByRole("button", { name: "Stop", exact: true })).toHaveCount(0);
    await expect(page.getByTestId("pending-count")).toHaveCount(0);
    expect(existsSync(file)).toBe(false);
    await screenshot(page, "approval-completed");
    expect(errors).toEqual([]);
  });

  test("denying a delete fails the tool and leaves the file alone", async ({ member, stack }) => {
    const { page } = member;
    const session_id = await createSession(page, "Keep my notes");
    const file = putWorkspaceFile(stack, session_id, "notes.txt", "keep me\n");
    const entry = sidebarEntry(page, "Keep my notes");
    const entryState = entry.locator(".session-item-meta");
    await expect(entryState).toHaveText(/^Idle·/);
    const releaseList = await holdSessionList(page);

    await sendPrompt(page, "delete notes.txt");
    const tool = toolCard(page, "delete_file");
    const card = tool.getByTestId("interaction-card");
    await expect(card).toHaveAttribute("data-status", "pending");
    await expect(page.getByTestId("pending-count")).toHaveText("1 waiting for an answer");
    // the open session's sidebar entry follows the live feed: running, one waiting
    await expect(entryState).toHaveText(/^Running·/);
    await expect(entry.locator(".badge .sr-only")).toHaveText("1 waiting for an answer");
    await card.getByRole("button", { name: "Deny…" }).click();
    await card.getByRole("button", { name: "Deny", exact: true }).click();

    await expect(card).toHaveAttribute("data-status", "denied");
    await expect(card.getByTestId("interaction-outcome-line")).toHaveText("Denied by you");
    await expect(tool).toHaveAttribute("data-state", "failed");
    // a person's decision reads as one, not as a failure
    await expect(tool.getByTestId("tool-state")).toHaveText("Denied");
    await expect(page.getByText(/You denied the approval.*Nothing was changed\./)).toBeVisible();
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");
    // ... and back to idle with nothing waiting, without a list read
    await expect(entryState).toHaveText(/^Idle·/);
    await expect(entry.locator(".badge")).toHaveCount(0);
    await releaseList();
    expect(existsSync(file)).toBe(true);
    await screenshot(page, "approval-denied");
  });

  test("stopping the turn cancels the pending approval and disables its card", async ({ member, stack }) => {
    const { page } = member;
    const session_id = await createSession(page, "Changed my mind");
    const file = putWorkspaceFile(stack, session_id, "notes.txt", "still here\n");
    await sendPrompt(page, "delete notes.txt");
    const tool = toolCard(page, "delete_file");
    const card = tool.getByTestId("interaction-card");
    await expect(card).toHaveAttribute("data-status", "pending");

    await page.getByRole("button", { name: "Stop" }).click();
    await expect(card).toHaveAttribute("data-status", "cancelled");
    await expect(card.getByTestId("interaction-outcome-line")).toHaveText("Cancelled: the turn was stopped");
    await expect(card.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
    await expect(tool).toHaveAttribute("data-state", "failed");
    await expect(tool.getByTestId("tool-state")).toHaveText("Cancelled");
    // the Stop button is gone; focus went to the composer, not to <body>
    await expect(page.getByLabel("Message the agent")).toBeFocused();
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");
    await expect(page.getByRole("button", { name: "Stop", exact: true })).toHaveCount(0);
    expect(existsSync(file)).toBe(true);
  });

  test("a shell approval shows the exact command and where it runs", async ({ member, stack }) => {
    const { page } = member;
    await createSession(page, "Look around");
    await sendPrompt(page, "run echo hello from parley");
    const tool = toolCard(page, "shell");
    const card = tool.getByTestId("interaction-card");
    await expect(card).toHaveAttribute("data-status", "pending");
    await expect(card.getByTestId("approval-command")).toHaveText("$ echo hello from parley");
    await expect(card.getByTestId("approval-cwd")).toContainText(
      `Runs in session workspace · ${stack.workspace_root}`,
    );
    await screenshot(page, "shell-approval");

    await card.getByRole("button", { name: "Approve", exact: true }).click();
    await expect(tool).toHaveAttribute("data-state", "completed");
    await tool.getByText("Output", { exact: true }).click();
    await expect(tool.locator("details", { hasText: "Output" }).locator("pre")).toContainText(
      "hello from parley",
    );
  });
});
