-- The replay log keeps one row per commit (packages/db/src/session-store/session-log.ts): a commit
-- that logs two mutations writes one row, keyed by its second mutation's id, holding both as a JSON
-- array; the rows written before hold one mutation each and read the same. `mutation` becomes
-- `json`: a row is written once and read whole, and json's text is smaller than jsonb's binary
-- form for these small documents. The table is rewritten while this runs, which blocks its writes
-- (docs/deployment.md#migrations); instances of the previous release cannot read an array row and
-- are stopped before the upgrade.

-- AlterTable
ALTER TABLE "session_events" ALTER COLUMN "mutation" SET DATA TYPE JSON;
