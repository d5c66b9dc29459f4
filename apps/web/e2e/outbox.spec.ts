import { createSession, expect, screenshot, sendPrompt, test } from "./support/fixtures";
import { startApi, stopServer } from "./support/stack";

/** The person's messages the server has not accepted yet (`OutboxList`). */
test.describe("messages not sent yet", () => {
  test("written while the API is down, a message is held, can be cancelled, and is sent once when it is back", async ({
    member,
    stack,
  }) => {
    const { page } = member;
    await createSession(page, "Held while down");
    await stopServer(stack.state_dir, "api");
    await expect(page.getByTestId("turn-state")).toHaveText("Offline");

    await sendPrompt(page, "hello while the server is away");
    await sendPrompt(page, "never mind this one");
    const outbox = page.getByRole("list", { name: "Messages not sent yet" });
    const held = outbox.getByTestId("outbox-message");
    await expect(held).toHaveCount(2);
    await expect(held.getByTestId("outbox-status")).toHaveText([
      "Not sent yet — sends when the connection is back",
      "Not sent yet — sends when the connection is back",
    ]);
    await held.filter({ hasText: "never mind this one" }).getByRole("button", { name: "Cancel" }).click();
    await expect(held).toHaveCount(1);
    await screenshot(page, "outbox-held");

    await startApi(stack);
    await expect(outbox).toHaveCount(0);
    const sent = page.getByRole("article", { name: "You" });
    await expect(sent).toHaveCount(1);
    await expect(sent).toContainText("hello while the server is away");
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");
    await expect(page.getByText("never mind this one")).toHaveCount(0);
  });

  test("a message whose sending failed says so, and Retry sends it once", async ({ member }) => {
    const { page } = member;
    await createSession(page, "Retried");
    let failing = true;
    await page.route(
      (url) => url.pathname.includes("session.prompt"),
      (route) => (failing ? route.abort("failed") : route.continue()),
    );

    await sendPrompt(page, "hello after a failure");
    const item = page.getByTestId("outbox-message");
    await expect(item.getByRole("alert")).toHaveText(
      "Not sent: The server could not be reached. Check the connection and try again.",
    );
    await expect(item.getByRole("button", { name: "Retry" })).toBeVisible();
    await screenshot(page, "outbox-failed");

    failing = false;
    await item.getByRole("button", { name: "Retry" }).click();
    await expect(item).toHaveCount(0);
    const sent = page.getByRole("article", { name: "You" });
    await expect(sent).toHaveCount(1);
    await expect(sent).toContainText("hello after a failure");
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");
  });
});
