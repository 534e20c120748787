import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import type { Figure } from './types.ts';

export type Report = {
  mode: string;
  started_at: string;
  finished_at: string;
  duration_s_per_run: number;
  machine: { cpus: number; cpu_model: string; memory_gib: number; node: string };
  adapters: Record<string, string>;
  figures: Figure[];
};

export const machine = (): Report['machine'] => ({
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model ?? 'unknown',
  memory_gib: Math.round(totalmem() / 2 ** 30),
  node: process.version,
});

const number = (value: number | null | undefined, unit = ''): string => {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  return `${value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })}${unit ? ` ${unit}` : ''}`;
};

const row = (figure: Figure): string[] => [
  figure.item,
  figure.metric,
  number(figure.value, figure.unit),
  figure.baseline ? `${number(figure.baseline.value, figure.unit)} (${figure.baseline.label})` : '—',
  figure.ratio === null ? '—' : `${figure.ratio.toFixed(2)}×`,
  figure.targetText,
  figure.status,
  figure.note ?? '',
];

const HEADER = ['item', 'figure', 'measured', 'baseline, same run', 'ratio', 'target', 'status', 'note'];

export const markdownTable = (figures: Figure[]): string => {
  const escape = (cell: string) => cell.replace(/\|/g, '\\|');
  return [
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map(() => '---').join('|')}|`,
    ...figures.map((figure) => `| ${row(figure).map(escape).join(' | ')} |`),
  ].join('\n');
};

export const consoleTable = (figures: Figure[]): string => {
  const rows = [HEADER, ...figures.map(row)];
  const widths = HEADER.map((_, column) => Math.max(...rows.map((cells) => cells[column].length)));
  return rows.map((cells) => cells.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n');
};

/** Writes <name>.json and <name>.md under bench/results. */
export const writeReport = (directory: string, name: string, report: Report): { json: string; md: string } => {
  mkdirSync(directory, { recursive: true });
  const json = join(directory, `${name}.json`);
  const md = join(directory, `${name}.md`);
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  const adapters = Object.entries(report.adapters)
    .map(([port, kind]) => `${port}: ${kind}`)
    .join(', ');
  writeFileSync(
    md,
    [
      `# Benchmark results (${report.mode} adapters)`,
      '',
      `${report.started_at} · ${report.machine.cpus} × ${report.machine.cpu_model} · ${report.machine.memory_gib} GiB · Node ${report.machine.node} · ${report.duration_s_per_run} s per measured run · ${adapters}`,
      '',
      markdownTable(report.figures),
      '',
    ].join('\n'),
  );
  return { json, md };
};
