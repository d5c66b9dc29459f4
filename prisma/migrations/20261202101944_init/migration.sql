-- CreateTable
CREATE TABLE "sessions" (
    "session_id" TEXT NOT NULL,
    "owner_id" TEXT NOT NULL,
    "agent_id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "workspace_id" TEXT,
    "created_at" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL,
    "closed_at" BIGINT,
    "approval_mode" TEXT NOT NULL,
    "effective_approval_mode" TEXT NOT NULL,
    "last_event_id" INTEGER NOT NULL DEFAULT 0,
    "lease_epoch" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "messages" (
    "session_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "sequence" INTEGER NOT NULL,
    "revision" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT,
    "turn_id" TEXT,
    "created_at" BIGINT NOT NULL,
    "updated_at" BIGINT NOT NULL,
    "snapshot" JSONB NOT NULL,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("session_id","message_id")
);

-- CreateTable
CREATE TABLE "interactions" (
    "session_id" TEXT NOT NULL,
    "interaction_id" TEXT NOT NULL,
    "message_id" TEXT NOT NULL,
    "message_sequence" INTEGER NOT NULL,
    "part_sequence" INTEGER NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "tool_name" TEXT NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "turn_id" TEXT NOT NULL,
    "request" JSONB NOT NULL,
    "response" JSONB,
    "cancel_reason" TEXT,
    "responded_by" TEXT,
    "created_at" BIGINT NOT NULL,
    "resolved_at" BIGINT,

    CONSTRAINT "interactions_pkey" PRIMARY KEY ("session_id","interaction_id")
);

-- CreateTable
CREATE TABLE "session_events" (
    "session_id" TEXT NOT NULL,
    "event_id" INTEGER NOT NULL,
    "mutation" JSONB NOT NULL,
    "created_at" BIGINT NOT NULL,

    CONSTRAINT "session_events_pkey" PRIMARY KEY ("session_id","event_id")
);

-- CreateTable
CREATE TABLE "interaction_events" (
    "event_id" BIGSERIAL NOT NULL,
    "session_id" TEXT NOT NULL,
    "interaction_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "interaction" JSONB NOT NULL,
    "created_at" BIGINT NOT NULL,

    CONSTRAINT "interaction_events_pkey" PRIMARY KEY ("event_id")
);

-- CreateTable
CREATE TABLE "turn_leases" (
    "session_id" TEXT NOT NULL,
    "epoch" INTEGER NOT NULL,
    "holder_id" TEXT NOT NULL,
    "acquired_at" BIGINT NOT NULL,

    CONSTRAINT "turn_leases_pkey" PRIMARY KEY ("session_id")
);

-- CreateTable
CREATE TABLE "users" (
    "user_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("user_id")
);

-- CreateTable
CREATE TABLE "api_tokens" (
    "token_hash" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" BIGINT NOT NULL,

    CONSTRAINT "api_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- CreateIndex
CREATE INDEX "sessions_created_at_session_id_idx" ON "sessions"("created_at" DESC, "session_id" DESC);

-- CreateIndex
CREATE INDEX "sessions_owner_id_created_at_session_id_idx" ON "sessions"("owner_id", "created_at" DESC, "session_id" DESC);

-- CreateIndex
CREATE INDEX "messages_type_status_session_id_sequence_idx" ON "messages"("type", "status", "session_id", "sequence");

-- CreateIndex
CREATE UNIQUE INDEX "messages_session_id_sequence_key" ON "messages"("session_id", "sequence");

-- CreateIndex
CREATE INDEX "interactions_interaction_id_idx" ON "interactions"("interaction_id");

-- CreateIndex
CREATE INDEX "interactions_status_created_at_interaction_id_idx" ON "interactions"("status", "created_at", "interaction_id");

-- CreateIndex
CREATE INDEX "interactions_session_id_status_message_sequence_part_sequen_idx" ON "interactions"("session_id", "status", "message_sequence", "part_sequence", "ordinal");

-- CreateIndex
CREATE INDEX "interactions_tool_name_status_created_at_idx" ON "interactions"("tool_name", "status", "created_at");

-- CreateIndex
CREATE INDEX "interactions_type_status_created_at_idx" ON "interactions"("type", "status", "created_at");

-- CreateIndex
CREATE INDEX "interactions_status_resolved_at_interaction_id_idx" ON "interactions"("status", "resolved_at" DESC, "interaction_id");

-- CreateIndex
CREATE INDEX "interaction_events_session_id_event_id_idx" ON "interaction_events"("session_id", "event_id");

-- CreateIndex
CREATE UNIQUE INDEX "users_name_key" ON "users"("name");

-- CreateIndex
CREATE INDEX "api_tokens_user_id_idx" ON "api_tokens"("user_id");

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "interactions" ADD CONSTRAINT "interactions_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "session_events" ADD CONSTRAINT "session_events_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turn_leases" ADD CONSTRAINT "turn_leases_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("session_id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_tokens" ADD CONSTRAINT "api_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("user_id") ON DELETE CASCADE ON UPDATE CASCADE;
