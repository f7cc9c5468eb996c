import type { Config } from '@crawler/domain/config';
import {
  defineRedisScript,
  loadLua,
  type RedisClient,
  type RedisScript,
} from '@crawler/adapters/redis';
import { loginThrottleKeys } from '../keys';

const TAKE_COMMAND = 'login_take_attempt';
const TAKE_LUA = loadLua(new URL('./takeLoginAttempt-3.lua', import.meta.url));
const RETURN_COMMAND = 'login_return_attempt';
const RETURN_LUA = loadLua(new URL('./returnLoginAttempt-3.lua', import.meta.url));

/**
 * What takeLoginAttempt-3.lua answers first: the attempt was taken, or which limits refused it
 * (the sum of their bits: account 1, address 2, installation 4). The script declares the same
 * numbers as locals (login-throttle.test.ts keeps them in step).
 */
export const LoginAttemptReply = {
  /** The attempt is taken from every limit. */
  TAKEN: 0,
  /** Refused, nothing spent: the account is out of attempts. */
  ACCOUNT_LIMITED: 1,
  /** Refused, nothing spent: the client address is out of attempts. */
  ADDRESS_LIMITED: 2,
  /** Refused, nothing spent: both are out of attempts. */
  BOTH_LIMITED: 3,
  /** Refused, nothing spent: the installation is out of attempts (added to the others' bits). */
  GLOBAL_LIMITED: 4,
} as const;

/** One of the {@link LoginAttemptReply} numbers. */
export type LoginAttemptReply = (typeof LoginAttemptReply)[keyof typeof LoginAttemptReply];

/**
 * Who refused an attempt, by the script's answer: the account's or the address's limit when
 * either did (what the client can do something about), the installation's only when it alone did.
 */
function refusedBy(which: number): 'account' | 'address' | 'both' | 'global' {
  const client = which & LoginAttemptReply.BOTH_LIMITED;
  if (client === LoginAttemptReply.BOTH_LIMITED) return 'both';
  if (client === LoginAttemptReply.ACCOUNT_LIMITED) return 'account';
  if (client === LoginAttemptReply.ADDRESS_LIMITED) return 'address';
  return 'global';
}

/** How many login attempts are allowed at once, and how fast spent ones come back. */
export interface LoginLimits {
  /** Attempts one account may make at once (0 = no per-account limit). */
  accountBurst: number;
  /** One spent attempt of an account comes back every this many ms. */
  accountRefillMs: number;
  /** Attempts one client address (an IPv6 prefix of `ipv6PrefixBits`) may make at once (0 = no limit). */
  addressBurst: number;
  addressRefillMs: number;
  /** Attempts the whole installation may make at once (0 = no installation-wide limit). */
  globalBurst: number;
  globalRefillMs: number;
  /** An IPv6 client is its prefix of this many bits (LOGIN_IPV6_PREFIX, default 56). */
  ipv6PrefixBits: number;
}

export function loginLimitsFrom(config: Config): LoginLimits {
  return {
    accountBurst: config.LOGIN_ACCOUNT_BURST,
    accountRefillMs: config.LOGIN_ACCOUNT_REFILL_MS,
    addressBurst: config.LOGIN_ADDRESS_BURST,
    addressRefillMs: config.LOGIN_ADDRESS_REFILL_MS,
    globalBurst: config.LOGIN_GLOBAL_BURST,
    globalRefillMs: config.LOGIN_GLOBAL_REFILL_MS,
    ipv6PrefixBits: config.LOGIN_IPV6_PREFIX,
  };
}

export type LoginAttempt =
  { ok: true } | { ok: false; by: 'account' | 'address' | 'both' | 'global'; retryAfterMs: number };

/** The login limits' keys (built in ../keys.ts, the coordinator's key module). */
export { loginThrottleKeys };

/**
 * Login attempts per account, per client address and for the whole installation, in Redis
 * (shared by every coordinator). Each attempt spends one from every limit before the password
 * is checked, atomically, so parallel guesses cannot slip past the count; a successful login
 * gives its attempt back. An account, address or installation out of attempts is refused
 * without a password check until one comes back (`retryAfterMs`).
 */
export class LoginThrottle {
  private readonly takeScript: RedisScript;
  private readonly returnScript: RedisScript;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly limits: LoginLimits,
  ) {
    this.takeScript = defineRedisScript(redis, TAKE_COMMAND, 3, TAKE_LUA);
    this.returnScript = defineRedisScript(redis, RETURN_COMMAND, 3, RETURN_LUA);
  }

  /** Spends one attempt of `email` from `address`, or says who is out of attempts and until when. */
  async take(email: string, address: string | null): Promise<LoginAttempt> {
    const l = this.limits;
    const [which, waitMs] = (await this.takeScript(
      ...this.keys(email, address),
      l.accountBurst,
      l.accountRefillMs,
      l.addressBurst,
      l.addressRefillMs,
      l.globalBurst,
      l.globalRefillMs,
    )) as [number, number];
    if (which === LoginAttemptReply.TAKEN) return { ok: true };
    return { ok: false, by: refusedBy(which), retryAfterMs: Math.max(1, Math.ceil(waitMs)) };
  }

  /** Gives back the attempt {@link take} spent (a successful login, or one never checked). */
  async giveBack(email: string, address: string | null): Promise<void> {
    const l = this.limits;
    await this.returnScript(
      ...this.keys(email, address),
      l.accountBurst > 0 ? l.accountRefillMs : 0,
      l.addressBurst > 0 ? l.addressRefillMs : 0,
      l.globalBurst > 0 ? l.globalRefillMs : 0,
    );
  }

  private keys(email: string, address: string | null) {
    return loginThrottleKeys(this.prefix, email, address, this.limits.ipv6PrefixBits);
  }
}
