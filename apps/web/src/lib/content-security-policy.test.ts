import { describe, expect, it } from "vitest";
import { contentSecurityPolicy } from "./content-security-policy";

describe("contentSecurityPolicy", () => {
  it("allows this origin, the nonce'd scripts and the API (HTTP and WebSocket), nothing remote", () => {
    const policy = contentSecurityPolicy({ nonce: "n0nce", api_url: "http://127.0.0.1:4000" });
    const directives = new Map(
      policy.split("; ").map((directive) => [directive.split(" ")[0], directive.split(" ").slice(1)]),
    );
    expect(directives.get("default-src")).toEqual(["'self'"]);
    expect(directives.get("script-src")).toEqual(["'self'", "'nonce-n0nce'", "'strict-dynamic'"]);
    expect(directives.get("img-src")).toEqual(["'self'", "data:", "blob:"]);
    expect(directives.get("connect-src")).toEqual(["'self'", "http://127.0.0.1:4000", "ws://127.0.0.1:4000"]);
    expect(directives.get("frame-src")).toEqual(["'none'"]);
    expect(directives.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy).not.toContain("unsafe");
    expect(contentSecurityPolicy({ nonce: "x", api_url: "https://api.example.com/base" })).toContain(
      "connect-src 'self' https://api.example.com wss://api.example.com;",
    );
  });
});
