// Typed client calls from another service: approve every pending approval in the admin inbox.
//
//   PARLEY_URL=http://localhost:4000 PARLEY_TOKEN=<admin token> node approve-pending.mjs
//
// Plain Node ≥ 20, no extra options: the SDK brings its own WebSocket for Node.
import { createParleyClient, ParleyError } from "@parley/sdk";

const token = process.env.PARLEY_TOKEN;
if (!token) {
  console.error("Set PARLEY_TOKEN to an admin token (npm run parley -- token create --user NAME --admin)");
  process.exit(2);
}
const client = createParleyClient({ url: process.env.PARLEY_URL ?? "http://localhost:4000", token });

const { items } = await client.admin.interactions({ status: "pending", type: "approval" });
for (const item of items) {
  try {
    const result = await client.session(item.session_id).respond({
      interaction_id: item.interaction.interaction_id,
      response: { type: "approval", outcome: "resolved", payload: { decision: "approved" } },
    });
    console.log(
      `approved ${item.tool_name} in "${item.session_title}" (${item.owner_name}): ${result.status}`,
    );
  } catch (error) {
    // Someone else may have answered in the meantime: that is a typed error, not a failure.
    if (error instanceof ParleyError && error.code === "interaction_not_pending") continue;
    throw error;
  }
}
console.log(`${items.length} pending approval(s) handled`);
await client.close();
