// Preloaded (`node --require`) into every child that scripts/supervise.mjs starts: a child whose
// supervisor is gone — `npm start` killed with SIGKILL, crashed — stops itself as if it had
// been asked to (SIGTERM to its process group: an agent drains its leases, the coordinator and
// the console close), and its group is killed if it is still there after STOP_GRACE_MS.
// The supervisor passes its pid in CRAWLER_SUPERVISOR_PID (the child's parent pid read here
// could already be init's if the supervisor died while the child started). Removed from the
// environment at once, so that what the child starts in turn does not watch the wrong parent.
// CommonJS and `--require`, not `--import`: worker threads inherit the preload (it does nothing
// there), and with an ESM preload one agent's parse worker (piscina, which require()s its ES
// module) once aborted Node 20 in its drain ("v8::Module::IsGraphAsync must be used on an
// instantiated module"); a CommonJS preload keeps the ESM loader out of every thread's start.
'use strict';
const { isMainThread } = require('node:worker_threads');
const { pidFrom, watchParent } = require('./parent-watch.cjs');

/** How long an orphan may take to stop by itself before its group is killed (an agent's drain). */
const STOP_GRACE_MS = 45_000;

const supervisor = pidFrom(process.env.CRAWLER_SUPERVISOR_PID);
delete process.env.CRAWLER_SUPERVISOR_PID;

/** Signals this process's group (supervise.mjs runs each child as a group leader), else itself. */
function signalOwnGroup(signal) {
  try {
    process.kill(-process.pid, signal);
  } catch {
    process.kill(process.pid, signal);
  }
}

if (isMainThread && supervisor !== null) {
  // The supervisor read this process's stdout and stderr: once it is gone, writing there fails
  // with EPIPE. That must not crash a child in the middle of its drain (console.* and pino
  // already ignore it; a plain process.stderr.write would not).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
      if (err?.code !== 'EPIPE') throw err;
    });
  }
  watchParent(supervisor, () => {
    console.error(`✗ supervisor (pid ${supervisor}) is gone: stopping`);
    setTimeout(() => signalOwnGroup('SIGKILL'), STOP_GRACE_MS).unref();
    signalOwnGroup('SIGTERM');
  });
}
