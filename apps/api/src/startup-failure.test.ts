import { describe, expect, it } from "vitest";
import { describeStartupFailure } from "./startup-failure.js";

const context = { host: "127.0.0.1", port: 4000 };

function failure(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe("describeStartupFailure", () => {
  it("gives known causes one line with the fix", () => {
    expect(
      describeStartupFailure(failure("listen EADDRINUSE: address already in use", "EADDRINUSE"), context),
    ).toBe(
      "Port 4000 on 127.0.0.1 is already in use. Fix: stop the other process or set PORT to a free port.",
    );
    expect(
      describeStartupFailure(failure("connect ECONNREFUSED 127.0.0.1:5999", "ECONNREFUSED"), context),
    ).toBe(
      "The database refused the connection (connect ECONNREFUSED 127.0.0.1:5999). Fix: start PostgreSQL or correct DATABASE_URL.",
    );
  });

  it("folds anything else into one line", () => {
    const error = new Error("Invalid environment:\n✖ PORT: expected number\n");
    expect(describeStartupFailure(error, context)).toBe("Invalid environment: ✖ PORT: expected number");
  });
});
