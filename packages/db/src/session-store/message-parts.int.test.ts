import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { type JsonValue, SESSION_APPROVAL_RESPONSE_SCHEMA } from "@parley/session-core";
import {
  buildAssistantMessage,
  buildInteraction,
  buildTextPart,
  buildToolPart,
  interactionRecordsOf,
  messageMutationOf,
  partMutationOf,
  sequenced,
} from "@parley/session-core/testing";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_MIGRATIONS_DIR, migrateDatabase } from "../migrations/migrate-database.js";
import { resolveTestAdminUrl } from "../testing/admin-url.js";
import { createScratchDatabase, type ScratchDatabase } from "../testing/scratch-database.js";
import { PrismaSessionStore } from "./prisma-session-store.js";

const PARTS_MIGRATION = "20261206060000_message_parts";
const SESSION = "session:rows";
const MESSAGE = "message:rows";

let database: ScratchDatabase | undefined;
let pool: pg.Pool | undefined;
let earlierMigrations: string | undefined;
afterEach(async () => {
  await pool?.end();
  await database?.drop();
  if (earlierMigrations) await rm(earlierMigrations, { recursive: true, force: true });
  pool = database = earlierMigrations = undefined;
});

async function scratch(): Promise<{ url: string; pool: pg.Pool }> {
  database = await createScratchDatabase(await resolveTestAdminUrl(), "parley_parts");
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  return { url: database.url, pool };
}

/** A copy of the migrations that stops before parts as rows: a database as the previous release left it. */
async function migrationsBeforeParts(): Promise<string> {
  earlierMigrations = await mkdtemp(path.join(tmpdir(), "parley-migrations-"));
  for (const entry of await readdir(DEFAULT_MIGRATIONS_DIR, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name >= PARTS_MIGRATION) continue;
    await cp(path.join(DEFAULT_MIGRATIONS_DIR, entry.name), path.join(earlierMigrations, entry.name), {
      recursive: true,
    });
  }
  return earlierMigrations;
}

async function createSessionRow(db: pg.Pool): Promise<void> {
  await db.query(
    `INSERT INTO sessions (session_id, owner_id, agent_id, title, created_at, updated_at, approval_mode,
                           effective_approval_mode, last_event_id)
     VALUES ($1, 'user:1', 'agent:1', '', 1, 1, 'ask', 'ask', 0)`,
    [SESSION],
  );
}

const text = buildTextPart({ sequence: 1, text: "Let me look.", state: "done" });
const running = buildToolPart({ sequence: 2, tool_call_id: "call:1", state: "running" });
const completed = buildToolPart({
  sequence: 2,
  tool_call_id: "call:1",
  state: "completed",
  output: { ok: 1 },
  interactions: [
    buildInteraction({
      interaction_id: "interaction:1",
      tool_call_id: "call:1",
      status: "resolved",
      resolved_at: 5,
    }),
  ],
});
const first = buildAssistantMessage({
  session_id: SESSION,
  message_id: MESSAGE,
  sequence: 1,
  parts: [text, running],
});
const second = { ...first, revision: 2, updated_at: first.updated_at + 1, parts: [text, completed] };

describe("parts as rows in PostgreSQL (DESIGN §10.6)", () => {
  it("a revision writes the message's header and the parts it changed; the log keeps references", async () => {
    const { url, pool: db } = await scratch();
    await migrateDatabase(url);
    await createSessionRow(db);
    const store = new PrismaSessionStore(db);
    await store.commit({
      session_id: SESSION,
      message: { snapshot: first, expected_revision: 0 },
      mutation: messageMutationOf(first),
    });
    await store.commit({
      session_id: SESSION,
      message: { snapshot: second, expected_revision: 1, changed_part_ids: [completed.part_id] },
      interactions: interactionRecordsOf(second),
      mutation: partMutationOf(second, completed),
    });

    const rows = await db.query(
      `SELECT message_sequence, message_id, part_id, sequence, revision,
              body ? 'interactions' AS interactions, body ?| ARRAY['part_id', 'sequence'] AS columns
         FROM message_parts ORDER BY sequence`,
    );
    // The text part was written once, by revision 1; the tool part again by revision 2, without its
    // Interaction, which its `interactions` row holds. A body leaves out what the columns hold, and
    // a row names its message by the message's sequence, not by its long id.
    const named = { message_sequence: second.sequence, message_id: null };
    expect(rows.rows).toEqual([
      { ...named, part_id: text.part_id, sequence: 1, revision: 1, interactions: false, columns: false },
      { ...named, part_id: completed.part_id, sequence: 2, revision: 2, interactions: false, columns: false },
    ]);
    expect(await store.getMessage(SESSION, MESSAGE)).toStrictEqual(second);
    // Both entries come back whole: the message as stored now, type, turn and sequence from the rows.
    expect((await store.listEvents(SESSION, 0, 10)).map((event) => event.mutation)).toStrictEqual([
      { ...sequenced(messageMutationOf(first), 1), message: second },
      sequenced(partMutationOf(second, completed), 2),
    ]);
    // The snapshot holds neither the parts nor what the row's columns hold.
    const message = await db.query(
      "SELECT revision, snapshot ? 'parts' AS parts, snapshot ?| ARRAY['revision', 'session_id', 'status'] AS columns FROM messages",
    );
    expect(message.rows).toEqual([{ revision: 2, parts: false, columns: false }]);
    // Nor does an Interaction's request (`getInteraction` and the part above read it back whole).
    const interaction = await db.query(
      "SELECT request ?| ARRAY['interaction_id', 'turn_id', 'type', 'created_at'] AS columns FROM interactions",
    );
    expect(interaction.rows).toEqual([{ columns: false }]);
    expect((await store.getInteraction("interaction:1"))?.interaction).toStrictEqual(
      completed.interactions?.[0],
    );
    const logged = await db.query(
      `SELECT event_id, m ? 'part' AS part, m ? 'message' AS message,
              m ?| ARRAY['session_id', 'event_id', 'created_at', 'mutation_id'] AS columns,
              m ?| ARRAY['type', 'turn_id', 'sequence', 'message_id'] AS repeated,
              m->'message_sequence' AS message_sequence
         FROM session_events, LATERAL (SELECT mutation::jsonb) AS stored(m) ORDER BY event_id`,
    );
    // The message is named by its sequence, not its long id.
    expect(logged.rows).toEqual([
      { event_id: 1, part: false, message: false, columns: false, repeated: false, message_sequence: 1 },
      { event_id: 2, part: false, message: false, columns: false, repeated: false, message_sequence: 1 },
    ]);
    // Entries of the previous release name the message by `message_id`: they read back the same.
    await db.query(
      `INSERT INTO session_events (session_id, event_id, mutation, created_at)
       SELECT session_id, event_id + 2,
              ((mutation::jsonb - 'message_sequence') || jsonb_build_object('message_id', ${"$"}1::text))::json,
              created_at
         FROM session_events ORDER BY event_id`,
      [MESSAGE],
    );
    // The copies are other events: their ids (and the mutation ids derived from them) differ.
    const replayed = (await store.listEvents(SESSION, 0, 10)).map(
      ({ mutation: { event_id, mutation_id, ...rest } }) => rest,
    );
    expect(replayed.slice(2)).toStrictEqual(replayed.slice(0, 2));
  });

  it("an approval's shared response schema is stored as a marker and read back whole; any other schema as it is", async () => {
    const { url, pool: db } = await scratch();
    await migrateDatabase(url);
    await createSessionRow(db);
    const store = new PrismaSessionStore(db);
    const withSchema = (id: string, call: string, response_schema: JsonValue | undefined) => {
      const interaction = buildInteraction({ interaction_id: id, tool_call_id: call });
      if (response_schema !== undefined) interaction.request.response_schema = response_schema;
      return interaction;
    };
    const form = { type: "object", properties: { name: { type: "string" } } };
    const asked = [
      withSchema(
        "interaction:approval",
        "call:1",
        structuredClone(SESSION_APPROVAL_RESPONSE_SCHEMA) as unknown as JsonValue,
      ),
      withSchema("interaction:form", "call:2", form),
      withSchema("interaction:none", "call:3", undefined),
    ];
    const parts = asked.map((interaction, index) =>
      buildToolPart({
        sequence: index + 1,
        tool_call_id: interaction.request.source.tool_call_id,
        state: "waiting-user",
        interactions: [interaction],
      }),
    );
    const message = buildAssistantMessage({ session_id: SESSION, message_id: MESSAGE, sequence: 1, parts });
    await store.commit({
      session_id: SESSION,
      message: { snapshot: message, expected_revision: 0 },
      interactions: interactionRecordsOf(message),
      mutation: messageMutationOf(message),
    });

    const stored = await db.query(
      "SELECT interaction_id, request->'response_schema' AS response_schema FROM interactions ORDER BY interaction_id",
    );
    expect(stored.rows).toEqual([
      { interaction_id: "interaction:approval", response_schema: "session-approval" },
      { interaction_id: "interaction:form", response_schema: form },
      { interaction_id: "interaction:none", response_schema: null },
    ]);
    // Each reader puts it back: the row read (`requestOf`), the part's Interactions and the log
    // entry (`interactionJson`).
    for (const interaction of asked) {
      expect((await store.getInteraction(interaction.interaction_id))?.interaction).toStrictEqual(
        interaction,
      );
    }
    expect(await store.getMessage(SESSION, MESSAGE)).toStrictEqual(message);
    expect((await store.listEvents(SESSION, 0, 10)).map((event) => event.mutation)).toStrictEqual([
      sequenced(messageMutationOf(message), 1),
    ]);
  });

  it("the migration moves a previous release's parts into rows, and the log reads back the same", async () => {
    const { url, pool: db } = await scratch();
    await migrateDatabase(url, { migrationsDir: await migrationsBeforeParts() });
    await createSessionRow(db);
    // As the previous release wrote them: the whole message in its snapshot, copies in the log.
    await db.query(
      `INSERT INTO messages (session_id, message_id, sequence, revision, type, status, turn_id, created_at, updated_at, snapshot)
       VALUES ($1, $2, 1, 2, 'assistant', 'streaming', 'turn:1', $3, $4, $5)`,
      [SESSION, MESSAGE, second.created_at, second.updated_at, JSON.stringify(second)],
    );
    const [interaction] = completed.interactions ?? [];
    if (!interaction) throw new Error("the fixture holds an Interaction");
    await db.query(
      `INSERT INTO interactions (session_id, interaction_id, message_id, message_sequence, part_sequence, tool_call_id,
                                 tool_name, ordinal, type, status, turn_id, request, response, responded_by, created_at,
                                 resolved_at, inbox_at)
       VALUES ($1, $2, $3, 1, 2, 'call:1', $4, 0, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
      [
        SESSION,
        interaction.interaction_id,
        MESSAGE,
        completed.tool_name,
        interaction.interaction_type,
        interaction.status,
        interaction.request.turn_id,
        JSON.stringify(interaction.request),
        JSON.stringify(interaction.response ?? null),
        interaction.responded_by,
        interaction.request.created_at,
        interaction.resolved_at,
      ],
    );
    await db.query(
      "INSERT INTO interaction_events (session_id, interaction_id, kind, interaction, created_at) VALUES ($1, $2, 'resolved', $3, 5)",
      [SESSION, interaction.interaction_id, JSON.stringify(interaction)],
    );
    const legacy = [messageMutationOf(first), partMutationOf(second, completed)];
    for (const [index, mutation] of legacy.entries()) {
      await db.query(
        "INSERT INTO session_events (session_id, event_id, mutation, created_at) VALUES ($1, $2, $3, $4)",
        [
          SESSION,
          index + 1,
          JSON.stringify({ ...mutation, event_id: index + 1, mutation_id: `mutation:legacy-${index + 1}` }),
          mutation.created_at,
        ],
      );
    }
    await db.query("UPDATE sessions SET last_event_id = 2");

    await migrateDatabase(url);
    const store = new PrismaSessionStore(db);
    expect(await store.getMessage(SESSION, MESSAGE)).toStrictEqual(second);
    const events = await store.listEvents(SESSION, 0, 10);
    // Revision 1's message as stored now: revision 2, its tool `completed`.
    expect(events.map((event) => event.mutation)).toStrictEqual([
      // Entries of a release before keep the ids they were published with.
      { ...messageMutationOf(first), event_id: 1, mutation_id: "mutation:legacy-1", message: second },
      { ...partMutationOf(second, completed), event_id: 2, mutation_id: "mutation:legacy-2" },
    ]);
    const inline = await db.query(
      `SELECT (SELECT count(*)::int FROM messages WHERE snapshot ? 'parts') AS messages,
              (SELECT count(*)::int FROM message_parts WHERE body ? 'interactions') AS parts`,
    );
    expect(inline.rows).toEqual([{ messages: 0, parts: 0 }]);
    // The feed entry references the Interaction's row too.
    const feed = await db.query("SELECT interaction FROM interaction_events");
    expect(feed.rows).toEqual([{ interaction: null }]);
    expect(await store.listInteractionEvents(0, 10)).toStrictEqual([
      { event_id: 1, kind: "resolved", session_id: SESSION, interaction },
    ]);
  });
});
