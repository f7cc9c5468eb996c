import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { AppError } from './app-error';
import type { Services } from './services';

// 1. Context: the services, plus (later) the caller's identity.
export interface Context {
  services: Services;
}

// 2. Init: one error shape for every procedure; zod issues are flattened to field → message.
const t = initTRPC.context<Context>().create({
  errorFormatter({ shape, error }) {
    const cause = error.cause;
    return {
      ...shape,
      data: {
        ...shape.data,
        fields:
          cause instanceof ZodError
            ? cause.issues.map((i) => ({ path: i.path.join('.'), message: i.message }))
            : undefined,
        details: cause instanceof AppError ? cause.details : undefined,
      },
    };
  },
});

// 3. Procedures: AppErrors thrown by services become tRPC errors with the mapped code.
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof AppError) {
    throw new TRPCError({
      code: result.error.cause.trpcCode,
      message: result.error.cause.message,
      cause: result.error.cause,
    });
  }
  return result;
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors);
