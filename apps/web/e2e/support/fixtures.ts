import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  type Browser,
  type BrowserContext,
  test as base,
  expect,
  type Locator,
  type Page,
} from "@playwright/test";
import { readStackEnv, type StackEnv } from "./stack";

export { expect };

export const SCREENSHOT_DIR = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "screenshots");

/** A browser context already signed in with `token` (the app reads it from localStorage). */
export async function signedInContext(
  browser: Browser,
  token: string,
  viewport?: { width: number; height: number },
) {
  const context = await browser.newContext(viewport ? { viewport } : {});
  await context.addInitScript((value) => {
    window.localStorage.setItem("parley.token", value);
  }, token);
  return context;
}

/** Collects uncaught page errors and console errors, to assert a screen ran cleanly. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(`console: ${message.text()}`);
  });
  return errors;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}.png`), fullPage: false });
}

/** The number in the tab title ("(3) Parley"), 0 when there is none. */
export async function titleCount(page: Page): Promise<number> {
  const match = /^\((\d+)\)/.exec(await page.title());
  return match?.[1] === undefined ? 0 : Number(match[1]);
}

/** Creates a session through the sidebar and returns its id (from the URL). */
export async function createSession(page: Page, title: string): Promise<string> {
  await page.goto("/");
  await page.getByLabel("New session").fill(title);
  await page.getByRole("button", { name: "Create" }).click();
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  const session_id = new URL(page.url()).searchParams.get("session");
  if (!session_id) throw new Error(`no session id in ${page.url()}`);
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
  return session_id;
}

export async function openSession(page: Page, session_id: string): Promise<void> {
  await page.goto(`/?session=${encodeURIComponent(session_id)}`);
  await expect(page.getByTestId("turn-state")).toBeVisible();
}

export async function sendPrompt(page: Page, text: string): Promise<void> {
  const box = page.getByLabel("Message the agent");
  await box.fill(text);
  await box.press("Enter");
  await expect(box).toHaveValue("");
}

/** Puts a file into the session's workspace directory, as if it had been there all along. */
export function putWorkspaceFile(stack: StackEnv, session_id: string, name: string, content: string): string {
  const directory = path.join(stack.workspace_root, session_id);
  mkdirSync(directory, { recursive: true });
  const file = path.join(directory, name);
  writeFileSync(file, content);
  return file;
}

export function toolCard(page: Page, tool_name: string): Locator {
  return page.getByTestId("tool-card").filter({ has: page.locator(".tool-name", { hasText: tool_name }) });
}

export const test = base.extend<{
  stack: StackEnv;
  member: { context: BrowserContext; page: Page };
  admin: { context: BrowserContext; page: Page };
}>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
  stack: async ({}, use) => {
    await use(readStackEnv());
  },
  member: async ({ browser, stack }, use) => {
    const context = await signedInContext(browser, stack.member_token);
    await use({ context, page: await context.newPage() });
    await context.close();
  },
  admin: async ({ browser, stack }, use) => {
    const context = await signedInContext(browser, stack.admin_token);
    await use({ context, page: await context.newPage() });
    await context.close();
  },
});
