import { listAudit } from '../../audit/list-audit';
import { listAuditInput } from '../../audit/audit.types';
import { loginInput } from '../../auth/auth.types';
import { login, logout, me } from '../../auth/login';
import { createToken, listTokens, revokeToken } from '../../tokens/manage-tokens';
import { createTokenInput, listTokensInput, revokeTokenInput } from '../../tokens/tokens.types';
import { createUser, listUsers, updateUser } from '../../users/manage-users';
import { createUserInput, listUsersInput, updateUserInput } from '../../users/users.types';
import { rest, SMALL_BODY_BYTES } from '../api-meta';
import { accountDeps, sessionDeps } from '../services';
import {
  adminProcedure,
  operatorProcedure,
  publicProcedure,
  router,
  viewerProcedure,
} from '../trpc';

/** Sessions: login sets the `crawler_session` cookie on the response (REST and tRPC alike). */
export const authRouter = router({
  login: publicProcedure
    .meta(
      rest('POST', '/v1/auth/login', 'Logs in; sets the crawler_session cookie', {
        maxBodyBytes: SMALL_BODY_BYTES,
        errors: ['UNAUTHENTICATED', 'LOGIN_THROTTLED', 'LOGIN_BUSY'],
      }),
    )
    .input(loginInput)
    .mutation(async ({ ctx, input }) => ({
      user: await login(sessionDeps(ctx.services), ctx.request, input),
    })),
  // Logging out with an ended session still clears the cookie.
  logout: publicProcedure
    .meta(rest('POST', '/v1/auth/logout', 'Ends the session; clears the cookie'))
    .mutation(async ({ ctx }) =>
      logout(sessionDeps(ctx.services), ctx.request, await ctx.authenticate().catch(() => null)),
    ),
  me: viewerProcedure
    .meta(
      rest(
        'GET',
        '/v1/auth/me',
        'The caller’s account, effective role, and whether a token or a session was used',
      ),
    )
    .query(({ ctx }) => me(ctx.services, ctx.caller)),
});

/** Accounts (admin). */
export const usersRouter = router({
  list: adminProcedure
    .meta(rest('GET', '/v1/users', 'Accounts'))
    .input(listUsersInput)
    .query(({ ctx, input }) => listUsers(ctx.services, input)),
  create: adminProcedure
    .meta(
      rest('POST', '/v1/users', 'Creates an account (409 if the email has one)', {
        maxBodyBytes: SMALL_BODY_BYTES,
        errors: ['CONFLICT'],
      }),
    )
    .input(createUserInput)
    .mutation(({ ctx, input }) => createUser(accountDeps(ctx.services), ctx.call, input)),
  update: adminProcedure
    .meta(
      rest(
        'PATCH',
        '/v1/users/{id}',
        'Changes an account (409: the last active admin cannot be demoted or disabled)',
        { bodyField: 'patch', maxBodyBytes: SMALL_BODY_BYTES, errors: ['NOT_FOUND', 'CONFLICT'] },
      ),
    )
    .input(updateUserInput)
    .mutation(({ ctx, input }) =>
      updateUser(accountDeps(ctx.services), ctx.call, input.id, input.patch),
    ),
});

/** API tokens: everyone manages their own, admins everyone's. */
export const tokensRouter = router({
  list: viewerProcedure
    .meta(rest('GET', '/v1/tokens', 'API tokens (your own; admins: everyone’s)'))
    .input(listTokensInput)
    .query(({ ctx, input }) => listTokens(ctx.services, ctx.caller, input)),
  create: viewerProcedure
    .meta(
      rest('POST', '/v1/tokens', 'Creates an API token (the secret is shown once)', {
        maxBodyBytes: SMALL_BODY_BYTES,
        errors: ['FORBIDDEN', 'NOT_FOUND', 'CONFLICT'],
      }),
    )
    .input(createTokenInput)
    .mutation(({ ctx, input }) => createToken(ctx.services, ctx.call, input)),
  revoke: viewerProcedure
    .meta(
      rest(
        'DELETE',
        '/v1/tokens/{id}',
        'Revokes a token (own; admins any) and every token created with it',
        { errors: ['NOT_FOUND'] },
      ),
    )
    .input(revokeTokenInput)
    .mutation(({ ctx, input }) => revokeToken(ctx.services, ctx.call, input.id)),
});

/** The audit log (operators and admins: it names accounts and what they did). */
export const auditRouter = router({
  list: operatorProcedure
    .meta(rest('GET', '/v1/audit', 'The audit log, newest first'))
    .input(listAuditInput)
    .query(({ ctx, input }) => listAudit(ctx.services.store, input)),
});
