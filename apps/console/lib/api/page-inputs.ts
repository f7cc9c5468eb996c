// What each view asks for when it opens. Its page's server asks the same, so the view starts
// with that answer; both import these values (a client module's constants would not reach
// the server as values).
import type { RouterInputs } from './router-types';

type In = RouterInputs;

/** The audit log's first page. */
export const AUDIT_PAGE = { limit: 50 } satisfies In['audit']['list'];
/** The host list before anything is typed. */
export const HOST_SEARCH = { q: '', limit: 100 } satisfies In['hosts']['list'];
/** Dead letters of every host. */
export const DEAD_LETTERS = { limit: 200 } satisfies In['deadLetters']['list'];
/** Seed lists, and the first page of all seeds. */
export const SEED_LISTS = { limit: 500 } satisfies In['seeds']['lists'];
export const SEEDS_PAGE = { limit: 100 } satisfies In['seeds']['list'];
/** Accounts and tokens. */
export const USERS = { limit: 200 } satisfies In['users']['list'];
export const TOKENS = { limit: 200 } satisfies In['tokens']['list'];
/** The charts' window when the overview opens. */
export const FIRST_WINDOW = { window: '15m' } satisfies In['stats']['series'];
