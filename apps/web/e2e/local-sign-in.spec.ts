import { randomBytes } from "node:crypto";
import { assetsOf, curl, fetchEveryPage } from "./support/fetch-everything";
import { expect, test } from "./support/fixtures";
import { LOCAL_WEB_PORT } from "./support/ports";
import { localSignInUrl, type StackEnv, startWeb, stopServer } from "./support/stack";

/** A web server as `npm start` runs it: the local admin token and a fresh one-time link code. */
async function startLocalWeb(stack: StackEnv): Promise<{ url: string; code: string }> {
  const code = randomBytes(18).toString("base64url");
  const url = await startWeb(stack, {
    name: "web-local",
    port: LOCAL_WEB_PORT,
    local: { token: stack.admin_token, code },
  });
  return { url, code };
}

const LOCAL_BUTTON = "Sign in with this server's local admin token";

test.describe("local sign-in (npm start's one-time link)", () => {
  test.afterEach(async ({ stack }) => {
    await stopServer(stack.state_dir, "web-local");
  });

  test("no page of the web app or the API gives a token to a process that fetches it, whatever its Host", async ({
    stack,
  }) => {
    const { url, code } = await startLocalWeb(stack);
    const answers = fetchEveryPage(url, stack.api_url);
    // The probe reached real pages: the app's HTML and scripts, the API's answers.
    const assets = assetsOf(answers[0]?.raw ?? "");
    expect(assets.length).toBeGreaterThan(3);
    // 4 Host headers × (7 pages, with and without proxy headers, + 4 exchanges) + the assets + 6 API paths.
    expect(answers.length).toBe(4 * (7 * 2 + 4) + assets.length + 6);
    expect(answers.filter((answer) => answer.status === 200 && answer.raw.includes("<html")).length).toBe(
      4 * 4 * 2,
    );
    const leaks = answers.filter(
      (answer) => answer.raw.includes(stack.admin_token) || answer.raw.includes(code),
    );
    expect(leaks.map((answer) => answer.request)).toEqual([]);
    // The exchange answers nobody without the cookie; a wrong code is refused.
    const exchange = curl(`${url}/local-session/token`, {
      method: "POST",
      headers: { "x-parley-local-session": "1" },
    });
    expect(exchange.status).toBe(200);
    expect(exchange.raw).toContain('{"token":null}');
    expect(curl(`${url}/local-sign-in?code=guess`).status).toBe(403);
  });

  test("the link signs one browser in, once, with an HttpOnly SameSite=Strict cookie; a second use fails", async ({
    browser,
    stack,
  }) => {
    const { url, code } = await startLocalWeb(stack);
    const first = await browser.newContext();
    const second = await browser.newContext();
    try {
      const page = await first.newPage();
      await page.goto(localSignInUrl(url, code));
      await expect(page).toHaveURL(`${url}/`);
      await expect(page.getByText("Ada Admin")).toBeVisible();
      const cookies = await first.cookies(url);
      expect(cookies.map(({ name, httpOnly, sameSite }) => ({ name, httpOnly, sameSite }))).toEqual([
        { name: "parley_local_session", httpOnly: true, sameSite: "Strict" },
      ]);
      expect(await page.evaluate(() => window.localStorage.getItem("parley.token"))).toBeNull();
      expect(await page.evaluate(() => document.cookie)).toBe("");
      expect(await page.content()).not.toContain(stack.admin_token);
      await page.reload();
      await expect(page.getByText("Ada Admin")).toBeVisible();

      // The same link again, from another browser: refused, and it is not signed in.
      const other = await second.newPage();
      const again = await other.goto(localSignInUrl(url, code));
      expect(again?.status()).toBe(403);
      await expect(
        other.getByRole("heading", { name: "This sign-in link was already used or is not valid" }),
      ).toBeVisible();
      await other.goto(url);
      await expect(other).toHaveURL(/\/sign-in$/);
      await other.getByRole("button", { name: LOCAL_BUTTON }).click();
      await expect(other.locator("form").getByRole("alert")).toContainText("has not opened the sign-in link");
      expect(await second.cookies(url)).toEqual([]);

      // Signing out sticks across loads; the cookie signs this browser back in on request.
      await page.getByRole("button", { name: "Sign out" }).click();
      await expect(page).toHaveURL(/\/sign-in$/);
      await page.goto(url);
      await expect(page).toHaveURL(/\/sign-in$/);
      await expect(page.getByLabel("Access token")).toBeVisible();
      await page.getByRole("button", { name: LOCAL_BUTTON }).click();
      await expect(page.getByText("Ada Admin")).toBeVisible();
    } finally {
      await first.close();
      await second.close();
    }
  });
});
