import { expect, signedInContext, test } from "./support/fixtures";
import type { StackEnv } from "./support/stack";

/** One tRPC mutation over HTTP, as any client would send it; returns `result.data`. */
async function mutate<T>(stack: StackEnv, token: string, path: string, input: unknown): Promise<T> {
  const response = await fetch(`${stack.api_url}/trpc/${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  const body = (await response.json()) as { result?: { data: T }; error?: unknown };
  if (!response.ok || body.result === undefined) throw new Error(`${path} failed: ${JSON.stringify(body)}`);
  return body.result.data;
}

/** More than one sidebar page (the web app asks for 50 sessions a page). */
const SESSION_COUNT = 53;

test.describe("session list paging", () => {
  test("the sidebar shows the first page, loads the rest on request and says when all are shown", async ({
    browser,
    stack,
  }) => {
    const user = await mutate<{ token: string }>(stack, stack.admin_token, "admin.users.create", {
      name: `pager-${Date.now()}`,
    });
    for (let index = 1; index <= SESSION_COUNT; index += 1) {
      await mutate(stack, user.token, "session.create", { title: `Paged session ${index}` });
    }
    const context = await signedInContext(browser, user.token);
    const page = await context.newPage();
    await page.goto("/");

    const sidebar = page.getByRole("complementary", { name: "Sessions" });
    const titles = sidebar.locator(".session-item-title");
    const footer = sidebar.getByTestId("session-list-footer");
    await expect(titles).toHaveCount(50);
    await expect(footer.getByRole("button", { name: "Load more sessions" })).toBeVisible();

    await footer.getByRole("button", { name: "Load more sessions" }).click();
    await expect(titles).toHaveCount(SESSION_COUNT);
    await expect(footer).toHaveText(`${SESSION_COUNT} sessions, all shown`);
    await expect(footer.getByRole("button")).toHaveCount(0);

    // Every session once across the page boundary (sessions created in the same millisecond may
    // come in either order, so the check is on the set).
    const shown = await titles.allTextContents();
    expect([...shown].sort()).toEqual(
      Array.from({ length: SESSION_COUNT }, (_, index) => `Paged session ${index + 1}`).sort(),
    );
    await context.close();
  });
});
