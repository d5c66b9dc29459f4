import { describe, expect, it } from "vitest";
import { freePort } from "../embedded/free-ports.js";
import { BusUnreachableError } from "./bus-transport.js";
import { NatsTransport, sessionSubjectToken } from "./nats-transport.js";

describe("NatsTransport", () => {
  it("fails to start with one line naming the server and PARLEY_BUS when nothing listens there", async () => {
    const url = `nats://127.0.0.1:${await freePort()}`;
    const transport = new NatsTransport({ url });
    const started = transport.start({ onNotice: () => undefined, onReconnected: () => undefined });
    await expect(started).rejects.toBeInstanceOf(BusUnreachableError);
    await expect(started).rejects.toThrow(`Cannot reach the NATS server at ${url} (PARLEY_BUS): `);
    expect(String((await started.catch((error: unknown) => error)) as Error)).not.toContain("\n");
  });

  it("puts plain session ids in the subject as they are and encodes the others", () => {
    expect(sessionSubjectToken("session:Ab_9-x")).toBe("session:Ab_9-x");
    expect(sessionSubjectToken("a.b")).toBe("~612e62");
    expect(sessionSubjectToken("a b*>")).toBe("~6120622a3e");
    expect(sessionSubjectToken("~61")).toBe("~7e3631");
    expect(sessionSubjectToken("")).toBe("~");
  });
});
