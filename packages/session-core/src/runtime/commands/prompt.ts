import { ParleyError } from "../../errors.js";
import type { WithdrawPromptResult } from "../../schema/queued-prompt.js";
import type { SessionRecord } from "../../schema/session.js";
import { titleFromPrompt } from "../session/auto-title.js";
import type { TurnHandle } from "../session/session-facade.js";
import type { CommandHost } from "./command-host.js";
import { type PromptStartHost, startPromptHere } from "./prompt-start.js";

/**
 * `prompt()` (docs/behaviour.md#commands): a prompt that can start its Turn here at once does so in
 * one commit (`startPromptHere`). Otherwise the prompt is committed as a command, which assigns
 * its Turn (the active one it joins as a steer, or the new one it starts), and the call returns
 * at once. A retried `request_id` returns the first call's Turn and adds nothing; the same id
 * with another query is `invalid_input`. The Turn applies it: as its first user message when it
 * starts, or as a steer at its next checkpoint.
 */
export async function enqueuePrompt(
  host: PromptStartHost,
  query: string,
  request_id?: string,
  /** The session's record as the caller just read it (its configuration starts a new Turn here). */
  known?: SessionRecord,
): Promise<TurnHandle> {
  if (host.isShutDown) throw new Error("SessionRuntime was shut down");
  const { ids, clock } = host.context;
  const now = clock.now();
  const auto_title = titleFromPrompt(query);
  const new_turn_id = ids.turn(host.session_id, now);
  const queue = () => queuePrompt(host, { query, request_id, new_turn_id, now, auto_title });
  const startedHere = await startPromptHere(
    host,
    {
      query,
      turn_id: new_turn_id,
      created_at: now,
      ...(request_id === undefined ? {} : { request_id }),
      ...(auto_title === "" ? {} : { auto_title }),
      ...(known === undefined ? {} : { known }),
    },
    queue,
  );
  if (startedHere === null) return queue();
  if ("handle" in startedHere) return startedHere.handle;
  if (startedHere.auto_titled) await publishTitle(host, auto_title, now);
  return host.turnHandle(new_turn_id);
}

/** The prompt committed as a command (the usual path: the session has a Turn, or is driven elsewhere). */
async function queuePrompt(
  host: PromptStartHost,
  input: {
    query: string;
    request_id: string | undefined;
    new_turn_id: string;
    now: number;
    auto_title: string;
  },
): Promise<TurnHandle> {
  const { query, request_id, new_turn_id, now, auto_title } = input;
  const { store, ids } = host.context;
  const { command, created, auto_titled } = await store.enqueueCommand({
    session_id: host.session_id,
    command_id: ids.command(),
    command: { kind: "prompt", input: { query }, ...(request_id === undefined ? {} : { request_id }) },
    created_at: now,
    new_turn_id,
    ...(auto_title === "" ? {} : { auto_title }),
  });
  host.writer.queued.forget();
  if (command.kind !== "prompt" || command.turn_id === null) {
    throw new Error(`Command ${command.command_id} is not a prompt`);
  }
  if (!created && command.input.query !== query) {
    throw new ParleyError(
      "invalid_input",
      `session.prompt request_id ${request_id ?? ""} was already used with a different query`,
    );
  }
  if (auto_titled) await publishTitle(host, auto_title, now);
  const started = command.turn_id === new_turn_id;
  // It joined a running or waiting Turn: every client lists it as queued until that Turn takes it.
  if (created && !started) await publishQueueChange(host, now);
  // A prompt that joined the active Turn wakes nobody here: the Turn's holder reads it at its next
  // checkpoint, a waiting Turn takes it when its answer resumes it, and a Turn whose holder is
  // gone is claimed by recovery (DESIGN §10.7). Taking the lease for it would only raise the epoch.
  if (!started && !host.ownsTurn) return host.turnHandle(command.turn_id);
  host.wake(started);
  return host.turnHandle(command.turn_id);
}

/**
 * `withdrawPrompt()` (docs/behaviour.md#commands): the store cancels the prompt only while it is
 * still queued, so a Turn taking it at the same moment and this call never both succeed.
 */
export async function withdrawPrompt(host: CommandHost, request_id: string): Promise<WithdrawPromptResult> {
  const now = host.context.clock.now();
  const status = await host.context.store.withdrawPrompt({
    session_id: host.session_id,
    request_id,
    settled_at: now,
  });
  host.writer.queued.forget();
  if (status === "not_found") {
    throw new ParleyError("invalid_input", `No prompt with request_id ${request_id} in this session`);
  }
  if (status === "withdrawn") await publishQueueChange(host, now);
  return { status };
}

/** Tells subscribers the queued prompts changed (already committed); they re-read the list. */
async function publishQueueChange(host: CommandHost, now: number): Promise<void> {
  await host.writer.commitSessionChange({
    mutation: { ...host.writer.newMutationBase(now), variant: "session", type: "queue" },
  });
}

/** Tells subscribers the title a prompt gave the session (already committed with the prompt). */
async function publishTitle(host: CommandHost, title: string, now: number): Promise<void> {
  await host.writer.commitSessionChange({
    mutation: { ...host.writer.newMutationBase(now), variant: "session", type: "title", title },
  });
}
