export { turnLeaseHolder } from "../leases/turn-lease-holder.js";
export { STORED_MESSAGE_SNAPSHOT } from "../session-store/message-parts.js";
export { LOG_ENTRIES, logEntriesBetween } from "../session-store/session-log.js";
export { resolveTestAdminUrl, TEST_ADMIN_URL_ENV } from "./admin-url.js";
export { findNatsServer, type PrivateNats, startPrivateNats } from "./private-nats.js";
export { createScratchDatabase, type ScratchDatabase } from "./scratch-database.js";
export { startTestBus, TEST_BUS_KINDS, type TestBus, type TestBusKind } from "./test-bus.js";
export { createTestDatabase, type TestDatabase } from "./test-database.js";
