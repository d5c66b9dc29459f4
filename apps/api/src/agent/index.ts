export { createDefaultAgent } from "./create-default-agent.js";
