import type { Locator, Page } from "@playwright/test";
import { seriousViolations } from "./support/axe";
import {
  createSession,
  expect,
  openSession,
  screenshot,
  sendPrompt,
  signedInContext,
  test,
  toolCard,
} from "./support/fixtures";

/** The newest shell tool card of the page. */
function lastShellCard(page: Page): Locator {
  return toolCard(page, "shell").last();
}

/** Sends `run <command>` and waits for its shell card to ask; returns the card's approval. */
async function runAsked(page: Page, command: string): Promise<Locator> {
  await sendPrompt(page, `run ${command}`);
  const card = lastShellCard(page);
  await expect(card).toContainText(command);
  const approval = card.getByTestId("interaction-card");
  await expect(approval).toHaveAttribute("data-status", "pending");
  return approval;
}

/** Approves the pending shell approval once and waits for the Turn to end. */
async function approveOnce(page: Page, approval: Locator): Promise<void> {
  await approval.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(lastShellCard(page)).toHaveAttribute("data-state", "completed");
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
}

test("allow shell for this session with an edited prefix: listed in the header, scoped, revoked there, live on a second client", async ({
  member,
}) => {
  // Five Turns, two clients: longer than one default test budget here.
  test.slow();
  const { page, context } = member;
  const session_id = await createSession(page, "Allowed commands");
  const header = page.locator(".session-header");
  await expect(header.getByTestId("tool-allowances")).toHaveCount(0);

  // The card proposes the first two words; the approver narrows it to three.
  const first = await runAsked(page, "echo alpha beta");
  const prefix = first.getByLabel("Allow commands starting with");
  await expect(prefix).toHaveValue("echo alpha");
  await prefix.fill("echo alpha beta");
  await first.getByRole("button", { name: "Allow shell for this session" }).click();
  await expect(lastShellCard(page)).toHaveAttribute("data-state", "completed");
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");

  const allowances = header.getByTestId("tool-allowance");
  await expect(allowances).toHaveCount(1);
  await expect(allowances).toHaveText("shell: commands starting with echo alpha beta");
  await expect(allowances).toHaveAttribute("data-state", "active");
  await expect(header.getByTestId("allowance-status")).toHaveText("");
  const revoke = header.getByRole("button", { name: "Revoke shell: echo alpha beta" });
  await expect(revoke).toBeVisible();
  await screenshot(page, "allowance-in-header");

  // A second client of the session sees the same list, and follows the first one's changes live.
  const other = await context.newPage();
  await openSession(other, session_id);
  const otherAllowances = other.locator(".session-header").getByTestId("tool-allowance");
  await expect(otherAllowances).toHaveText(["shell: commands starting with echo alpha beta"]);

  // A command with the allowed prefix runs unasked; one the default prefix would have allowed asks.
  await sendPrompt(page, "run echo alpha beta gamma");
  await expect(lastShellCard(page)).toContainText("echo alpha beta gamma");
  await expect(lastShellCard(page)).toHaveAttribute("data-state", "completed");
  await expect(lastShellCard(page).getByTestId("interaction-card")).toHaveCount(0);
  await expect(lastShellCard(page).getByTestId("auto-approved")).toHaveText(
    "auto-approved (allowed for this session)",
  );
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
  await approveOnce(page, await runAsked(page, "echo alpha gamma"));
  await expect(allowances).toHaveCount(1);
  expect(await seriousViolations(page)).toEqual([]);

  // Revoked in the header: configured at once, in effect until the next message's first step.
  await revoke.click();
  await expect(allowances).toHaveAttribute("data-state", "revoking");
  await expect(header.getByRole("button", { name: /^Revoke/ })).toHaveCount(0);
  await expect(header.getByTestId("allowance-status")).toHaveText("Changes apply from your next message");
  await expect(otherAllowances).toHaveAttribute("data-state", "revoking");
  await expect(page.locator(".allowance-list")).toBeFocused();
  await screenshot(page, "allowance-revoked-pending");

  // The same prefix asks again, and the list is gone in both clients once the revocation applies.
  const again = await runAsked(page, "echo alpha beta delta");
  await expect(header.getByTestId("tool-allowances")).toHaveCount(0);
  await expect(other.locator(".session-header").getByTestId("tool-allowances")).toHaveCount(0);
  await approveOnce(page, again);
  await other.close();
});

test("the allowance list fits a phone and reads in dark mode", async ({ browser, stack }) => {
  test.slow();
  const context = await signedInContext(browser, stack.member_token, { width: 390, height: 844 });
  const page = await context.newPage();
  await page.emulateMedia({ colorScheme: "dark" });
  await createSession(page, "Allowed on a phone");
  for (const [command, prefix] of [
    ["git status --short", "git status"],
    [
      "ls a-rather-long-directory-name-that-must-not-widen-the-header",
      "ls a-rather-long-directory-name-that-must-not-widen-the-header",
    ],
  ] as const) {
    const approval = await runAsked(page, command);
    await approval.getByLabel("Allow commands starting with").fill(prefix);
    await approval.getByRole("button", { name: "Allow shell for this session" }).click();
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");
  }
  const allowances = page.locator(".session-header").getByTestId("tool-allowance");
  await expect(allowances).toHaveCount(2);
  await expect(allowances.first()).toHaveAttribute("data-state", "active");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBe(0);
  await screenshot(page, "allowance-phone-dark");
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1280, height: 860 });
  await screenshot(page, "allowance-desktop-light-two");
  await context.close();
});
