import {
  createSession,
  expect,
  openSession,
  putWorkspaceFile,
  screenshot,
  sendPrompt,
  test,
  titleCount,
  toolCard,
} from "./support/fixtures";

function titleFor(count: number): string {
  return count === 0 ? "Parley" : `(${count}) Parley`;
}

test("a member's tab title counts a request in a session not open in the page within 1 s, and its answer", async ({
  member,
  stack,
}) => {
  const { page, context } = member;
  const openHere = await createSession(page, "Open in this tab");
  // A second tab of the same member starts a request in another session.
  const elsewhere = await context.newPage();
  const asking = await createSession(elsewhere, "Asks from elsewhere");
  putWorkspaceFile(stack, asking, "far.txt", "far\n");
  await openSession(page, openHere);
  // What the title counts now (earlier tests may have left requests waiting), once loaded.
  await page.waitForLoadState("networkidle");
  const before = await titleCount(page);
  await expect(page).toHaveTitle(titleFor(before));

  await sendPrompt(elsewhere, "delete far.txt");
  const card = toolCard(elsewhere, "delete_file").getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");
  const asked = Date.now();
  // The session list polls every 5 s; only the live feed brings it here within 1 s.
  await expect(page).toHaveTitle(titleFor(before + 1), { timeout: 1_000 });
  expect(Date.now() - asked).toBeLessThan(1_000);
  await expect(page.getByRole("heading", { level: 1, name: "Open in this tab" })).toBeVisible();
  // The other session's sidebar badge moves with it.
  const entry = page.locator(".session-item").filter({ hasText: "Asks from elsewhere" });
  await expect(entry.locator(".badge [aria-hidden]")).toHaveText("1", { timeout: 1_000 });
  await screenshot(page, "member-title-count-live");

  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(card).toHaveAttribute("data-status", "resolved");
  const answered = Date.now();
  await expect(page).toHaveTitle(titleFor(before), { timeout: 1_000 });
  expect(Date.now() - answered).toBeLessThan(1_000);
  await elsewhere.close();
});
