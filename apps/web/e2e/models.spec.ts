import { expect, putWorkspaceFile, screenshot, sendPrompt, test, toolCard } from "./support/fixtures";

// The test stack lists `PARLEY_MODELS=demo:alt` (support/stack.ts): the demo model ("Demo") and its
// variant ("Demo (alt)"), whose every reply starts with "[alt] ".

test("a session is created on a chosen model and switched, configured at once and effective at the next step", async ({
  member,
  stack,
}) => {
  const { page } = member;
  await page.goto("/");
  const picker = page.getByTestId("new-session-model");
  await expect(picker.locator("option")).toHaveText(["Demo", "Demo (alt)"]);
  await expect(picker).toHaveValue("demo");
  await picker.selectOption({ label: "Demo (alt)" });
  await page.getByLabel("New session").fill("Model switch");
  await page.getByRole("button", { name: "Create" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Model switch" })).toBeVisible();
  const session_id = new URL(page.url()).searchParams.get("session") ?? "";
  expect(session_id).not.toBe("");

  const model = page.getByTestId("model-select");
  const status = page.getByTestId("model-status");
  await expect(model).toHaveValue("demo:alt");
  await expect(status).toHaveText("In effect: Demo (alt)");

  await sendPrompt(page, "hello");
  const texts = page.locator(".assistant-text");
  await expect(texts.first()).toContainText("[alt] ");
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");

  // idle: nothing runs on the old model, so the new one applies from the next message
  await model.selectOption({ label: "Demo" });
  await expect(model).toHaveValue("demo");
  await expect(page.getByTestId("model-idle-change")).toHaveText("Demo · applies from your next message");
  await expect(status.getByText("Pending", { exact: true })).toHaveCount(0);

  // the next Turn's first step runs on Demo; switching back while it waits for an approval takes
  // effect at its next step only
  putWorkspaceFile(stack, session_id, "old.txt", "x\n");
  await sendPrompt(page, "delete old.txt");
  const card = toolCard(page, "delete_file").getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");
  await expect(status).toHaveText("In effect: Demo");
  await expect(texts.nth(1)).toHaveText("I'll delete old.txt. Deleting a file needs your approval.");
  await model.selectOption({ label: "Demo (alt)" });
  await expect(page.getByTestId("model-pending")).toHaveText(
    "Takes effect at the next step · in effect now: Demo",
  );
  await expect(status.getByText("Pending", { exact: true })).toBeVisible();
  await screenshot(page, "model-pending");

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(toolCard(page, "delete_file")).toHaveAttribute("data-state", "completed");
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
  await expect(texts.last()).toContainText("[alt] ");
  await expect(status).toHaveText("In effect: Demo (alt)");
  await expect(page.getByTestId("model-pending")).toHaveCount(0);
  await expect(page.getByRole("note").filter({ hasText: "model: Demo (alt)" })).toHaveText(
    "Session configuration updated — model: Demo (alt)",
  );
  await screenshot(page, "model-switched");
});
