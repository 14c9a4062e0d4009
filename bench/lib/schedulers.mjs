// The schedulers table: per model, thread count and scheduler, `gec run MODEL --scheduler S
// --threads T --iterations N --inputs D --check D --json F` (one process per round), the measured
// median against the cost model's estimate (`schedule.estimated_latency_ms` of gec's report,
// docs/scheduling.md), the streams and events used, and what `auto` chose.
import path from 'node:path';
import { runMeasured, lastLine, median, printTable, readJson } from './util.mjs';

export const SCHEDULERS = ['sequential', 'parallel', 'pipeline', 'auto'];

export function runSchedulers(ctx) {
  const rows = [];
  for (const m of ctx.models) {
    for (const threads of ctx.threads) {
      for (const sched of SCHEDULERS) {
        const row = { model: m.name, threads, scheduler: sched, measured_ms: null, estimated_ms: null, rounds: [] };
        for (let round = 0; round < ctx.rounds; ++round) {
          const json = path.join(ctx.work, `sched-${m.slug}-${threads}-${sched}-${round}.json`);
          const argv = [ctx.gec, 'run', m.file, '--quiet', '--scheduler', sched, '--threads', String(threads),
            '--iterations', String(ctx.iterations), '--json', json];
          if (m.inputs) argv.push('--inputs', m.inputs, '--check', m.inputs);
          if (m.inputs && m.maxRelL2) argv.push('--max-rel-l2', String(m.maxRelL2));
          ctx.progress(`schedulers: ${m.name} ${sched} ${threads}T round ${round + 1}/${ctx.rounds}`);
          const p = runMeasured(argv, { logFile: path.join(ctx.logs, `sched-${m.slug}-${threads}-${sched}-${round}.log`) });
          const j = readJson(json);
          if (p.status !== 0 || !j) {
            row.error = lastLine(p.stderr) || lastLine(p.stdout) || `gec exited with status ${p.status}`;
            break;
          }
          row.rounds.push(j.run?.median_ms ?? null);
          const s = j.schedule || {};
          Object.assign(row, { chosen: s.scheduler ?? null, streams: s.streams ?? null, events: s.events ?? null,
            stages: s.pipeline_stages ?? null, estimated_ms: s.estimated_latency_ms ?? null, reason: s.reason ?? '',
            calibrated: s.calibrated ?? null });
        }
        row.measured_ms = median(row.rounds);
        row.error_pct = row.measured_ms && row.estimated_ms ? 100 * (row.estimated_ms - row.measured_ms) / row.measured_ms : null;
        rows.push(row);
      }
      // auto against the fastest measured scheduler of the same model and thread count.
      const group = rows.filter((r) => r.model === m.name && r.threads === threads && r.measured_ms);
      const fastest = group.filter((r) => r.scheduler !== 'auto').sort((a, b) => a.measured_ms - b.measured_ms)[0];
      const auto = group.find((r) => r.scheduler === 'auto');
      if (fastest && auto) auto.vs_fastest = auto.measured_ms / fastest.measured_ms;
    }
  }
  return rows;
}

export function printSchedulers(rows, out) {
  if (!rows.length) { out('no scheduler rows'); return; }
  printTable([
    { head: 'model', left: true, cell: (r) => r.model },
    { head: 'T', cell: (r) => r.threads, digits: 0 },
    { head: 'scheduler', left: true, cell: (r) => r.scheduler + (r.scheduler === 'auto' && r.chosen ? `→${r.chosen}` : '') },
    { head: 'streams', cell: (r) => r.streams, digits: 0 },
    { head: 'events', cell: (r) => r.events, digits: 0 },
    { head: 'stages', cell: (r) => r.stages, digits: 0 },
    { head: 'measured ms', cell: (r) => r.measured_ms, digits: 2 },
    { head: 'estimated ms', cell: (r) => r.estimated_ms, digits: 2 },
    { head: 'error %', cell: (r) => r.error_pct, digits: 1 },
    { head: 'auto/fastest', cell: (r) => r.vs_fastest ?? null, digits: 3 },
    { head: 'error', left: true, cell: (r) => r.error ?? '' },
  ], rows, out);
  const cal = rows.find((r) => r.calibrated !== null && r.calibrated !== undefined);
  if (cal && !cal.calibrated) out('cost model: calibrated: false (defaults) — run `gec calibrate` on this machine first');
}
