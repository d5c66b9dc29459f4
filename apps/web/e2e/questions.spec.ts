import { createSession, expect, screenshot, sendPrompt, test, toolCard } from "./support/fixtures";

test("a question form enables submit only when every question is answered", async ({ member }) => {
  const { page } = member;
  await createSession(page, "Deployment plan");
  await sendPrompt(page, "ask me where to deploy");

  const tool = toolCard(page, "ask_question");
  await expect(tool).toHaveAttribute("data-state", "waiting-user");
  const card = tool.getByTestId("interaction-card");
  await expect(card.getByRole("heading", { name: "Where to deploy" })).toBeVisible();
  const submit = card.getByRole("button", { name: "Submit answers" });
  await expect(submit).toBeDisabled();
  await expect(card.getByRole("status").filter({ hasText: "answered" })).toHaveText("0 of 2 answered");

  const region = card.getByRole("group", { name: /Which region should I deploy to\?/ });
  await expect(region.getByRole("radio")).toHaveCount(3);
  await region.getByRole("radio", { name: "Europe" }).check();
  await expect(submit).toBeDisabled();
  await expect(card.getByText("1 of 2 answered")).toBeVisible();

  const notes = card.getByLabel("Anything the deployment should take care of?");
  await notes.fill("   ");
  await expect(submit).toBeDisabled();
  await notes.fill("Run the migrations first");
  await expect(submit).toBeEnabled();
  await screenshot(page, "question-form");

  await submit.click();
  await expect(card).toHaveAttribute("data-status", "resolved");
  await expect(card.getByTestId("interaction-outcome")).toHaveText("Answered by you");
  await expect(region.getByRole("radio", { name: "Europe" })).toBeChecked();
  await expect(region.getByRole("radio", { name: "Europe" })).toBeDisabled();
  await expect(notes).toHaveValue("Run the migrations first");
  await expect(notes).toBeDisabled();
  await expect(tool).toHaveAttribute("data-state", "completed");
  // the demo model repeats the answers back in the next step of the same turn
  const reply = page.locator(".assistant-text").last();
  await expect(reply).toContainText("Which region should I deploy to? → Europe");
  await expect(reply).toContainText(
    "Anything the deployment should take care of? → Run the migrations first",
  );
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
});
