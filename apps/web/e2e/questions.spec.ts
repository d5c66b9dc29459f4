import { createSession, expect, screenshot, sendPrompt, test, toolCard } from "./support/fixtures";

test("a three-question form enables submit only when every question is answered", async ({ member }) => {
  const { page } = member;
  await createSession(page, "Deployment plan");
  await sendPrompt(page, "ask me where to deploy");

  const tool = toolCard(page, "ask_question");
  await expect(tool).toHaveAttribute("data-state", "waiting-user");
  const card = tool.getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");
  await expect(card.getByRole("heading", { name: "Where to deploy" })).toBeVisible();
  const submit = card.getByRole("button", { name: "Submit answers" });
  const progress = card.getByRole("status").filter({ hasText: "answered" });
  await expect(submit).toBeDisabled();
  await expect(progress).toHaveText("0 of 3 answered");

  const region = card.getByRole("group", { name: /Which region should I deploy to\?/ });
  await expect(region.getByRole("radio")).toHaveCount(3);
  await region.getByRole("radio", { name: "Europe" }).check();
  await expect(progress).toHaveText("1 of 3 answered");
  await expect(submit).toBeDisabled();

  const checks = card.getByRole("group", { name: /Which checks should run before going live\?/ });
  await expect(checks.getByRole("checkbox")).toHaveCount(3);
  const tests = checks.getByRole("checkbox", { name: "Unit and integration tests" });
  const migrations = checks.getByRole("checkbox", { name: "Database migrations" });
  const smoke = checks.getByRole("checkbox", { name: "Smoke test after deploy" });
  // ticked out of option order, and one ticked then unticked: the answer is what stays ticked
  await smoke.check();
  await migrations.check();
  await expect(progress).toHaveText("2 of 3 answered");
  await migrations.uncheck();
  await smoke.uncheck();
  await expect(progress).toHaveText("1 of 3 answered");
  await expect(submit).toBeDisabled();
  await smoke.check();
  await tests.check();
  await expect(progress).toHaveText("2 of 3 answered");
  await expect(submit).toBeDisabled();

  const notes = card.getByLabel("Anything the deployment should take care of?");
  await notes.fill("   ");
  await expect(progress).toHaveText("2 of 3 answered");
  await expect(submit).toBeDisabled();
  await notes.fill("Run the migrations first");
  await expect(progress).toHaveText("3 of 3 answered");
  await expect(submit).toBeEnabled();
  await screenshot(page, "question-form");
  // the questions sit inside the card's border and padding, as an approval card's body does
  const cardBox = await card.boundingBox();
  const regionBox = await region.boundingBox();
  if (cardBox === null || regionBox === null) throw new Error("the question card is not laid out");
  expect(regionBox.x - cardBox.x).toBeGreaterThanOrEqual(12);
  expect(cardBox.x + cardBox.width - (regionBox.x + regionBox.width)).toBeGreaterThanOrEqual(12);

  await submit.click();
  await expect(card).toHaveAttribute("data-status", "resolved");
  // answered cards fold to one line; unfolded they show the answers read-only
  await expect(card.getByTestId("interaction-outcome-line")).toHaveText("Answered by you");
  await card.getByRole("button", { name: /Answered by you/ }).click();
  await expect(card.getByTestId("interaction-outcome")).toHaveText("Answered by you");
  await expect(submit).toBeDisabled();
  await expect(region.getByRole("radio", { name: "Europe" })).toBeChecked();
  await expect(region.getByRole("radio", { name: "Europe" })).toBeDisabled();
  await expect(tests).toBeChecked();
  await expect(smoke).toBeChecked();
  await expect(migrations).not.toBeChecked();
  await expect(tests).toBeDisabled();
  await expect(notes).toHaveValue("Run the migrations first");
  await expect(notes).toBeDisabled();
  await expect(tool).toHaveAttribute("data-state", "completed");

  // The tool output is what the server stored: option values (never labels), in option order.
  const outputSection = tool.locator("details.tool-section", { hasText: "Output" });
  await outputSection.locator("summary").click();
  await expect(outputSection.locator("pre")).toBeVisible();
  const output = JSON.parse((await outputSection.locator("pre").textContent()) ?? "null") as {
    status: string;
    answers: { question_id: string; value: string | string[] }[];
  };
  expect(output.status).toBe("resolved");
  expect(output.answers.map((answer) => answer.value)).toEqual([
    "eu",
    ["tests", "smoke"],
    "Run the migrations first",
  ]);

  // the demo model repeats the answers back in the next step of the same turn
  const reply = page.locator(".assistant-text").last();
  await expect(reply).toContainText("Which region should I deploy to? → Europe");
  await expect(reply).toContainText(
    "Which checks should run before going live? → Unit and integration tests, Smoke test after deploy",
  );
  await expect(reply).toContainText(
    "Anything the deployment should take care of? → Run the migrations first",
  );
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
});
