import { createSession, expect, sendPrompt, test, toolCard } from "./support/fixtures";

test("a custom interaction is answered through the form rendered from its response_schema", async ({
  member,
}) => {
  const { page } = member;
  await createSession(page, "Custom form");
  await sendPrompt(page, "fill in the deploy form");

  const tool = toolCard(page, "request_form");
  await expect(tool).toHaveAttribute("data-state", "waiting-user");
  const card = tool.getByTestId("interaction-card");
  await expect(card).toHaveAttribute("data-status", "pending");
  await expect(card.getByRole("heading", { name: "Deployment settings" })).toBeVisible();
  const form = card.getByTestId("schema-form");

  // A value the schema refuses (replicas above its maximum) is refused by the server; still pending.
  await form.getByRole("group", { name: "Environment *" }).getByRole("radio", { name: "production" }).check();
  await form.getByLabel("Replicas *").fill("11");
  await form.getByRole("button", { name: "Submit" }).click();
  await expect(card.getByTestId("interaction-error")).toContainText("does not match response_schema");
  await expect(card).toHaveAttribute("data-status", "pending");

  await form.getByLabel("Replicas *").fill("3");
  await form.getByLabel("Notify the team").check();
  const checks = form.getByRole("group", { name: "Checks" });
  await checks.getByRole("checkbox", { name: "smoke" }).check();
  await checks.getByRole("checkbox", { name: "tests" }).check();
  await form.getByRole("button", { name: "Submit" }).click();

  await expect(card).toHaveAttribute("data-status", "resolved");
  // answered cards fold to one line; unfolded they show the answer read-only
  await expect(card.getByTestId("interaction-outcome-line")).toHaveText("Answered by you");
  await card.getByRole("button", { name: /Answered by you/ }).click();
  await expect(card.getByTestId("interaction-outcome")).toHaveText("Answered by you");
  await expect(form.getByLabel("Replicas *")).toHaveValue("3");
  await expect(form.getByLabel("Replicas *")).toBeDisabled();
  await expect(tool).toHaveAttribute("data-state", "completed");
  await expect(
    page.getByText(
      // the answer as the tool returned it (keys in Postgres jsonb order)
      'request_form finished: {"checks":["tests","smoke"],"notify":true,"replicas":3,"environment":"production"}',
    ),
  ).toBeVisible();
});
