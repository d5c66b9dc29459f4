import { describe, expect, it } from "vitest";
import { isLocalRequest } from "../../local-request.mjs";

describe("isLocalRequest (who may receive the local admin token)", () => {
  it("accepts a loopback peer that named localhost or 127.0.0.1, with or without a port", () => {
    for (const remoteAddress of ["127.0.0.1", "::1", "::ffff:127.0.0.1"]) {
      for (const host of ["localhost", "localhost:3000", "127.0.0.1:3000", "LOCALHOST:3000"]) {
        expect(isLocalRequest({ remoteAddress, host })).toBe(true);
      }
    }
  });

  it("refuses another Host header (DNS rebinding) and any non-loopback peer", () => {
    for (const host of [
      "evil.example",
      "evil.example:3000",
      "192.168.1.5:3000",
      "localhost.evil.example",
      undefined,
    ]) {
      expect(isLocalRequest({ remoteAddress: "127.0.0.1", host })).toBe(false);
    }
    for (const remoteAddress of ["192.168.1.5", "::ffff:10.0.0.2", "fe80::1", undefined]) {
      expect(isLocalRequest({ remoteAddress, host: "localhost:3000" })).toBe(false);
    }
  });
});
