import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from './generated/client';

export type Db = PrismaClient;
/** The client or an open transaction: repositories work on either. */
export type DbClient = PrismaClient | Prisma.TransactionClient;

/** The Prisma client over node-postgres (Prisma 7's driver adapter; no native engine). */
export function createDb(databaseUrl: string): Db {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 10 }) });
}
