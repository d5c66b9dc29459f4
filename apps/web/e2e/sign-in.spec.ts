import { expect, screenshot, test } from "./support/fixtures";

test("signing in with a token, rejecting a bad one, and signing out", async ({ page, stack }) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in$/);
  const field = page.getByLabel("Access token");
  const submit = page.getByRole("button", { name: "Sign in" });
  await expect(submit).toBeDisabled();
  await screenshot(page, "sign-in");

  await field.fill("not-a-token");
  await submit.click();
  await expect(page.locator("form").getByRole("alert")).toHaveText("That token was not accepted.");

  await field.fill(stack.member_token);
  await submit.click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByText("Mia Member")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Work with an agent, stay in charge" })).toBeVisible();

  await page.reload();
  await expect(page.getByText("Mia Member")).toBeVisible();

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/sign-in$/);
});
