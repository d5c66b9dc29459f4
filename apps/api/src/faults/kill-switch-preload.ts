// Preloaded with `node --import` into an API process that the fault suite starts with
// PARLEY_FAULT_PHASE set; installing the switch at load time is this file's whole purpose.
import { faultPhaseFromEnv, installKillSwitch } from "./kill-switch.js";

const phase = faultPhaseFromEnv(process.env);
if (phase) installKillSwitch(phase);
