import { listAudit } from '../../audit/list-audit';
import { listAuditInput } from '../../audit/audit.types';
import { loginInput } from '../../auth/auth.types';
import { login, logout, me } from '../../auth/login';
import { createToken, listTokens, revokeToken } from '../../tokens/manage-tokens';
import { createTokenInput, listTokensInput, revokeTokenInput } from '../../tokens/tokens.types';
import { createUser, listUsers, updateUser } from '../../users/manage-users';
import { createUserInput, listUsersInput, updateUserInput } from '../../users/users.types';
import { accountDeps, sessionDeps } from '../services';
import {
  adminProcedure,
  operatorProcedure,
  publicProcedure,
  router,
  viewerProcedure,
} from '../trpc';

/** Sessions: login sets the `crawler_session` cookie on the tRPC response. */
export const authRouter = router({
  login: publicProcedure.input(loginInput).mutation(async ({ ctx, input }) => ({
    user: await login(sessionDeps(ctx.services), ctx.request, input),
  })),
  logout: publicProcedure.mutation(async ({ ctx }) =>
    logout(sessionDeps(ctx.services), ctx.request, await ctx.authenticate().catch(() => null)),
  ),
  me: viewerProcedure.query(({ ctx }) => me(ctx.services, ctx.caller)),
});

export const usersRouter = router({
  list: adminProcedure
    .input(listUsersInput)
    .query(({ ctx, input }) => listUsers(ctx.services, input)),
  create: adminProcedure
    .input(createUserInput)
    .mutation(({ ctx, input }) => createUser(accountDeps(ctx.services), ctx.call, input)),
  update: adminProcedure
    .input(updateUserInput)
    .mutation(({ ctx, input }) =>
      updateUser(accountDeps(ctx.services), ctx.call, input.id, input.patch),
    ),
});

export const tokensRouter = router({
  list: viewerProcedure
    .input(listTokensInput)
    .query(({ ctx, input }) => listTokens(ctx.services, ctx.caller, input)),
  create: viewerProcedure
    .input(createTokenInput)
    .mutation(({ ctx, input }) => createToken(ctx.services, ctx.call, input)),
  revoke: viewerProcedure
    .input(revokeTokenInput)
    .mutation(({ ctx, input }) => revokeToken(ctx.services, ctx.call, input.id)),
});

export const auditRouter = router({
  list: operatorProcedure
    .input(listAuditInput)
    .query(({ ctx, input }) => listAudit(ctx.services.store, input)),
});
