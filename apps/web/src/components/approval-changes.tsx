import type { Interaction, JsonValue } from "@parley/sdk";
import { PencilLine } from "lucide-react";
import { describeEdit, editedInputOf, type FieldChange } from "@/lib/approval-edit";
import { formatJson, unifiedDiff } from "@/lib/interaction-view";
import { DiffView } from "./diff-view";

/**
 * An approval answered with an edit: who edited it and, per changed field, what changed (text as a
 * diff, other values before and after). The request above it still shows the call as it was asked.
 */
export function ApprovalChanges({
  interaction,
  validated_input,
  nameOf,
}: {
  interaction: Interaction;
  validated_input: JsonValue | undefined;
  nameOf: (user_id: string) => string;
}) {
  const edited = editedInputOf(interaction);
  if (edited === undefined) return null;
  const changes = describeEdit(validated_input, edited);
  const who = interaction.responded_by ? ` by ${nameOf(interaction.responded_by)}` : "";
  return (
    <section className="approval-section approval-changes" data-testid="approval-changes">
      <p className="section-label icon-text">
        <PencilLine size={13} aria-hidden />
        <span data-testid="edited-by">Edited{who} before approving; the call ran with these changes</span>
      </p>
      {changes.length === 0 ? (
        <p className="muted small">The edit left every field as it was asked.</p>
      ) : (
        changes.map((change) => <ChangedField key={change.key} change={change} />)
      )}
    </section>
  );
}

function ChangedField({ change }: { change: FieldChange }) {
  const { key, before, after } = change;
  if (typeof before === "string" && typeof after === "string") {
    return (
      <div className="changed-field" data-testid={`changed-${key}`}>
        <p className="small">
          <code>{key}</code>
        </p>
        <DiffView lines={unifiedDiff(before, after)} label={`Changes to ${key}:`} />
      </div>
    );
  }
  return (
    <div className="changed-field" data-testid={`changed-${key}`}>
      <p className="small">
        <code>{key}</code>: <del>{before === undefined ? "(not set)" : formatJson(before)}</del> →{" "}
        <ins>{after === undefined ? "(removed)" : formatJson(after)}</ins>
      </p>
    </div>
  );
}
