import http from "node:http";
import { chromium } from "@playwright/test";
import { expect, test } from "./support/fixtures";
import { LOCAL_WEB_PORT } from "./support/ports";
import { startWeb, stopServer } from "./support/stack";

/** The HTML of `/` fetched from 127.0.0.1 with the given Host header (and any extra headers). */
function htmlWithHost(port: number, host: string, headers: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      { host: "127.0.0.1", port, path: "/", headers: { ...headers, host } },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => {
          body += chunk;
        });
        response.on("end", () =>
          response.statusCode === 200 ? resolve(body) : reject(new Error(`HTTP ${response.statusCode}`)),
        );
      },
    );
    request.on("error", reject);
  });
}

test("the local admin token is in the HTML for a localhost Host header only, never for another name", async ({
  stack,
}) => {
  const url = await startWeb(stack, {
    name: "web-local",
    port: LOCAL_WEB_PORT,
    local_token: stack.admin_token,
  });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    // A DNS-rebinding page: its own name now resolves to this machine.
    args: ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP rebound.test 127.0.0.1"],
  });
  try {
    expect(await htmlWithHost(LOCAL_WEB_PORT, `localhost:${LOCAL_WEB_PORT}`)).toContain(stack.admin_token);
    expect(await htmlWithHost(LOCAL_WEB_PORT, `127.0.0.1:${LOCAL_WEB_PORT}`)).toContain(stack.admin_token);
    for (const host of [
      `rebound.test:${LOCAL_WEB_PORT}`,
      "192.168.1.20",
      `localhost.rebound.test:${LOCAL_WEB_PORT}`,
    ]) {
      const html = await htmlWithHost(LOCAL_WEB_PORT, host);
      expect(html).toContain("<html");
      expect(html).not.toContain(stack.admin_token);
    }
    // A client cannot mark itself local.
    const spoofed = await htmlWithHost(LOCAL_WEB_PORT, `rebound.test:${LOCAL_WEB_PORT}`, {
      "x-parley-local-peer": "1",
      "x-forwarded-for": "127.0.0.1",
    });
    expect(spoofed).not.toContain(stack.admin_token);

    const rebound = await browser.newPage();
    const response = await rebound.goto(`http://rebound.test:${LOCAL_WEB_PORT}/`);
    expect(response?.status()).toBe(200);
    await expect(rebound).toHaveURL(/\/sign-in$/);
    await expect(rebound.getByLabel("Access token")).toBeVisible();
    expect(await rebound.content()).not.toContain(stack.admin_token);

    const local = await browser.newPage();
    await local.goto(url);
    await expect(local.getByText("Ada Admin")).toBeVisible();
  } finally {
    await browser.close();
    await stopServer(stack.state_dir, "web-local");
  }
});
