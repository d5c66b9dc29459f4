// Preloaded with `node --import` into an API process that a test starts with
// PARLEY_FAULT_DROP_NOTICES=received; installing the drop at load time is this file's whole purpose.
import { DROP_NOTICES_ENV, DROP_NOTICES_MODE, installNoticeDrop } from "./notice-faults.js";

const mode = process.env[DROP_NOTICES_ENV];
if (mode === DROP_NOTICES_MODE) installNoticeDrop();
else if (mode !== undefined)
  throw new Error(`${DROP_NOTICES_ENV} must be "${DROP_NOTICES_MODE}", not "${mode}"`);
