import {
  createSession,
  expect,
  putWorkspaceFile,
  screenshot,
  sendPrompt,
  test,
  toolCard,
} from "./support/fixtures";

test("an admin answers a member's interaction from the inbox, live on both sides", async ({
  member,
  admin,
  stack,
}) => {
  await admin.page.goto("/admin");
  await expect(admin.page.getByRole("heading", { name: "Inbox" })).toBeVisible();

  const session_id = await createSession(member.page, "Quarterly report");
  putWorkspaceFile(stack, session_id, "report.txt", "q3\n");
  await sendPrompt(member.page, "delete report.txt");
  const memberCard = toolCard(member.page, "delete_file").getByTestId("interaction-card");
  await expect(memberCard).toHaveAttribute("data-status", "pending");
  const interaction_id = String(await memberCard.getAttribute("data-interaction-id"));

  // appears live, with its session and owner
  const row = admin.page.getByTestId("inbox-row").filter({
    has: admin.page.locator(`[data-interaction-id="${interaction_id}"]`),
  });
  await expect(row).toBeVisible();
  await expect(row).toContainText("Quarterly report");
  await expect(row).toContainText("owner Mia Member");

  // filters: by tool keeps it, by another type hides it
  await admin.page.getByLabel("Tool").selectOption("delete_file");
  await expect(row).toBeVisible();
  await admin.page.getByLabel("Session").selectOption({ label: "Quarterly report" });
  await expect(row).toBeVisible();
  await admin.page.getByLabel("Age").selectOption({ label: "Older than 1 hour" });
  await expect(row).toHaveCount(0);
  await expect(admin.page.getByText("Nothing matches these filters")).toBeVisible();
  await admin.page.getByRole("button", { name: "Clear filters" }).click();
  await expect(row).toBeVisible();
  await screenshot(admin.page, "admin-inbox");

  await row.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(row).toHaveCount(0);
  const answered = admin.page.getByTestId("answered-row").filter({ hasText: "Quarterly report" });
  await expect(answered).toContainText("Approved by you");
  await expect(answered).toContainText("delete_file");

  await expect(memberCard).toHaveAttribute("data-status", "resolved");
  await expect(memberCard.getByTestId("interaction-outcome-line")).toHaveText("Approved by Ada Admin");
  await expect(toolCard(member.page, "delete_file")).toHaveAttribute("data-state", "completed");
  await screenshot(admin.page, "admin-inbox-answered");

  // open the session from the answered list
  await answered.getByRole("link", { name: "Quarterly report" }).click();
  await expect(admin.page.getByRole("heading", { level: 1, name: "Quarterly report" })).toBeVisible();
});

test("members see that the inbox is for admins only", async ({ member }) => {
  await member.page.goto("/admin");
  await expect(member.page.getByTestId("admins-only")).toContainText("Admins only");
  await expect(member.page.getByRole("link", { name: "Inbox" })).toHaveCount(0);
});
