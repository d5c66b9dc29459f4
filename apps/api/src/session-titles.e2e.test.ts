import type { SessionMutation } from "@parley/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  callRaw,
  type E2eEnvironment,
  type E2eUser,
  isTurnFinish,
  MutationRecorder,
  startE2eEnvironment,
} from "./testing/index.js";

function isTitle(mutation: SessionMutation): boolean {
  return mutation.variant === "session" && mutation.type === "title";
}

describe("session titles: rename, and the first prompt's auto title", () => {
  let environment: E2eEnvironment;
  let ada: E2eUser;
  let bob: E2eUser;

  beforeAll(async () => {
    environment = await startE2eEnvironment();
    ada = await environment.createMember("ada");
    bob = await environment.createMember("bob");
  });

  afterAll(async () => {
    await environment?.close();
  });

  it("the owner renames a session: the title is trimmed, published once and listed", async () => {
    const session = await ada.client().sessions.create({ title: "draft" });
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    const info = await session.rename("  Release checklist  ");
    expect(info).toMatchObject({ session_id: session.id, title: "Release checklist", state: "idle" });
    expect(info.updated_at).toBeGreaterThanOrEqual(info.created_at);
    const published = await feed.waitFor(isTitle);
    expect(published).toMatchObject({ variant: "session", type: "title", title: "Release checklist" });
    feed.stop();
    expect((await session.info()).title).toBe("Release checklist");
    const listed = await ada.client().sessions.list();
    expect(listed.items.find((item) => item.session_id === session.id)?.title).toBe("Release checklist");
  });

  it("a title must be 1 to 200 characters after trimming, else invalid_input and nothing changes", async () => {
    const session = await ada.client().sessions.create({ title: "kept" });
    for (const title of ["", "   ", "\n\t", "x".repeat(201)]) {
      await expect(session.rename(title)).rejects.toMatchObject({ code: "invalid_input" });
    }
    const raw = await callRaw({
      url: environment.api.url,
      token: ada.token,
      path: "session.rename",
      kind: "mutation",
      input: { session_id: session.id, title: "x", extra: true },
    });
    expect(raw).toMatchObject({ status: 400, error: { parley_code: "invalid_input" } });
    expect((await session.info()).title).toBe("kept");
    const longest = "y".repeat(200);
    expect((await session.rename(` ${longest} `)).title).toBe(longest);
  });

  it("an admin renames a member's session; another member gets session_not_found", async () => {
    const session = await ada.client().sessions.create({ title: "ada's" });
    await expect(bob.client().session(session.id).rename("mine now")).rejects.toMatchObject({
      code: "session_not_found",
    });
    expect((await environment.admin.client().session(session.id).rename("Reviewed by admin")).title).toBe(
      "Reviewed by admin",
    );
    expect((await session.info()).title).toBe("Reviewed by admin");
  });

  it("a closed session cannot be renamed (session_closed)", async () => {
    const session = await ada.client().sessions.create({ title: "done" });
    await session.close();
    await expect(session.rename("too late")).rejects.toMatchObject({ code: "session_closed" });
    expect((await session.info()).title).toBe("done");
  });

  it("an untitled session takes its title from its first prompt, committed with the prompt", async () => {
    const session = await ada.client().sessions.create();
    expect((await session.info()).title).toBe("");
    const feed = new MutationRecorder(session, { after_event_id: 0 });
    await session.prompt("  hello there, what can you do?\nAnd a second line");
    // The title is stored by the time `prompt` resolves; the mutation tells live clients.
    expect((await session.info()).title).toBe("hello there, what can you do?…");
    expect(await feed.waitFor(isTitle)).toMatchObject({ title: "hello there, what can you do?…" });
    await feed.waitFor(isTurnFinish);
    await session.prompt("list files");
    await feed.waitFor(
      (mutation) => isTurnFinish(mutation) && feed.mutations.filter(isTurnFinish).length === 2,
    );
    expect((await session.info()).title).toBe("hello there, what can you do?…");
    expect(feed.mutations.filter(isTitle)).toHaveLength(1);
    feed.stop();
  });

  it("a long first prompt is cut at a word boundary", async () => {
    const session = await ada.client().sessions.create();
    await session.prompt(
      "Please read every file in the repository and write a summary of the architecture for new people",
    );
    expect((await session.info()).title).toBe(
      "Please read every file in the repository and write a summary…",
    );
  });

  it("a session created with a title keeps it; a rename wins over the auto title for good", async () => {
    const titled = await ada.client().sessions.create({ title: "Chosen" });
    await titled.prompt("hello");
    expect((await titled.info()).title).toBe("Chosen");

    const renamedFirst = await ada.client().sessions.create();
    await renamedFirst.rename("Named before any prompt");
    await renamedFirst.prompt("hello");
    expect((await renamedFirst.info()).title).toBe("Named before any prompt");

    const renamedAfter = await ada.client().sessions.create();
    const feed = new MutationRecorder(renamedAfter, { after_event_id: 0 });
    await renamedAfter.prompt("hello");
    expect((await renamedAfter.info()).title).toBe("hello");
    await feed.waitFor(isTurnFinish);
    await renamedAfter.rename("My own name");
    await renamedAfter.prompt("list files");
    await feed.waitFor(
      (mutation) => isTurnFinish(mutation) && feed.mutations.filter(isTurnFinish).length === 2,
    );
    expect((await renamedAfter.info()).title).toBe("My own name");
    expect(
      feed.mutations.filter(isTitle).map((mutation) => mutation.variant === "session" && mutation.title),
    ).toEqual(["hello", "My own name"]);
    feed.stop();
  });
});
