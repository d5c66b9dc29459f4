import {
  createSession,
  expect,
  putWorkspaceFile,
  screenshot,
  sendPrompt,
  test,
  toolCard,
} from "./support/fixtures";
import { startApi, stopServer } from "./support/stack";

test("the page keeps working across an API restart, without a reload", async ({ member, stack }) => {
  const { page } = member;
  const session_id = await createSession(page, "Survives restarts");
  putWorkspaceFile(stack, session_id, "one.txt", "1\n");
  putWorkspaceFile(stack, session_id, "two.txt", "2\n");
  await sendPrompt(page, "delete one.txt");
  const card = toolCard(page, "delete_file").first().getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");

  let reloaded = false;
  page.on("load", () => {
    reloaded = true;
  });
  await stopServer(stack.state_dir, "api");
  await startApi(stack);

  // the pending interaction survived; answering it resumes the Turn and the page sees it live
  await card.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(card).toHaveAttribute("data-status", "resolved");
  await expect(toolCard(page, "delete_file").first()).toHaveAttribute("data-state", "completed");
  await expect(page.getByText("Done: I deleted one.txt.")).toBeVisible();

  // and the subscription resumed: a new turn streams in without a reload
  await sendPrompt(page, "delete two.txt");
  await expect(toolCard(page, "delete_file")).toHaveCount(2);
  await expect(toolCard(page, "delete_file").nth(1)).toHaveAttribute("data-state", "waiting-user");
  expect(reloaded).toBe(false);
  await screenshot(page, "after-restart");
});
