import { defineConfig } from 'prisma/config';

// The Prisma CLI is used here only for `prisma generate` (see scripts/prisma-generate.mjs);
// migrations are applied by apps/coordinator/src/db/migrate.ts.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/crawler' },
});
