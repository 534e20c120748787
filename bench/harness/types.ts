import type { Context } from './context.ts';

/** PASS: meets its target; MISS: does not; INFO: no target (reported for reference); N/A: not measured. */
export type Status = 'PASS' | 'MISS' | 'INFO' | 'N/A';

/** A bound on one figure: on its value, or on its ratio to the baseline. */
export type Target = { on: 'value' | 'ratio'; op: '>=' | '<='; threshold: number };

/** One line of the results table. */
export type Figure = {
  item: string;
  metric: string;
  value: number | null;
  unit: string;
  baseline: { label: string; value: number } | null;
  ratio: number | null;
  targets: Target[];
  /** The targets as a person reads them (`≥ 0.8× baseline`). */
  targetText: string;
  status: Status;
  note?: string;
};

/**
 * A benchmark item: one file in bench/items/ exporting `item`. The harness loads every file there
 * (in file-name order), starts the service once, runs each item whose `available` says yes, and
 * records the service's peak RSS under each item's load.
 */
export type BenchItem = {
  /** Short label of the table (`1 breeds`). */
  name: string;
  /** What it must reach, in words (also the table in docs/performance.md). */
  target: string;
  /** null when it can run; otherwise why not (`GET /v1/breeds answers 404: not available yet`). */
  available?: (ctx: Context) => Promise<string | null>;
  run: (ctx: Context) => Promise<Figure[]>;
};
