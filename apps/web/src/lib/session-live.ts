import type {
  AssistantMessage,
  AssistantPart,
  LiveSessionMutation,
  SessionMessage,
  SessionMutation,
} from "@parley/sdk";

/**
 * What the view holds of one assistant message beyond its durable copy (DESIGN §10.6): live
 * mutations apply on top of the durable revision they build on, and the next durable revision
 * replaces them.
 *
 * An entry exists only while the view has seen every live mutation on `revision`: it is opened by a
 * durable mutation of the message that arrived through the subscription (everything live on that
 * revision follows it on the same feed), or by a live `message` (a whole snapshot). A message known
 * only from a snapshot, a re-read or a replay after a reconnect has no entry, because live text
 * streamed before then is gone: its deltas are ignored until its next checkpoint opens it again,
 * so the view never shows text with a hole in it (at most one stream checkpoint late).
 */
export interface LiveEntry {
  /** The durable revision the live mutations build on (0: the message is not committed yet). */
  readonly revision: number;
  /** The message with the live mutations applied; absent while none has changed the durable copy. */
  readonly message?: AssistantMessage;
}

export type LiveMessages = ReadonlyMap<string, LiveEntry>;

export function isLive(mutation: SessionMutation): mutation is LiveSessionMutation {
  return (
    (mutation.variant === "message" || mutation.variant === "part" || mutation.variant === "delta") &&
    mutation.live === true
  );
}

/** Applies a live mutation on top of `durable`; returns `live` itself when it does not apply. */
export function applyLive(
  live: LiveMessages,
  durable: ReadonlyMap<string, SessionMessage>,
  mutation: LiveSessionMutation,
): LiveMessages {
  const held = durable.get(mutation.message_id);
  if (mutation.variant === "message") {
    // An assistant message before (or between) its checkpoints, as a whole: it needs no history.
    if (mutation.message.type !== "assistant" || (held?.revision ?? 0) !== mutation.revision) return live;
    return withEntry(live, mutation.message_id, { revision: mutation.revision, message: mutation.message });
  }
  const entry = live.get(mutation.message_id);
  if (!entry || entry.revision !== mutation.revision) return live;
  const base =
    entry.message ?? (held?.type === "assistant" && held.revision === entry.revision ? held : null);
  if (!base) return live;
  if (mutation.variant === "part") {
    return withEntry(live, mutation.message_id, {
      revision: entry.revision,
      message: { ...base, parts: upsertPart(base.parts, mutation.part) },
    });
  }
  const index = base.parts.findIndex((part) => part.part_id === mutation.part_id);
  const part = base.parts[index];
  if (part?.type !== "text" && part?.type !== "reasoning") return live;
  const parts = [...base.parts];
  parts[index] = { ...part, text: part.text + mutation.delta };
  return withEntry(live, mutation.message_id, { revision: entry.revision, message: { ...base, parts } });
}

/**
 * After a durable mutation of `message_id` arrived through the subscription: live state on an older
 * revision is covered by it, and live mutations on the revision it brought follow it.
 */
export function followDurable(
  live: LiveMessages,
  message_id: string,
  mutation_revision: number,
  held: SessionMessage | undefined,
): LiveMessages {
  if (held?.type !== "assistant") return live;
  if (held.revision === mutation_revision) return withEntry(live, message_id, { revision: held.revision });
  return dropCovered(live, new Map([[message_id, held]]));
}

/** Drops the live state of every message whose durable copy moved past what it builds on. */
export function dropCovered(live: LiveMessages, durable: ReadonlyMap<string, SessionMessage>): LiveMessages {
  let next: Map<string, LiveEntry> | null = null;
  for (const [message_id, entry] of live) {
    const held = durable.get(message_id);
    if (held && held.revision > entry.revision) {
      next ??= new Map(live);
      next.delete(message_id);
    }
  }
  return next ?? live;
}

/** The messages as the view shows them: each durable one, or its live copy where there is one. */
export function withLive(
  durable: ReadonlyMap<string, SessionMessage>,
  live: LiveMessages,
): ReadonlyMap<string, SessionMessage> {
  let shown: Map<string, SessionMessage> | null = null;
  for (const [message_id, entry] of live) {
    if (!entry.message || (durable.get(message_id)?.revision ?? 0) > entry.revision) continue;
    shown ??= new Map(durable);
    shown.set(message_id, entry.message);
  }
  return shown ?? durable;
}

export function upsertPart(parts: readonly AssistantPart[], part: AssistantPart): AssistantPart[] {
  const index = parts.findIndex((held) => held.part_id === part.part_id);
  if (index === -1) return [...parts, part];
  const next = [...parts];
  next[index] = part;
  return next;
}

function withEntry(live: LiveMessages, message_id: string, entry: LiveEntry): LiveMessages {
  const next = new Map(live);
  next.set(message_id, entry);
  return next;
}
