// A process that must not outlive its parent notices that the parent is gone: on Linux an
// orphan is re-parented (to init or the nearest subreaper), so its parent pid changes. Node has
// no prctl(PR_SET_PDEATHSIG); polling process.ppid (a live getppid()) needs no channel to the
// parent and works whatever killed it, SIGKILL included.
// CommonJS: scripts/stop-with-parent.cjs loads it with `--require`, also in worker threads.
'use strict';

/** How often the parent pid is read, ms. */
const PARENT_POLL_MS = 500;

/**
 * Calls `onGone` once, as soon as this process's parent is no longer `parentPid` (checked now
 * and every `intervalMs`). The timer does not keep the process alive.
 * @param {number} parentPid the parent this process was started by
 * @param {() => void} onGone
 * @param {number} [intervalMs]
 * @returns {() => void} stops watching
 */
function watchParent(parentPid, onGone, intervalMs = PARENT_POLL_MS) {
  let timer = null;
  const check = () => {
    if (process.ppid === parentPid) return;
    if (timer) clearInterval(timer);
    timer = null;
    onGone();
  };
  timer = setInterval(check, intervalMs).unref();
  check();
  return () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
}

/**
 * A pid from the environment (a whole number from 2 up: 0 and 1 are never a supervisor that can
 * go away), or null.
 * @param {string | undefined} raw
 */
function pidFrom(raw) {
  if (raw === undefined || !/^[1-9]\d{0,9}$/.test(raw)) return null;
  const pid = Number(raw);
  return pid >= 2 ? pid : null;
}

module.exports = { PARENT_POLL_MS, watchParent, pidFrom };
