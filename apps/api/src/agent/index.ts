export { createDefaultAgent, DEFAULT_AGENT_ID } from "./create-default-agent.js";
export { DEFAULT_SYSTEM_PROMPT } from "./default-system-prompt.js";
