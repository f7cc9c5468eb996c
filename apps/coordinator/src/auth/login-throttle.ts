import type { Config } from '@crawler/domain/config';
import {
  defineRedisScript,
  loadLua,
  type RedisClient,
  type RedisScript,
} from '@crawler/adapters/redis';
import { loginThrottleKeys } from '../keys';

const TAKE_COMMAND = 'login_take_attempt';
const TAKE_LUA = loadLua(new URL('./takeLoginAttempt-2.lua', import.meta.url));
const RETURN_COMMAND = 'login_return_attempt';
const RETURN_LUA = loadLua(new URL('./returnLoginAttempt-2.lua', import.meta.url));

/**
 * What takeLoginAttempt-2.lua answers first: the attempt was taken, or which limits refused it.
 * The script declares the same numbers as locals (login-throttle.test.ts keeps them in step).
 */
export const LoginAttemptReply = {
  /** The attempt is taken from both limits. */
  TAKEN: 0,
  /** Refused, nothing spent: the account is out of attempts. */
  ACCOUNT_LIMITED: 1,
  /** Refused, nothing spent: the client address is out of attempts. */
  ADDRESS_LIMITED: 2,
  /** Refused, nothing spent: both are out of attempts. */
  BOTH_LIMITED: 3,
} as const;

/** One of the {@link LoginAttemptReply} numbers. */
export type LoginAttemptReply = (typeof LoginAttemptReply)[keyof typeof LoginAttemptReply];

/** Who refused an attempt, by the script's answer. */
const REFUSED_BY = {
  [LoginAttemptReply.ACCOUNT_LIMITED]: 'account',
  [LoginAttemptReply.ADDRESS_LIMITED]: 'address',
  [LoginAttemptReply.BOTH_LIMITED]: 'both',
} as const;

/** How many login attempts are allowed at once, and how fast spent ones come back. */
export interface LoginLimits {
  /** Attempts one account may make at once (0 = no per-account limit). */
  accountBurst: number;
  /** One spent attempt of an account comes back every this many ms. */
  accountRefillMs: number;
  /** Attempts one client address (an IPv6 /64) may make at once (0 = no limit). */
  addressBurst: number;
  addressRefillMs: number;
}

export function loginLimitsFrom(config: Config): LoginLimits {
  return {
    accountBurst: config.LOGIN_ACCOUNT_BURST,
    accountRefillMs: config.LOGIN_ACCOUNT_REFILL_MS,
    addressBurst: config.LOGIN_ADDRESS_BURST,
    addressRefillMs: config.LOGIN_ADDRESS_REFILL_MS,
  };
}

export type LoginAttempt =
  { ok: true } | { ok: false; by: 'account' | 'address' | 'both'; retryAfterMs: number };

/** The login limits' keys (built in ../keys.ts, the coordinator's key module). */
export { loginThrottleKeys };

/**
 * Login attempts per account and per client address, in Redis (shared by every coordinator).
 * Each attempt spends one from both limits before the password is checked, atomically, so
 * parallel guesses cannot slip past the count; a successful login gives its attempt back.
 * An account or address out of attempts is refused without a password check until one comes
 * back (`retryAfterMs`).
 */
export class LoginThrottle {
  private readonly takeScript: RedisScript;
  private readonly returnScript: RedisScript;

  constructor(
    redis: RedisClient,
    private readonly prefix: string,
    private readonly limits: LoginLimits,
  ) {
    this.takeScript = defineRedisScript(redis, TAKE_COMMAND, 2, TAKE_LUA);
    this.returnScript = defineRedisScript(redis, RETURN_COMMAND, 2, RETURN_LUA);
  }

  /** Spends one attempt of `email` from `address`, or says who is out of attempts and until when. */
  async take(email: string, address: string | null): Promise<LoginAttempt> {
    const l = this.limits;
    const [which, waitMs] = (await this.takeScript(
      ...loginThrottleKeys(this.prefix, email, address),
      l.accountBurst,
      l.accountRefillMs,
      l.addressBurst,
      l.addressRefillMs,
    )) as [LoginAttemptReply, number];
    if (which === LoginAttemptReply.TAKEN) return { ok: true };
    return { ok: false, by: REFUSED_BY[which], retryAfterMs: Math.max(1, Math.ceil(waitMs)) };
  }

  /** Gives back the attempt {@link take} spent (after a successful login). */
  async giveBack(email: string, address: string | null): Promise<void> {
    const l = this.limits;
    await this.returnScript(
      ...loginThrottleKeys(this.prefix, email, address),
      l.accountBurst > 0 ? l.accountRefillMs : 0,
      l.addressBurst > 0 ? l.addressRefillMs : 0,
    );
  }
}
