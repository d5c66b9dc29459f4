import type { Page } from "@playwright/test";
import { seriousViolations } from "./support/axe";
import { createSession, expect, screenshot, sendPrompt, signedInContext, test } from "./support/fixtures";

function heading(page: Page) {
  return page.getByRole("heading", { level: 1 });
}

function selectedSidebarEntry(page: Page) {
  return page.locator('.session-item[aria-current="true"] .session-item-title');
}

/** Creates a session without a title through the sidebar; returns its id. */
async function createUntitled(page: Page): Promise<string> {
  await page.goto("/");
  await page.getByRole("button", { name: "Create" }).click();
  await expect(heading(page)).toHaveText("Untitled session");
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
  const session_id = new URL(page.url()).searchParams.get("session");
  if (!session_id) throw new Error(`no session id in ${page.url()}`);
  return session_id;
}

test.describe("session titles, search and close", () => {
  test("an untitled session is named by its first prompt; rename in place (Enter saves, Escape cancels) wins for good", async ({
    member,
  }) => {
    const { page } = member;
    await createUntitled(page);
    await expect(page.getByLabel("Message the agent")).toBeFocused();
    await sendPrompt(page, "Plan the spring offsite for the design team in Lisbon with a budget");
    await expect(heading(page)).toHaveText("Plan the spring offsite for the design team in Lisbon with a…");
    await expect(selectedSidebarEntry(page)).toHaveText(
      "Plan the spring offsite for the design team in Lisbon with a…",
    );

    // Enter saves; focus returns to the pencil.
    await page.getByRole("button", { name: "Rename session" }).click();
    const field = page.getByLabel("Session title");
    await expect(field).toBeFocused();
    await expect(field).toHaveValue("Plan the spring offsite for the design team in Lisbon with a…");
    await field.fill("  Offsite budget  ");
    await screenshot(page, "session-rename");
    await field.press("Enter");
    await expect(heading(page)).toHaveText("Offsite budget");
    await expect(page.getByRole("button", { name: "Rename session" })).toBeFocused();
    await expect(selectedSidebarEntry(page)).toHaveText("Offsite budget");

    // Escape cancels, from the keyboard only.
    await page.keyboard.press("Enter");
    await expect(field).toBeFocused();
    await page.keyboard.type("Throwaway");
    await page.keyboard.press("Escape");
    await expect(field).toHaveCount(0);
    await expect(heading(page)).toHaveText("Offsite budget");
    await expect(page.getByRole("button", { name: "Rename session" })).toBeFocused();

    // A blank title is refused in place; nothing is sent.
    await page.getByRole("button", { name: "Rename session" }).click();
    await field.fill("   ");
    await field.press("Enter");
    await expect(
      page.getByRole("alert").filter({ hasText: "A title needs at least one character." }),
    ).toBeVisible();
    await expect(field).toHaveAttribute("aria-invalid", "true");
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole("button", { name: "Cancel renaming" }).click();
    await expect(heading(page)).toHaveText("Offsite budget");

    // A later prompt never retitles a renamed session, also after a reload.
    await sendPrompt(page, "list files");
    await expect(page.locator(".assistant-text").last()).toBeVisible();
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");
    await page.reload();
    await expect(heading(page)).toHaveText("Offsite budget");
    await expect(selectedSidebarEntry(page)).toHaveText("Offsite budget");
  });

  test("the sidebar search asks the server and matches titles case-insensitively", async ({ member }) => {
    const { page } = member;
    for (const title of ["Zebra migration alpha", "Zebra migration beta", "Unrelated chores"]) {
      await createSession(page, title);
    }
    const search = page.getByRole("searchbox", { name: "Search sessions" });
    const titles = page.locator(".session-list .session-item-title");
    await search.fill("zebra MIGRATION");
    await expect(titles).toHaveText(["Zebra migration beta", "Zebra migration alpha"]);
    await screenshot(page, "session-search");
    await search.fill("no such session anywhere");
    await expect(page.getByText("No session matches")).toBeVisible();
    await expect(page.getByText('No title contains "no such session anywhere".')).toBeVisible();
    await search.fill("");
    await expect(titles.filter({ hasText: "Unrelated chores" })).toHaveCount(1);
    await expect(titles.filter({ hasText: "Zebra migration" })).toHaveCount(2);
  });

  test("close from the header: confirmed in a dialog, Keep open changes nothing, closing makes the session read-only", async ({
    member,
  }) => {
    const { page } = member;
    await createSession(page, "Finished errand");
    const close = page.getByRole("button", { name: "Close session" });
    await close.click();
    const dialog = page.getByRole("dialog", { name: "Close this session?" });
    await expect(dialog).toBeVisible();
    await dialog.getByRole("button", { name: "Keep open" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(close).toBeFocused();
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");

    await close.click();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "close-session-dialog");
    await dialog.getByRole("button", { name: "Close session" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(page.getByTestId("turn-state")).toHaveText("Closed");
    await expect(page.getByLabel("Message the agent")).toBeDisabled();
    await expect(page.getByRole("button", { name: "Rename session" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: "Close session" })).toHaveCount(0);
    expect(await page.evaluate(() => document.activeElement === document.body)).toBe(false);
    await expect(
      page.locator('.session-item[aria-current="true"] .session-item-meta', { hasText: "Closed" }),
    ).toBeVisible();
  });

  test("rename fits a phone screen in dark mode", async ({ browser, stack }) => {
    const context = await signedInContext(browser, stack.member_token, { width: 390, height: 844 });
    const page = await context.newPage();
    await page.emulateMedia({ colorScheme: "dark" });
    await createSession(page, "A rather long session title that has to fit on a phone screen");
    await page.getByRole("button", { name: "Rename session" }).click();
    await expect(page.getByLabel("Session title")).toBeFocused();
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, "session-rename-phone-dark");
    await page.getByLabel("Session title").fill("Short");
    await page.getByLabel("Session title").press("Enter");
    await expect(heading(page)).toHaveText("Short");
    await context.close();
  });
});
