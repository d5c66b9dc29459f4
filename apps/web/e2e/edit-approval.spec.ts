import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { createSession, expect, screenshot, sendPrompt, test, toolCard } from "./support/fixtures";

test.describe("edit before approve", () => {
  test("the approver edits a write_file's path and content with the keyboard; the edit is written and the card says who edited what", async ({
    member,
    stack,
  }) => {
    const { page } = member;
    const session_id = await createSession(page, "Shopping list");
    await sendPrompt(page, "write todo.md: buy milk");
    const tool = toolCard(page, "write_file");
    const card = tool.getByTestId("interaction-card");
    await expect(card).toHaveAttribute("data-status", "pending");

    // Edit… opens the form with focus in its first field, the path
    await card.getByRole("button", { name: "Edit…" }).focus();
    await page.keyboard.press("Enter");
    const form = card.getByTestId("approval-edit-form");
    await expect(form).toBeVisible();
    const pathField = form.getByLabel("path", { exact: true });
    const contentField = form.getByLabel("content", { exact: true });
    await expect(pathField).toBeFocused();
    await expect(pathField).toHaveValue("todo.md");
    await expect(contentField).toHaveValue("buy milk");

    // Escape leaves the form without sending; focus returns to Edit…, and the "e" shortcut reopens it
    await page.keyboard.press("Escape");
    await expect(form).toHaveCount(0);
    await expect(card.getByRole("button", { name: "Edit…" })).toBeFocused();
    await page.keyboard.press("e");
    await expect(pathField).toBeFocused();

    // an emptied path is caught in the browser, before anything is sent
    await pathField.fill("");
    await form.getByRole("button", { name: "Approve with edits" }).click();
    await expect(form.getByTestId("edit-error-path")).toHaveText("Required: it cannot be empty");
    await expect(pathField).toHaveAttribute("aria-invalid", "true");
    await expect(pathField).toBeFocused();
    await expect(card).toHaveAttribute("data-status", "pending");

    await pathField.fill("lists/groceries.md");
    await expect(form.getByTestId("edit-error-path")).toHaveCount(0);
    await contentField.fill("buy bread\nbuy eggs");
    await form.getByRole("button", { name: "Approve with edits" }).scrollIntoViewIfNeeded();
    await screenshot(page, "approval-editing");
    await contentField.focus();
    await page.keyboard.press("Tab");
    await expect(form.getByRole("button", { name: "Approve with edits" })).toBeFocused();
    await page.keyboard.press("Enter");

    await expect(card).toHaveAttribute("data-status", "resolved");
    await expect(card.getByTestId("interaction-outcome-line")).toHaveText("Approved, edited by you");
    await expect(tool).toHaveAttribute("data-state", "completed");
    const workspace = path.join(stack.workspace_root, session_id);
    expect(readFileSync(path.join(workspace, "lists", "groceries.md"), "utf8")).toBe("buy bread\nbuy eggs");
    expect(existsSync(path.join(workspace, "todo.md"))).toBe(false);

    // unfolded, the card shows who edited the call and what changed, as diffs
    await card.getByRole("button", { name: /Approved, edited by you/ }).click();
    await expect(card.getByTestId("edited-by")).toHaveText(
      "Edited by you before approving; the call ran with these changes",
    );
    const pathChange = card.getByTestId("changed-path").locator(".diff-line");
    await expect(pathChange.filter({ hasText: /^-todo\.md$/ })).toHaveCount(1);
    await expect(pathChange.filter({ hasText: /^\+lists\/groceries\.md$/ })).toHaveCount(1);
    const contentChange = card.getByTestId("changed-content").locator(".diff-line.add");
    await expect(contentChange).toHaveText(["+buy bread", "+buy eggs"]);
    await screenshot(page, "approval-edited");
  });

  test("an admin edits a shell command from the inbox; the member's card says the admin edited it", async ({
    member,
    admin,
  }) => {
    await admin.page.goto("/admin");
    await expect(admin.page.getByRole("heading", { name: "Inbox" })).toBeVisible();
    const session_id = await createSession(member.page, "Look around, edited");
    await sendPrompt(member.page, "run echo asked by the model");
    const memberTool = toolCard(member.page, "shell");
    const memberCard = memberTool.getByTestId("interaction-card");
    await expect(memberCard).toHaveAttribute("data-status", "pending");
    const interaction_id = String(await memberCard.getAttribute("data-interaction-id"));

    const row = admin.page.getByTestId("inbox-row").filter({
      has: admin.page.locator(`[data-interaction-id="${interaction_id}"]`),
    });
    await row.getByRole("button", { name: "Edit…" }).click();
    const command = row.getByLabel("command", { exact: true });
    await expect(command).toBeFocused();
    await expect(command).toHaveValue("echo asked by the model");
    await command.fill("echo edited by the admin");
    await row.getByRole("button", { name: "Approve with edits" }).click();

    // this session's row (a retry on the same stack leaves an earlier one of the same title)
    const answered = admin.page.getByTestId("answered-row").filter({
      has: admin.page.locator(`a[href="/?session=${encodeURIComponent(session_id)}"]`),
    });
    await expect(answered).toContainText("Approved, edited by you");
    await expect(memberCard).toHaveAttribute("data-status", "resolved");
    await expect(memberCard.getByTestId("interaction-outcome-line")).toHaveText(
      "Approved, edited by Ada Admin",
    );
    await expect(memberTool).toHaveAttribute("data-state", "completed");
    await memberTool.getByText("Output", { exact: true }).click();
    await expect(memberTool.locator("details", { hasText: "Output" }).locator("pre")).toContainText(
      "edited by the admin",
    );
    await memberCard.getByRole("button", { name: /Approved, edited by Ada Admin/ }).click();
    await expect(memberCard.getByTestId("edited-by")).toHaveText(
      "Edited by Ada Admin before approving; the call ran with these changes",
    );
    await expect(memberCard.getByTestId("changed-command").locator(".diff-line.add")).toHaveText([
      "+echo edited by the admin",
    ]);
    await screenshot(member.page, "approval-edited-by-admin");
  });
});
