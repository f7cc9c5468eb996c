// Types of scripts/console-build-state.mjs.
/** apps/console, absolute. */
export const CONSOLE_DIR: string;
/** True when the console's production build is missing or older than any of its sources. */
export function consoleBuildIsStale(): boolean;
