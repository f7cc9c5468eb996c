-- Seed lists: named sets of seeds ("news-sites", "customer-42"), so operators can see and
-- manage where seeds came from. A seed (one per url_fp) may belong to several lists.

-- CreateTable
CREATE TABLE "seed_lists" (
    "id" BIGSERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "seed_lists_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "seed_lists_name_check" CHECK (char_length("name") BETWEEN 1 AND 100)
);

-- CreateTable
CREATE TABLE "seed_list_members" (
    "list_id" BIGINT NOT NULL,
    "seed_id" BIGINT NOT NULL,
    "added_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "seed_list_members_pkey" PRIMARY KEY ("list_id", "seed_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "seed_lists_name_key" ON "seed_lists"("name");

-- CreateIndex
CREATE INDEX "seed_list_members_seed_id_idx" ON "seed_list_members"("seed_id");

-- AddForeignKey
ALTER TABLE "seed_list_members" ADD CONSTRAINT "seed_list_members_list_id_fkey" FOREIGN KEY ("list_id") REFERENCES "seed_lists"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "seed_list_members" ADD CONSTRAINT "seed_list_members_seed_id_fkey" FOREIGN KEY ("seed_id") REFERENCES "seeds"("id") ON DELETE CASCADE ON UPDATE CASCADE;
