import { describe, expect, it } from 'vitest';
import { dashboardExpressions, metricNamesOf } from './promql-metric-names';
import { exportedSeries, samplesOf, valueOf } from './prometheus-text';

describe('metric names of a PromQL expression', () => {
  it('finds every selector under functions, aggregations, matchers, ranges and offsets', () => {
    expect(
      metricNamesOf(
        'histogram_quantile(0.95, sum by (le, route) (rate(api_seconds_bucket{job="c"}[$__rate_interval])))',
      ),
    ).toEqual(['api_seconds_bucket']);
    expect(
      metricNamesOf(
        'sum(rate(a_total{code=~"x|y"}[5m] offset 1h)) / on (agent) group_left max by (agent) (b) > bool 3',
      ),
    ).toEqual(['a_total', 'b']);
    expect(metricNamesOf('max_over_time(sum(c)[10m:1m]) or vector(0)')).toEqual(['c']);
    expect(metricNamesOf('time() - 5')).toEqual([]);
  });

  it('refuses what it could not check', () => {
    expect(() => metricNamesOf('sum(rate(a_total[5m])')).toThrow(/syntax error/);
    expect(() => metricNamesOf('{__name__=~"crawler_.*"}')).toThrow(/names no metric/);
    expect(() => metricNamesOf('a_total{agent="$agent"}')).toThrow(/Grafana variable/);
  });

  it('collects the expressions of every panel, nested ones included', () => {
    const dashboard = {
      panels: [
        { title: 'A', targets: [{ expr: 'x' }, { expr: 'y' }] },
        { type: 'row', title: 'R', panels: [{ title: 'B', targets: [{ expr: 'z' }] }] },
      ],
    };
    expect(dashboardExpressions(dashboard)).toEqual([
      { panel: 'A', expr: 'x' },
      { panel: 'A', expr: 'y' },
      { panel: 'B', expr: 'z' },
    ]);
  });
});

describe('a /metrics answer', () => {
  const text = [
    '# HELP h_seconds A histogram',
    '# TYPE h_seconds histogram',
    '# HELP c_total A counter without samples yet',
    '# TYPE c_total counter',
    '# TYPE s summary',
    '# TYPE g gauge',
    'g{state="ready",coordinator="c1"} 4',
    'g{state="waiting",coordinator="c1"} 2',
  ].join('\n');

  it('exports a histogram as its _bucket, _sum and _count series only', () => {
    const names = exportedSeries(text);
    expect([...names].sort()).toEqual(
      [
        'h_seconds_bucket',
        'h_seconds_sum',
        'h_seconds_count',
        'c_total',
        's',
        's_sum',
        's_count',
        'g',
      ].sort(),
    );
  });

  it('reads sample values by labels', () => {
    const samples = samplesOf(text);
    expect(valueOf(samples, 'g', { state: 'waiting' })).toBe(2);
    expect(valueOf(samples, 'g', { state: 'leased' })).toBeUndefined();
  });
});
