export interface HostListItem {
  host: string;
  fetches: number;
  last_fetch_at: string | null;
  errors: number;
  blocked: boolean;
  rate_limit_rps: number | null;
}

export interface FetchSummary {
  url: string;
  fetched_at: string;
  status: number;
  error_code: string;
  fetch_ms?: number;
  bytes?: number;
}

export interface HostAuditItem {
  at: string;
  /** Null for viewers: who made a change is for operators and admins. */
  actor: string | { label?: string } | null;
  action: string;
  before: unknown;
  after: unknown;
}

export interface RobotsSummary {
  verdict: 'rules' | 'allow_all' | 'disallow_all';
  root_allowed: boolean;
  crawl_delay_s: number | null;
  sitemaps: string[];
  allow_lines: number;
  disallow_lines: number;
}

/** `GET /v1/hosts/{host}`; the robots, fetch and audit parts only on newer coordinators. */
export interface HostDetail {
  host: string;
  policy: {
    rate_limit_rps: number | null;
    daily_budget: number | null;
    allowlisted: boolean | null;
    max_connections: number | null;
    blocked: boolean;
    effective_gap_ms: number;
    /** Pages per UTC day in effect; 0 = unlimited. */
    effective_daily_budget: number;
    effective_max_connections: number;
    /** Domain-suffix patterns (`*.example.com`) covering the host, longest first. */
    patterns: string[];
  };
  queue_length: number;
  next_allowed_at: string | null;
  leased: boolean;
  parked: string | null;
  robots?: {
    url?: string;
    status: number;
    error?: string | null;
    fetched_at: string;
    body: string;
    rules_summary?: RobotsSummary | string;
  } | null;
  recent_fetches?: FetchSummary[];
  recent_errors?: FetchSummary[];
  audit?: HostAuditItem[];
}

/** `GET /v1/hosts/{host}/block-patterns` (and the answer of adding or removing one). */
export interface BlockPatterns {
  host: string;
  kind: 'host' | 'suffix';
  /** Set on this host or pattern: canonical form, oldest first. */
  patterns: Array<{ pattern: string; created_at: string }>;
  /** From the `*.suffix` policies covering it (they apply too), longest first. */
  inherited: Array<{ from: string; pattern: string }>;
  changed?: boolean;
}
