// The ascend table: the simulated Ascend device (docs/ascend.md "Cycle model", "Timeline") per
// model and batch — `gec profile MODEL --backend ascend --soc-version S --simulate-only --report F
// [--input-shape NAME:B,...]` (compile for the Ascend backend, then price the offline model's tasks
// with the cycle model and the discrete-event timeline; the emulator does not run). There is no
// peer: no Ascend device is reachable, so the ratio is against the modelled chip's own Cube
// roofline (the model's FLOPs at the platform's peak fp16 rate). The cycle model's goal (docs/ascend.md): resnet50 at
// batch 32 within 2× of that roofline, its five costliest tasks Cube-bound convolutions.
import fs from 'node:fs';
import path from 'node:path';
import { decodeTensor } from './pb.mjs';
import { runMeasured, lastLine, printTable, readJson } from './util.mjs';

export const ASCEND_BATCHES = [1, 32];

// The first graph input's name and dims, from test_data_set_0/input_0.pb (null when absent).
function firstInput(m) {
  const f = m.inputs ? path.join(m.inputs, 'input_0.pb') : null;
  if (!f || !fs.existsSync(f)) return null;
  const t = decodeTensor(fs.readFileSync(f));
  return t.name && t.dims.length ? t : null;
}

export function runAscend(ctx) {
  const rows = [];
  for (const m of ctx.models) {
    const input = firstInput(m);
    for (const batch of ASCEND_BATCHES) {
      const row = { model: m.name, soc: ctx.soc, batch };
      const report = path.join(ctx.work, `ascend-${m.slug}-${batch}.json`);
      const argv = [ctx.gec, 'profile', m.file, '--quiet', '--backend', 'ascend', '--soc-version', ctx.soc,
        '--simulate-only', '--report', report];
      if (batch !== 1) {
        if (!input) { row.error = 'no test_data_set_0/input_0.pb to read the input name from'; rows.push(row); continue; }
        argv.push('--input-shape', `${input.name}:${[batch, ...input.dims.slice(1)].join(',')}`);
      }
      ctx.progress(`ascend: ${m.name} batch ${batch}`);
      const p = runMeasured(argv, { logFile: path.join(ctx.logs, `ascend-${m.slug}-${batch}.log`) });
      const s = p.status === 0 ? readJson(report)?.simulation : null;
      if (!s) {
        row.error = lastLine(p.stderr) || lastLine(p.stdout) || `gec exited with status ${p.status}`;
        rows.push(row);
        continue;
      }
      const nodes = [...(s.nodes || [])].sort((a, b) => b.us - a.us);
      Object.assign(row, {
        latency_us: s.latency_us, roofline_us: s.roofline_us, flops: s.flops,
        vs_roofline: s.roofline_us ? s.latency_us / s.roofline_us : null,
        bound_us: s.bound_us || null,
        bound_vs_roofline: s.bound_us && s.roofline_us ? s.bound_us / s.roofline_us : null,
        images_per_s: s.latency_us ? batch * 1e6 / s.latency_us : null,
        cube_utilization: s.cube_utilization, tasks: nodes.length,
        top: nodes.slice(0, 5).map((n) => ({ node: n.node, op_type: n.op_type, engine: n.engine, bound: n.bound, us: n.us })),
      });
      rows.push(row);
    }
  }
  return rows;
}

export function printAscend(rows, out) {
  if (!rows.length) { out('no ascend rows'); return; }
  const top = (r, k) => (r.top || []).slice(0, k)
    .map((n) => `${n.node.split('/').slice(-2).join('/')} ${n.engine}:${n.bound} ${n.us.toFixed(1)}µs`).join('; ');
  printTable([
    { head: 'model', left: true, cell: (r) => r.model },
    { head: 'batch', cell: (r) => r.batch, digits: 0 },
    { head: 'simulated ms', cell: (r) => (r.latency_us ?? null) && r.latency_us / 1000, digits: 3 },
    { head: 'images/s', cell: (r) => r.images_per_s ?? null, digits: 0 },
    { head: 'roofline ms', cell: (r) => (r.roofline_us ?? null) && r.roofline_us / 1000, digits: 3 },
    { head: 'sim/roofline', cell: (r) => r.vs_roofline ?? null, digits: 2 },
    { head: 'bounds ms', cell: (r) => (r.bound_us ?? null) && r.bound_us / 1000, digits: 3 },
    { head: 'bounds/roofline', cell: (r) => r.bound_vs_roofline ?? null, digits: 2 },
    { head: 'Cube util', cell: (r) => (r.cube_utilization ?? null) && 100 * r.cube_utilization, digits: 1 },
    { head: 'costliest tasks', left: true, cell: (r) => r.error ? `error: ${r.error}` : top(r, 3) },
  ], rows, out);
  const goal = rows.find((r) => r.model === 'resnet50' && r.batch === 32 && r.top);
  if (goal) {
    const cube = goal.top.filter((n) => n.engine === 'cube' && n.bound === 'cube').length;
    const bounds = goal.bound_vs_roofline ? ` (the sum of its tasks' lower bounds: ${goal.bound_vs_roofline.toFixed(2)}×)` : '';
    out(`cycle-model goal (resnet50, batch 32, ${goal.soc}): simulated/roofline ${goal.vs_roofline.toFixed(2)}${bounds} (goal ≤ 2); ` +
        `${cube} of the top 5 tasks Cube-bound: ${goal.top.map((n) => `${n.op_type}:${n.bound}`).join(', ')}`);
  }
}
