import {
  createSession,
  expect,
  openSession,
  putWorkspaceFile,
  sendPrompt,
  test,
  toolCard,
} from "./support/fixtures";

test("a card answered in one browser updates in the other without a reload", async ({
  member,
  admin,
  stack,
}) => {
  const session_id = await createSession(member.page, "Shared review");
  putWorkspaceFile(stack, session_id, "draft.txt", "draft\n");
  await openSession(admin.page, session_id);

  await sendPrompt(member.page, "delete draft.txt");
  const memberCard = toolCard(member.page, "delete_file").getByTestId("interaction-card");
  const adminCard = toolCard(admin.page, "delete_file").getByTestId("interaction-card");
  await expect(memberCard).toHaveAttribute("data-status", "pending");
  await expect(adminCard).toHaveAttribute("data-status", "pending");
  const interaction_id = await memberCard.getAttribute("data-interaction-id");
  await expect(adminCard).toHaveAttribute("data-interaction-id", String(interaction_id));

  let reloaded = false;
  member.page.on("load", () => {
    reloaded = true;
  });
  await adminCard.getByRole("button", { name: "Approve", exact: true }).click();

  await expect(memberCard).toHaveAttribute("data-status", "resolved");
  await expect(memberCard.getByTestId("interaction-outcome-line")).toHaveText("Approved by Ada Admin");
  await expect(memberCard.getByRole("button", { name: "Approve", exact: true })).toHaveCount(0);
  await expect(adminCard.getByTestId("interaction-outcome-line")).toHaveText("Approved by you");
  await expect(toolCard(member.page, "delete_file")).toHaveAttribute("data-state", "completed");
  expect(reloaded).toBe(false);
});

test("switching sessions drops the old session's cards", async ({ member, stack }) => {
  const { page } = member;
  const first = await createSession(page, "First session");
  putWorkspaceFile(stack, first, "a.txt", "a\n");
  await sendPrompt(page, "delete a.txt");
  await expect(page.getByTestId("interaction-card")).toHaveCount(1);

  await createSession(page, "Second session");
  await expect(page.getByTestId("interaction-card")).toHaveCount(0);
  await expect(page.getByText("Nothing here yet")).toBeVisible();
  const firstItem = page.getByRole("button", { name: /First session/ });
  await expect(firstItem.locator(".badge")).toContainText("1");

  await firstItem.click();
  await expect(page.getByTestId("interaction-card")).toHaveCount(1);
  await expect(page.getByTestId("interaction-card")).toHaveAttribute("data-status", "pending");
});

test("a client that missed the answer gets the server's error inline when it answers too", async ({
  member,
  admin,
  stack,
}) => {
  // The member's browser stops receiving pushes, so its card still looks pending after the admin answers.
  let deliverPushes = true;
  await member.page.routeWebSocket(/\/trpc/, (socket) => {
    const server = socket.connectToServer();
    server.onMessage((message) => {
      if (deliverPushes) socket.send(message);
    });
    socket.onMessage((message) => server.send(message));
  });
  const session_id = await createSession(member.page, "Race to answer");
  putWorkspaceFile(stack, session_id, "race.txt", "r\n");
  await openSession(admin.page, session_id);
  await sendPrompt(member.page, "delete race.txt");
  const memberCard = toolCard(member.page, "delete_file").getByTestId("interaction-card");
  const adminCard = toolCard(admin.page, "delete_file").getByTestId("interaction-card");
  await expect(memberCard).toHaveAttribute("data-status", "pending");
  await expect(adminCard).toHaveAttribute("data-status", "pending");

  deliverPushes = false;
  await adminCard.getByRole("button", { name: "Deny…" }).click();
  await adminCard.getByRole("button", { name: "Deny", exact: true }).click();
  await expect(adminCard).toHaveAttribute("data-status", "denied");
  await expect(memberCard).toHaveAttribute("data-status", "pending");

  await memberCard.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(memberCard.getByTestId("interaction-error")).toContainText("Someone else answered first.");
  await expect(memberCard.getByTestId("interaction-error")).toContainText("already denied");
  // the view re-reads the session, so the card shows the server's truth next to the error
  await expect(memberCard).toHaveAttribute("data-status", "denied");
  await expect(memberCard.getByTestId("interaction-outcome-line")).toHaveText("Denied by Ada Admin");
  await expect(memberCard.getByTestId("interaction-error")).toBeVisible();
});
