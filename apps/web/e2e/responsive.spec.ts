import type { Route } from "@playwright/test";
import {
  createSession,
  expect,
  putWorkspaceFile,
  screenshot,
  sendPrompt,
  signedInContext,
  test,
  toolCard,
} from "./support/fixtures";

test("the workspace works on a 390 px wide phone screen", async ({ browser, stack }) => {
  const context = await signedInContext(browser, stack.member_token, { width: 390, height: 844 });
  const page = await context.newPage();
  const session_id = await createSession(page, "On the go");
  putWorkspaceFile(stack, session_id, "list.txt", "x\n");
  await sendPrompt(page, "delete list.txt");
  const card = toolCard(page, "delete_file").getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, "mobile-approval");
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBe(0);

  // The (hidden) sidebar has read the running session; from here on list reads answer late, so
  // only what the session view saw live can bring the entry up to date.
  const entry = page.locator(".session-item").filter({ hasText: "On the go" });
  await expect(entry.locator(".session-item-meta")).toHaveText(/^Running·/);
  const heldList = (url: URL) => url.pathname.includes("session.list");
  const held: Route[] = [];
  await page.route(heldList, (route) => {
    held.push(route);
  });

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(toolCard(page, "delete_file")).toHaveAttribute("data-state", "completed");
  // the tool completes before the Turn's last step does: the view must have seen the Turn end live
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");

  // icon-only controls keep their names for assistive technology
  await expect(page.getByRole("button", { name: "Sign out" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Sessions" })).toBeVisible();

  await page.getByRole("button", { name: "Back to sessions" }).click();
  await expect(page.getByRole("button", { name: /On the go/ })).toBeVisible();
  // the list shows the state the session view last saw live, not the older read
  await expect(entry.locator(".session-item-meta")).toHaveText(/^Idle·/);
  await expect(entry.locator(".badge")).toHaveCount(0);
  await page.unroute(heldList);
  for (const route of held) await route.continue().catch(() => undefined);
  await screenshot(page, "mobile-sessions");
  await context.close();
});
