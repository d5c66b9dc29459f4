import http from "node:http";
import type { AddressInfo } from "node:net";
import { collectPageErrors, createSession, expect, sendPrompt, test } from "./support/fixtures";

/** A listener that counts every request it gets (a remote image's server, here on this machine). */
async function countingListener(): Promise<{
  port: number;
  count: () => number;
  close: () => Promise<void>;
}> {
  let count = 0;
  const server = http.createServer((_request, response) => {
    count += 1;
    response.writeHead(200, { "content-type": "image/png" }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    count: () => count,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

test("every page carries the Content-Security-Policy, with a fresh nonce, and runs without a violation", async ({
  admin,
  stack,
}) => {
  const { page } = admin;
  const errors = collectPageErrors(page);
  const session_id = await createSession(page, "CSP");
  const nonces = new Set<string>();
  // An unknown page too, fetched without rendering (its 404 would be a console error).
  const unknown = await page.request.get("/no-such-page");
  expect(unknown.status()).toBe(404);
  expect(unknown.headers()["content-security-policy"]).toContain("default-src 'self'");
  for (const path of ["/", "/sign-in", "/admin", `/?session=${session_id}`]) {
    const response = await page.goto(path);
    const policy = response?.headers()["content-security-policy"] ?? "";
    expect(policy, path).toContain("default-src 'self'");
    expect(policy, path).toContain("img-src 'self' data: blob:");
    expect(policy, path).toContain(
      `connect-src 'self' ${stack.api_url} ${stack.api_url.replace("http", "ws")}`,
    );
    expect(policy, path).not.toContain("unsafe");
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(nonce, path).toBeTruthy();
    nonces.add(nonce ?? "");
    // Next put the nonce on its inline scripts, and they ran: the app is interactive.
    expect(await page.locator(`script[nonce]`).count(), path).toBeGreaterThan(0);
  }
  expect(nonces.size).toBe(4);
  await page.goto(`/?session=${session_id}`);
  await expect(page.getByTestId("turn-state")).toHaveText("Idle");
  expect(errors.filter((error) => /Content Security Policy|Refused to/i.test(error))).toEqual([]);
  expect(errors).toEqual([]);
});

test("an agent's markdown image is shown as text and never fetched", async ({ admin }) => {
  const listener = await countingListener();
  try {
    const { page } = admin;
    await createSession(page, "Remote image");
    const image = `http://127.0.0.1:${listener.port}/x.png`;
    // The demo model repeats the path it was asked to list in its own (markdown) text.
    await sendPrompt(page, `list files in ![x](${image})`);
    const blocked = page.locator(".assistant-text").getByTestId("blocked-image");
    await expect(blocked.first()).toHaveText(`[image: x (${image})]`);
    await expect(page.getByTestId("turn-state")).toHaveText("Idle");
    expect(await page.locator(`img[src*="127.0.0.1:${listener.port}"]`).count()).toBe(0);
    await page.reload();
    await expect(blocked.first()).toBeVisible();
    expect(listener.count()).toBe(0);
  } finally {
    await listener.close();
  }
});
