import type { Interaction } from "@parley/sdk";
import { describe, expect, it } from "vitest";
import { buildApprovalResponse, describeOutcome, readApprovalPayload } from "./interaction-view";

function interaction(fields: Partial<Interaction>): Interaction {
  return {
    interaction_id: "interaction:1",
    interaction_type: "approval",
    status: "pending",
    request: {
      interaction_id: "interaction:1",
      turn_id: "turn:1",
      type: "approval",
      source: { type: "tool", tool_call_id: "call_1" },
      payload: { operation: "tool" },
      created_at: 1,
    },
    ...fields,
  };
}

describe("interaction view helpers", () => {
  it("builds approval responses whose outcome agrees with the decision", () => {
    expect(buildApprovalResponse("approved")).toEqual({
      type: "approval",
      outcome: "resolved",
      payload: { decision: "approved" },
    });
    expect(
      buildApprovalResponse("approved", { allow_tool_for_session: true, command_prefix: "npm test" }),
    ).toEqual({
      type: "approval",
      outcome: "resolved",
      payload: { decision: "approved", scope: "session", allow: { command_prefix: "npm test" } },
    });
    expect(buildApprovalResponse("denied")).toEqual({
      type: "approval",
      outcome: "denied",
      payload: { decision: "denied" },
    });
    expect(buildApprovalResponse("approved", { edited_input: { path: "b.md" } })).toEqual({
      type: "approval",
      outcome: "resolved",
      payload: { decision: "approved", edited_input: { path: "b.md" } },
    });
    expect(buildApprovalResponse("denied", { edited_input: { path: "b.md" } })).toEqual({
      type: "approval",
      outcome: "denied",
      payload: { decision: "denied" },
    });
  });

  it("reads shell and tool approval payloads, dropping mistyped fields", () => {
    expect(readApprovalPayload({ operation: "exec", command: "ls -la", cwd: "/w", reason: 3 })).toEqual({
      operation: "exec",
      command: "ls -la",
      cwd: "/w",
    });
    expect(
      readApprovalPayload({ operation: "tool", validated_input: { path: "a" }, model_explanation: "tidy" }),
    ).toEqual({ operation: "tool", validated_input: { path: "a" }, model_explanation: "tidy" });
    expect(readApprovalPayload({ operation: "rm" })).toBeNull();
    expect(readApprovalPayload(null)).toBeNull();
  });

  it("says how an interaction ended and who answered it", () => {
    const names = (id: string) => (id === "user:1" ? "Ada" : id);
    expect(describeOutcome(interaction({ status: "resolved", responded_by: "user:1" }), names)).toBe(
      "Approved by Ada",
    );
    expect(describeOutcome(interaction({ status: "denied", responded_by: "user:9" }), names)).toBe(
      "Denied by user:9",
    );
    const edited = {
      type: "approval",
      outcome: "resolved" as const,
      payload: { decision: "approved", edited_input: { path: "b" } },
    };
    expect(
      describeOutcome(interaction({ status: "resolved", responded_by: "user:1", response: edited }), names),
    ).toBe("Approved, edited by Ada");
    expect(
      describeOutcome(
        interaction({ status: "resolved", interaction_type: "question", responded_by: "user:1" }),
        names,
      ),
    ).toBe("Answered by Ada");
    expect(describeOutcome(interaction({ status: "cancelled", cancel_reason: "turn_stopped" }), names)).toBe(
      "Cancelled: the turn was stopped",
    );
  });
});
