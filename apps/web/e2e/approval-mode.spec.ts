import { createSession, expect, screenshot, sendPrompt, test, toolCard } from "./support/fixtures";

test("always-allow needs confirmation and shows the pending change until the next step", async ({
  member,
}) => {
  const { page } = member;
  await createSession(page, "Trusted scripts");
  const modes = page.getByRole("group", { name: "Approvals" });
  await expect(modes.getByRole("radio", { name: "Ask first" })).toBeChecked();
  await expect(page.getByTestId("mode-status")).toHaveText("In effect: Ask first");

  // the keyboard reaches the choice too (radio group: arrow keys), and the confirmation still guards it
  await modes.getByRole("radio", { name: "Ask first" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(page.getByRole("dialog", { name: "Allow every tool call without asking?" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(modes.getByRole("radio", { name: "Ask first" })).toBeChecked();

  // cancelling the confirmation changes nothing
  await modes.getByText("Always allow").click();
  const dialog = page.getByRole("dialog", { name: "Allow every tool call without asking?" });
  await expect(dialog).toBeVisible();
  await screenshot(page, "always-allow-confirm");
  await dialog.getByRole("button", { name: "Keep asking" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(modes.getByRole("radio", { name: "Ask first" })).toBeChecked();

  await modes.getByText("Always allow").click();
  await page.getByRole("dialog").getByRole("button", { name: "Always allow" }).click();
  await expect(modes.getByRole("radio", { name: "Always allow" })).toBeChecked();
  // idle: nothing runs under the old mode, so no "pending" badge: it applies from the next message
  await expect(page.getByTestId("mode-idle-change")).toHaveText(
    "Always allow · applies from your next message",
  );
  await expect(page.getByTestId("mode-status").getByText("Pending", { exact: true })).toHaveCount(0);
  // the group is as wide as its buttons (no empty area beside them, even with a longer status line)
  const slack = await modes.evaluate((group) => {
    const segments = group.querySelectorAll(".segment");
    const last = segments[segments.length - 1];
    return last ? group.getBoundingClientRect().right - last.getBoundingClientRect().right : -1;
  });
  expect(slack).toBeGreaterThanOrEqual(0);
  expect(slack).toBeLessThanOrEqual(4);
  // the empty session's explanation and examples follow the mode: nothing "asks you first" now
  await expect(
    page.getByText("Approvals are set to Always allow: file changes and commands run without asking."),
  ).toBeVisible();
  await expect(page.getByRole("button", { name: /asks you first/ })).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Run a command/ })).toBeVisible();
  await screenshot(page, "mode-pending");

  // the next prompt's first step applies it: the shell call runs without an approval card
  await sendPrompt(page, "run echo parley-e2e");
  const tool = toolCard(page, "shell");
  await expect(tool).toHaveAttribute("data-state", "completed");
  await expect(tool.getByTestId("interaction-card")).toHaveCount(0);
  await expect(tool).toContainText("parley-e2e");
  // the call that ran unasked says so
  await expect(tool.getByTestId("auto-approved")).toHaveText("auto-approved");
  await expect(page.getByTestId("mode-status")).toHaveText("In effect: Always allow");
  await expect(page.getByTestId("mode-pending")).toHaveCount(0);
  await expect(page.getByTestId("mode-status").getByText("Pending", { exact: true })).toHaveCount(0);

  // back to asking needs no confirmation
  await modes.getByText("Ask first").click();
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(modes.getByRole("radio", { name: "Ask first" })).toBeChecked();
  await expect(page.getByTestId("mode-idle-change")).toHaveText("Ask first · applies from your next message");
  await expect(page.getByTestId("mode-pending")).toHaveCount(0);
});
