import type { ActionMessage } from "../../schema/messages.js";
import type { UnsequencedMutation } from "../../schema/mutation.js";
import type { SessionRecord } from "../../schema/session.js";
import type { SessionCommand, SetCommand } from "../../schema/session-command.js";
import {
  applyChange,
  changeOfSetInput,
  configMutationFields,
  configuredConfig,
  configuredPatch,
  describeChange,
  effectiveCatchUp,
  effectiveConfig,
  effectivePatch,
  isEmptyChange,
  type SessionConfig,
  setInputOfChange,
} from "../session/session-config.js";
import type { CommandHost } from "./command-host.js";

export const CONFIG_ACTION_TITLE = "Session configuration updated";

/**
 * `set()` with the settings that change: the configured values and the command that applies them
 * at the next checkpoint are committed together, whichever instance runs the Turn.
 */
export async function configure(host: CommandHost, input: SetCommand["input"]): Promise<void> {
  const { store, ids, clock } = host.context;
  const now = clock.now();
  const change = changeOfSetInput(input.input);
  await store.enqueueCommand({
    session_id: host.session_id,
    command_id: ids.command(),
    command: { kind: "set", input: { ...input, input: setInputOfChange(change) } },
    created_at: now,
    session_patch: { ...configuredPatch(change), updated_at: now },
  });
  // The Turn's next checkpoint reads the queue (see `QueuedCommandsSeen`).
  host.writer.queued.forget();
  if (!input.publish_mutation) return;
  await host.writer.commitSessionChange({ mutation: await configMutation(host, now) });
}

/**
 * At a checkpoint: the `set` command's effective change, committed with the command settled,
 * then (per its options) its Action is persisted (docs/behaviour.md#approval-modes).
 */
export async function applyConfig(
  host: CommandHost,
  command: SetCommand,
  turn_id: string,
  epoch: number,
): Promise<void> {
  const { clock, ids, logger } = host.context;
  const change = changeOfSetInput(command.input.input);
  const settle_commands = [{ command_id: command.command_id, status: "applied" as const }];
  if (isEmptyChange(change)) {
    await host.writer.commitSessionChange({ epoch, settle_commands });
    return;
  }
  host.settings.effective = applyChange(host.settings.effective, change);
  const now = clock.now();
  await host.writer.commitSessionChange({
    epoch,
    session_patch: { ...effectivePatch(change), updated_at: now },
    settle_commands,
    ...(command.input.publish_mutation
      ? { mutation: await configMutation(host, now, host.settings.effective) }
      : {}),
  });
  if (!command.input.persist_action) return;
  try {
    await host.writer.appendMessage(
      (sequence, at): ActionMessage => ({
        message_id: ids.configAction(host.session_id, at),
        session_id: host.session_id,
        turn_id,
        type: "action",
        action_type: "session_config",
        status: "completed",
        title: CONFIG_ACTION_TITLE,
        description: describeChange(change, (model_id) => host.settings.modelLabel(model_id)),
        sequence,
        revision: 1,
        created_at: at,
        updated_at: at,
      }),
      { epoch, publish: command.input.publish_mutation },
    );
  } catch (error) {
    // The configuration stays effective when its Action cannot be persisted (G65).
    logger?.error({ session_id: host.session_id, err: error }, "persisting the configuration action failed");
  }
}

/**
 * Before a Turn starts or resumes here: the effective settings are the stored ones. A configured
 * value that differs from them with no `set` command queued is a change whose command was lost
 * (a reopened session runs with effective = configured, G63, docs/behaviour.md#approval-modes);
 * it is applied silently.
 */
export async function refreshEffective(
  host: CommandHost,
  commands: SessionCommand[],
  record: SessionRecord | null,
): Promise<void> {
  if (!record) return;
  if (commands.some((command) => command.kind === "set")) {
    host.settings.effective = effectiveConfig(record);
    return;
  }
  const { effective, patch } = effectiveCatchUp(record);
  if (patch) await host.writer.commitSessionChange({ session_patch: patch });
  host.settings.effective = effective;
}

/** The `session`/`config` mutation: the stored configured values and `effective` (default: stored). */
async function configMutation(
  host: CommandHost,
  now: number,
  effective?: SessionConfig,
): Promise<UnsequencedMutation> {
  const record = await host.context.store.getSession(host.session_id);
  const configured = record ? configuredConfig(record) : host.settings.effective;
  return {
    ...host.writer.newMutationBase(now),
    variant: "session",
    type: "config",
    ...configMutationFields(
      configured,
      effective ?? (record ? effectiveConfig(record) : host.settings.effective),
    ),
  };
}
