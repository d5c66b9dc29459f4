import type { SessionCommit } from "../../ports/session-store.js";
import { planResume } from "./resume-plan.js";

/**
 * The Turn row's state a commit leaves behind (DESIGN §10.7), decided from the commit alone so that
 * every write path keeps the row true in the same transaction: a Turn's `start` makes it `running`;
 * a revision of its open assistant message makes it `waiting` when every open tool then waits for a
 * person (`planResume` says `parked`: nobody needs to hold it), else `running` (an answer that
 * made it runnable included, whichever process commits it). A Turn's finish is `ends_turn`.
 */
export function turnProgressOf(commit: SessionCommit): SessionCommit["turn"] {
  if (commit.turn) return commit.turn;
  const snapshot = commit.message?.snapshot;
  if (snapshot?.type === "assistant" && snapshot.status === "streaming" && snapshot.turn_id) {
    return {
      turn_id: snapshot.turn_id,
      state: planResume(snapshot).kind === "parked" ? "waiting" : "running",
    };
  }
  for (const mutation of [commit.preceding_mutation, commit.mutation]) {
    if (mutation?.variant === "turn" && mutation.type === "start") {
      return { turn_id: mutation.turn_id, state: "running" };
    }
  }
  return undefined;
}
