import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { apiCall } from './api-call';
import { print, UsageError } from './cli-output';

export const ACCOUNT_USAGE = `  crawler tokens create --name NAME [--role R] [--expires ISO-TIME] [--user USER_ID]
                                                             a new API token (its secret is shown once)
  crawler tokens list [--limit N] [--cursor C]               your tokens (an admin sees all)
  crawler tokens revoke TOKEN_ID                             the token stops working at once
  crawler users create --email E --role viewer|operator|admin [--name N] [--password P]
                                                             a new account (admin; a password is
                                                             generated and printed when not given)
  crawler users list [--limit N] [--cursor C]                accounts (admin)
  crawler users update USER_ID [--role R] [--disable | --enable] [--password P] [--name N]
  crawler audit [--target T] [--action A] [--limit N] [--cursor C]
                                                             who changed what (operator, admin)`;

const page = { limit: { type: 'string' }, cursor: { type: 'string' } } as const;

function query(values: Record<string, string | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (typeof v === 'string') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** `crawler tokens …` */
export async function tokensCommand(sub: string | undefined, args: string[]): Promise<number> {
  if (sub === 'list') {
    const { values } = parseArgs({ args, options: page });
    return print(await apiCall('GET', `/v1/tokens${query(values)}`));
  }
  if (sub === 'create') {
    const { values } = parseArgs({
      args,
      options: {
        name: { type: 'string' },
        role: { type: 'string' },
        expires: { type: 'string' },
        user: { type: 'string' },
      },
    });
    if (!values.name) throw new UsageError('tokens create needs --name NAME');
    const out = await apiCall('POST', '/v1/tokens', {
      name: values.name,
      ...(values.role ? { role: values.role } : {}),
      ...(values.expires ? { expires_at: values.expires } : {}),
      ...(values.user ? { user_id: values.user } : {}),
    });
    console.error('Store the secret now: it is not shown again (only its hash is kept).');
    return print(out);
  }
  if (sub === 'revoke') {
    const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
    const id = positionals[0];
    if (!id) throw new UsageError('tokens revoke needs a TOKEN_ID (see `crawler tokens list`)');
    return print(await apiCall('DELETE', `/v1/tokens/${encodeURIComponent(id)}`));
  }
  throw new UsageError(`unknown command: tokens ${sub ?? ''}`);
}

/** `crawler users …` */
export async function usersCommand(sub: string | undefined, args: string[]): Promise<number> {
  if (sub === 'list') {
    const { values } = parseArgs({ args, options: page });
    return print(await apiCall('GET', `/v1/users${query(values)}`));
  }
  if (sub === 'create') {
    const { values } = parseArgs({
      args,
      options: {
        email: { type: 'string' },
        role: { type: 'string' },
        name: { type: 'string' },
        password: { type: 'string' },
      },
    });
    if (!values.email || !values.role)
      throw new UsageError('users create needs --email E and --role viewer|operator|admin');
    const password = values.password ?? randomBytes(15).toString('base64url');
    const user = await apiCall('POST', '/v1/users', {
      email: values.email,
      role: values.role,
      password,
      ...(values.name !== undefined ? { name: values.name } : {}),
    });
    return print(values.password === undefined ? { user, password } : { user });
  }
  if (sub === 'update') {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        role: { type: 'string' },
        disable: { type: 'boolean' },
        enable: { type: 'boolean' },
        password: { type: 'string' },
        name: { type: 'string' },
      },
    });
    const id = positionals[0];
    if (!id) throw new UsageError('users update needs a USER_ID (see `crawler users list`)');
    const patch: Record<string, unknown> = {};
    if (values.role) patch.role = values.role;
    if (values.disable) patch.disabled = true;
    if (values.enable) patch.disabled = false;
    if (values.password) patch.password = values.password;
    if (values.name !== undefined) patch.name = values.name;
    return print(await apiCall('PATCH', `/v1/users/${encodeURIComponent(id)}`, patch));
  }
  throw new UsageError(`unknown command: users ${sub ?? ''}`);
}

/** `crawler audit …` */
export async function auditCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...page, target: { type: 'string' }, action: { type: 'string' } },
  });
  return print(await apiCall('GET', `/v1/audit${query(values)}`));
}
