import { expect, test } from "./support/fixtures";
import { LOCAL_WEB_PORT } from "./support/ports";
import { startWeb, stopServer } from "./support/stack";

test("with a local token the app signs in by itself, and signing out sticks", async ({ browser, stack }) => {
  const url = await startWeb(stack, {
    name: "web-local",
    port: LOCAL_WEB_PORT,
    local_token: stack.admin_token,
  });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(url);
    await expect(page.getByText("Ada Admin")).toBeVisible();
    await expect(page.getByRole("link", { name: "Inbox" })).toBeVisible();

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto(url);
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByLabel("Access token")).toBeVisible();

    await page.getByRole("button", { name: "Sign in with this server's local admin token" }).click();
    await expect(page.getByText("Ada Admin")).toBeVisible();
  } finally {
    await context.close();
    await stopServer(stack.state_dir, "web-local");
  }
});
