// A Node service that runs one Turn and answers its approvals by a policy, then prints the result.
//
//   PARLEY_URL=http://localhost:4000 PARLEY_TOKEN=<token> node run-with-policy.mjs "write tmp/notes.txt: hello"
//
// Policy: reads and listings never ask; writes and deletes are approved under tmp/ and denied
// elsewhere (with a reason the model sees); shell commands are denied. Questions are left to a person.
import { createParleyClient } from "@parley/sdk";

const token = process.env.PARLEY_TOKEN;
const query = process.argv[2];
if (!token || !query) {
  console.error('Usage: PARLEY_TOKEN=<token> node run-with-policy.mjs "<prompt>"');
  process.exit(2);
}

/** @param {import("@parley/sdk").InteractionRequest} interaction */
function decide(interaction) {
  if (interaction.type !== "approval") return undefined;
  const tool = interaction.source.tool_name;
  const path = interaction.payload?.validated_input?.path;
  const underTmp =
    typeof path === "string" && (path === "tmp" || path.startsWith("tmp/")) && !path.includes("..");
  if ((tool === "write_file" || tool === "delete_file") && underTmp) {
    console.log(`policy: approve ${tool} ${path}`);
    return { type: "approval", outcome: "resolved", payload: { decision: "approved" } };
  }
  const reason = tool === "shell" ? "shell commands are not allowed" : `${path} is outside tmp/`;
  console.log(`policy: deny ${tool} (${reason})`);
  return { type: "approval", outcome: "denied", payload: { decision: "denied", reason } };
}

const client = createParleyClient({ url: process.env.PARLEY_URL ?? "http://localhost:4000", token });
const session = await client.sessions.create({ title: "policy service" });
const result = await session.run(query, { onInteraction: decide });
console.log(`turn ${result.status}: ${result.text}`);
await client.close();
