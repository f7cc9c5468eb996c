/** One sample of a Prometheus text exposition: `name{labels} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a `/metrics` answer (text format 0.0.4). */
export function samplesOf(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_s, c: string) => (c === 'n' ? '\n' : c));
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/**
 * Every series name a `/metrics` answer exports, whether or not it has samples yet: each
 * `# TYPE` line's metric, a histogram as its `_bucket`, `_sum` and `_count` series, a summary as
 * itself plus `_sum` and `_count`. A bare histogram name is not among them (PromQL cannot select
 * it), so a dashboard that uses one fails the check.
 */
export function exportedSeries(text: string): Set<string> {
  const names = new Set<string>();
  for (const m of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
    else if (type === 'summary') for (const s of ['', '_sum', '_count']) names.add(name + s);
    else names.add(name);
  }
  for (const s of samplesOf(text)) names.add(s.name);
  return names;
}

/** The value of the one sample of `name` whose labels include `labels`; undefined if none. */
export function valueOf(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
}
