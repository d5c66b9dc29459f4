-- The Turn lease's holder is the session-level advisory lock itself (issue 11): its backend's
-- `application_name` is `parley-turn-leases:<holder_id>`, so `pg_locks` joined with
-- `pg_stat_activity` names the live holder, and a crashed holder's lock is gone with its backend.
-- The `turn_leases` row duplicated that with a worse record (it outlived a dead holder) at a cost:
-- an upsert (heap row + index entry) at every acquisition and a DELETE, a commit of its own, at
-- every release. Nothing in the product read it; the fencing epoch stays in `sessions.lease_epoch`.
DROP TABLE "turn_leases";
