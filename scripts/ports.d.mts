// Types of scripts/ports.mjs.
/** `what` listens on `host:port`; the environment variable `variable` changes the port. */
export interface Listener {
  what: string;
  host: string;
  port: number;
  variable: string;
  /** Appended to the advice to set `variable` (how it applies). */
  hint?: string;
}

export interface StackPorts {
  coordinatorPort: number;
  coordinatorMetricsPort: number;
  metricsBase: number;
  consolePort: number;
  demoPort: number;
}

/** The ports of `npm start` from the environment, or what is wrong with them. */
export function stackPorts(
  env: NodeJS.ProcessEnv,
  agentCount: number,
  demo: boolean,
): StackPorts | string;
/** Everything `npm start` listens on (the synthetic web's addresses with a demo port). */
export function stackListeners(
  env: NodeJS.ProcessEnv,
  agentCount: number,
  ports: StackPorts,
): Listener[];
/** The listeners that cannot listen now, with the error code (port 0 is not checked). */
export function unavailable(listeners: Listener[]): Promise<Array<Listener & { code: string }>>;
/** One line per port and variable that failed. */
export function describeUnavailable(failed: Array<Listener & { code: string }>): string[];
/** The reason to stop everything in a child's line saying its listen failed, or null. */
export function listenFailure(name: string, line: string, listeners: Listener[]): string | null;
