import { parser } from '@prometheus-io/lezer-promql';

/** Grafana's interval variables, replaced by a duration PromQL accepts before parsing. */
const GRAFANA_INTERVALS = /\$__(rate_interval|interval|range)\b/g;

/**
 * The metric names a PromQL expression selects, parsed with Prometheus's own grammar
 * (@prometheus-io/lezer-promql): the name of every vector selector, whatever functions,
 * aggregations, label matchers, ranges and offsets surround it (`le`, `by (…)` labels and
 * function names are not metrics). Throws on a syntax error, on a Grafana variable other than
 * the interval ones, and on a selector without a plain metric name (`{__name__=~"…"}`), which
 * could not be checked.
 */
export function metricNamesOf(expr: string): string[] {
  const promql = expr.replace(GRAFANA_INTERVALS, '5m');
  if (promql.includes('$')) throw new Error(`unknown Grafana variable in: ${expr}`);
  const names: string[] = [];
  const cursor = parser.parse(promql).cursor();
  do {
    if (cursor.type.isError) throw new Error(`PromQL syntax error at ${cursor.from} in: ${promql}`);
    if (cursor.name === 'MetricName')
      throw new Error(`quoted metric name (cannot be checked) in: ${promql}`);
    if (cursor.name !== 'VectorSelector') continue;
    const selector = cursor.node;
    const id = selector.getChild('Identifier');
    if (!id) throw new Error(`a selector names no metric in: ${promql}`);
    names.push(promql.slice(id.from, id.to));
  } while (cursor.next());
  return names;
}

/** Every `expr` of a Grafana dashboard (panels, rows, nested panels), with its panel's title. */
export function dashboardExpressions(dashboard: unknown): { panel: string; expr: string }[] {
  const out: { panel: string; expr: string }[] = [];
  const walk = (node: unknown, panel: string): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, panel);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const o = node as Record<string, unknown>;
    const title = typeof o.title === 'string' ? o.title : panel;
    if (typeof o.expr === 'string') out.push({ panel: title, expr: o.expr });
    for (const [key, value] of Object.entries(o)) if (key !== 'expr') walk(value, title);
  };
  walk(dashboard, '(dashboard)');
  return out;
}
