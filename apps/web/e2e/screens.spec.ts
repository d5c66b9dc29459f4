import type { Browser, Page } from "@playwright/test";
import { seriousViolations } from "./support/axe";
import {
  createSession,
  expect,
  putWorkspaceFile,
  screenshot,
  sendPrompt,
  test,
  toolCard,
} from "./support/fixtures";

// The main screens at a laptop and a phone width, light and dark: the set a person reviews before
// a release. Each must fit its width and pass axe without a serious or critical violation.

const SIZES = [
  { name: "wide", viewport: { width: 1280, height: 860 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;
const SCHEMES = ["light", "dark"] as const;

async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

async function pageFor(
  browser: Browser,
  token: string,
  viewport: { width: number; height: number },
  colorScheme: "light" | "dark",
) {
  const context = await browser.newContext({ viewport, colorScheme });
  await context.addInitScript((value) => window.localStorage.setItem("parley.token", value), token);
  return { context, page: await context.newPage() };
}

for (const size of SIZES) {
  for (const scheme of SCHEMES) {
    const variant = `${size.name}-${scheme}`;
    test(`the main screens at ${size.viewport.width} px, ${scheme}: they fit and pass axe`, async ({
      browser,
      stack,
    }) => {
      const member = await pageFor(browser, stack.member_token, size.viewport, scheme);
      const admin = await pageFor(browser, stack.admin_token, size.viewport, scheme);
      const { page } = member;
      const title = `Release notes review (${variant})`;
      const session_id = await createSession(page, title);
      putWorkspaceFile(stack, session_id, "notes.md", "# Notes\n\n- first point\n- second point\n");
      await sendPrompt(page, "hello");
      await expect(page.locator(".assistant-text").last().locator("li")).toHaveCount(5);
      await sendPrompt(page, "write notes.md: # Notes\n\n- first point\n- a better second point\n");
      const card = toolCard(page, "write_file").last().getByTestId("interaction-card");
      await expect(card).toHaveAttribute("data-status", "pending");
      expect(await sidewaysOverflow(page)).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `screen-session-${variant}`);

      await admin.page.goto("/admin");
      const row = admin.page.getByTestId("inbox-row").filter({ hasText: title });
      await expect(row).toBeVisible();
      expect(await sidewaysOverflow(admin.page)).toBe(0);
      expect(await seriousViolations(admin.page)).toEqual([]);
      await screenshot(admin.page, `screen-inbox-${variant}`);

      // Answered, so that nothing of this test waits in the inbox of the tests after it.
      await card.getByRole("button", { name: "Approve", exact: true }).click();
      await expect(card).toHaveAttribute("data-status", "resolved");
      await expect(page.getByTestId("turn-state")).toHaveText("Idle");

      await page.goto("/");
      await expect(page.locator(".session-item-title", { hasText: title })).toBeVisible();
      expect(await sidewaysOverflow(page)).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, `screen-sessions-${variant}`);
      await member.context.close();
      await admin.context.close();
    });
  }
}
