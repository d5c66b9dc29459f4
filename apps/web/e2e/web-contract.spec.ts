import {
  createSession,
  expect,
  putWorkspaceFile,
  screenshot,
  sendPrompt,
  test,
  titleCount,
  toolCard,
} from "./support/fixtures";

test("the workspace picker lists the two operator-named workspaces and creates a session in one", async ({
  member,
}) => {
  const { page } = member;
  await page.goto("/");
  const picker = page.getByLabel("Workspace");
  await expect(picker.locator("option")).toHaveText(["Its own new folder", "project", "docs"]);
  await picker.selectOption("project");
  await screenshot(page, "workspace-picker");
  await page.getByLabel("New session").fill("In the project workspace");
  await page.getByRole("button", { name: "Create" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "In the project workspace" })).toBeVisible();
  await expect(page.getByText("The agent works in the project workspace.")).toBeVisible();
  await screenshot(page, "workspace-picker-session");
});

test("an approval card shows what the tool does and why the model calls it (tool_description, model_explanation)", async ({
  member,
  stack,
}) => {
  const { page } = member;
  const session_id = await createSession(page, "Tool description");
  putWorkspaceFile(stack, session_id, "old.txt", "old\n");
  await sendPrompt(page, "delete old.txt");
  const card = toolCard(page, "delete_file").getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");
  await expect(card.getByTestId("tool-description")).toHaveText(
    "What delete_file does: Delete one file inside the workspace (not a directory). Asks the user for approval first.",
  );
  await expect(card.locator(".model-claim")).toContainText("You asked me to delete old.txt.");
  await screenshot(page, "tool-description");
});

test("a notification is shown when a request arrives while the tab is hidden", async ({ member, stack }) => {
  const { page } = member;
  // The Notification API, stubbed: permission granted, every notification recorded; the tab's
  // visibility is ours to set.
  await page.addInitScript(() => {
    const shown: { title: string; body: string | undefined }[] = [];
    Object.assign(window, { __notifications: shown, __hidden: false });
    class StubNotification {
      static permission = "granted";
      static requestPermission = async () => "granted";
      onclick: (() => void) | null = null;
      constructor(title: string, options?: { body?: string }) {
        shown.push({ title, body: options?.body });
      }
      close() {}
    }
    Object.defineProperty(window, "Notification", { value: StubNotification, configurable: true });
    Object.defineProperty(Document.prototype, "visibilityState", {
      configurable: true,
      get: () => ((window as unknown as { __hidden: boolean }).__hidden ? "hidden" : "visible"),
    });
  });
  const session_id = await createSession(page, "Notify me");
  putWorkspaceFile(stack, session_id, "gone.txt", "x\n");
  await page.getByTestId("notify-toggle").click();
  await expect(page.getByTestId("notify-toggle")).toHaveAttribute("aria-pressed", "true");
  const notifications = () =>
    page.evaluate(() => (window as unknown as { __notifications: unknown[] }).__notifications);
  expect(await notifications()).toEqual([]);

  await page.evaluate(() => Object.assign(window, { __hidden: true }));
  await sendPrompt(page, "delete gone.txt");
  await expect(toolCard(page, "delete_file").getByTestId("interaction-card")).toHaveAttribute(
    "data-status",
    "pending",
  );
  await expect
    .poll(notifications)
    .toEqual([
      { title: "Parley: a request needs you", body: expect.stringMatching(/waiting for an answer$/) },
    ]);
  await screenshot(page, "notification-while-hidden");
});

test("the tab title and the Inbox count follow a new request within 1 s", async ({
  member,
  admin,
  stack,
}) => {
  await admin.page.goto("/admin");
  await expect(admin.page.getByRole("heading", { name: "Inbox" })).toBeVisible();
  const session_id = await createSession(member.page, "Counted at once");
  putWorkspaceFile(stack, session_id, "count.txt", "1\n");
  // What the header counts now (earlier tests may have left requests waiting), once loaded.
  await admin.page.waitForLoadState("networkidle");
  const before = await titleCount(admin.page);

  await sendPrompt(member.page, "delete count.txt");
  const card = toolCard(member.page, "delete_file").getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");
  const seen = Date.now();
  await expect(admin.page).toHaveTitle(`(${before + 1}) Inbox · Parley`, { timeout: 1_000 });
  await expect(admin.page.getByTestId("inbox-count")).toContainText(String(before + 1), { timeout: 1_000 });
  expect(Date.now() - seen).toBeLessThan(1_000);
  await expect(member.page).toHaveTitle(/^\(\d+\) Parley$/, { timeout: 1_000 });
  await screenshot(admin.page, "title-and-inbox-count");
});

test("a custom form is answered from the inbox", async ({ member, admin }) => {
  await createSession(member.page, "Form from the inbox");
  await sendPrompt(member.page, "fill in the deploy form");
  const memberCard = toolCard(member.page, "request_form").getByTestId("interaction-card");
  await expect(memberCard).toHaveAttribute("data-status", "pending");
  const interaction_id = String(await memberCard.getAttribute("data-interaction-id"));

  await admin.page.goto("/admin");
  const row = admin.page.getByTestId("inbox-row").filter({
    has: admin.page.locator(`[data-interaction-id="${interaction_id}"]`),
  });
  await expect(row).toContainText("Form from the inbox");
  const form = row.getByTestId("schema-form");
  await form.getByRole("group", { name: "Environment *" }).getByRole("radio", { name: "staging" }).check();
  await form.getByLabel("Replicas *").fill("2");
  await screenshot(admin.page, "custom-form-in-inbox");
  await form.getByRole("button", { name: "Submit" }).click();
  await expect(row).toHaveCount(0);
  await expect(
    admin.page.getByTestId("answered-row").filter({ hasText: "Form from the inbox" }),
  ).toContainText("Answered by you");

  await expect(memberCard).toHaveAttribute("data-status", "resolved");
  await expect(memberCard.getByTestId("interaction-outcome-line")).toHaveText("Answered by Ada Admin");
  await expect(toolCard(member.page, "request_form")).toHaveAttribute("data-state", "completed");
  await screenshot(member.page, "custom-form-answered-from-inbox");
});

test("a message queued during an approval is on the server: still there after a reload, seen by another client, and Cancel withdraws it", async ({
  member,
  admin,
  stack,
}) => {
  // Two clients, two reloads and a Turn that resumes: longer than one default test budget here.
  test.slow();
  const { page } = member;
  const session_id = await createSession(page, "Queued on the server");
  putWorkspaceFile(stack, session_id, "q.txt", "q\n");
  await sendPrompt(page, "delete q.txt");
  const card = toolCard(page, "delete_file").getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");

  await sendPrompt(page, "list files");
  await sendPrompt(page, "never mind this one");
  const queued = page.getByTestId("queued-message");
  await expect(queued).toHaveText([/list files/, /never mind this one/]);

  await page.reload();
  await expect(queued).toHaveText([/list files/, /never mind this one/]);
  await expect(queued.first().getByTestId("queued-status")).toHaveText(
    "Queued — runs when the waiting request is answered",
  );
  await screenshot(page, "queued-after-reload");

  await admin.page.goto(`/?session=${encodeURIComponent(session_id)}`);
  const queuedForAdmin = admin.page.getByTestId("queued-message");
  await expect(queuedForAdmin).toHaveText([/list files/, /never mind this one/]);

  await queued.nth(1).getByRole("button", { name: "Cancel" }).click();
  await expect(queued).toHaveText([/list files/]);
  await expect(queuedForAdmin).toHaveText([/list files/]);
  await page.reload();
  await expect(queued).toHaveText([/list files/]);

  await toolCard(page, "delete_file")
    .getByTestId("interaction-card")
    .getByRole("button", { name: "Approve", exact: true })
    .click();
  await expect(page.locator(".user-message", { hasText: "list files" })).toBeVisible();
  await expect(queued).toHaveCount(0);
  await expect(queuedForAdmin).toHaveCount(0);
  await expect(page.locator(".user-message", { hasText: "never mind this one" })).toHaveCount(0);
  await screenshot(page, "queued-ran-after-approval");
});
