// The other tables: memory plans (from gec's report), compile-time scaling on synthetic graphs,
// and ONNX node conformance.
import fs from 'node:fs';
import path from 'node:path';
import { runMeasured, lastLine, get, printTable, readJson, HarnessError } from './util.mjs';

// ---- memory ------------------------------------------------------------------------------
// Per model and planner: `gec compile MODEL --set memory.planner=P --report F`, whose "memory"
// key is {planner, level, arena_bytes, lower_bound_bytes, no_reuse_bytes} (docs/report.md).
// Every planner runs at level "aggressive"; the "naive" row at level "none" is the no-reuse plan.
export const PLANNERS = [['naive', 'none'], ['greedy_by_size', 'aggressive'], ['greedy_by_breadth', 'aggressive'],
  ['auto', 'aggressive']];

export function memoryRows(ctx, latencyRows) {
  const rows = [];
  const seen = new Set();
  for (const r of latencyRows) {
    if (seen.has(r.model)) continue;
    seen.add(r.model);
    for (const [planner, level] of PLANNERS) {
      const report = path.join(ctx.work, `memory-${r.model.replace(/[^A-Za-z0-9_.-]/g, '_')}-${planner}.json`);
      const p = runMeasured([ctx.gec, 'compile', r.file, '--quiet', '--set', `memory.planner="${planner}"`,
        '--set', `memory.level="${level}"`, '--report', report]);
      if (p.status !== 0) {
        rows.push({ model: r.model, planner, level, error: lastLine(p.stderr) || `exit ${p.status}` });
        continue;
      }
      const m = readJson(report).memory || {};
      const arena = m.arena_bytes ?? null, lower = m.lower_bound_bytes ?? null;
      rows.push({ model: r.model, planner, level, no_reuse: m.no_reuse_bytes ?? null, arena, lower_bound: lower,
        ratio: arena !== null && lower ? arena / lower : null });
    }
  }
  return rows;
}

export function printMemory(rows, out) {
  if (!rows.length) { out('no memory rows (the latency section lists the models)'); return; }
  const mib = (b) => (b === null ? null : b / (1 << 20));
  printTable([
    { head: 'model', left: true, cell: (r) => r.model },
    { head: 'planner', left: true, cell: (r) => r.planner },
    { head: 'level', left: true, cell: (r) => r.level },
    { head: 'no-reuse MiB', cell: (r) => mib(r.no_reuse), digits: 2 },
    { head: 'arena MiB', cell: (r) => mib(r.arena), digits: 2 },
    { head: 'lower bound MiB', cell: (r) => mib(r.lower_bound), digits: 2 },
    { head: 'arena/lower', cell: (r) => r.ratio, digits: 3 },
    { head: 'error', left: true, cell: (r) => r.error ?? '' },
  ], rows, out);
}

// ---- compile-time scaling ----------------------------------------------------------------
// Least-squares slope of log(time) against log(nodes): ~1 is linear, ~2 quadratic.
export function logLogSlope(points) {
  const p = points.filter(([n, t]) => n > 0 && t > 0).map(([n, t]) => [Math.log(n), Math.log(t)]);
  if (p.length < 2) return null;
  const mx = p.reduce((a, [x]) => a + x, 0) / p.length, my = p.reduce((a, [, y]) => a + y, 0) / p.length;
  const sxx = p.reduce((a, [x]) => a + (x - mx) ** 2, 0), sxy = p.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  return sxx > 0 ? sxy / sxx : null;
}

export function runScaling(ctx) {
  if (!fs.existsSync(ctx.genGraph)) {
    throw new HarnessError(`gen_graph not found at ${ctx.genGraph} (build it: cmake --build build --target gen_graph)`);
  }
  const dir = path.join(ctx.cacheDir, 'graphs');
  fs.mkdirSync(dir, { recursive: true });
  const rows = [];
  for (const kind of ctx.scalingKinds) {
    for (const n of ctx.scalingSizes) {
      const file = path.join(dir, `${kind}_${n}.onnx`);
      const g = runMeasured([ctx.genGraph, kind, String(n), file]);
      if (g.status !== 0) throw new HarnessError(`gen_graph ${kind} ${n}: ${lastLine(g.stderr)}`);
      // The least of `rounds` runs per size: the first run of a process pays for cold caches and
      // page faults that have nothing to do with the graph's size, and would flatten the small end.
      const runs = Math.max(1, ctx.rounds);
      const row = { kind, nodes: n, runs };
      for (let i = 0; i < runs && !row.error; ++i) {
        const json = path.join(ctx.work, `scaling_${kind}_${n}.json`);
        fs.rmSync(json, { force: true });
        const r = runMeasured([ctx.gec, 'run', file, '--iterations', '0', '--threads', '1', '--json', json],
          { logFile: path.join(ctx.logs, `scaling_${kind}_${n}.log`) });
        const j = readJson(json);
        if (r.status !== 0 || !j) { row.error = lastLine(r.stderr) || `gec exited with status ${r.status}`; break; }
        const least = (k, v) => { row[k] = row[k] === undefined ? v : Math.min(row[k], v); };
        least('import_ms', j.import_ms);
        least('compile_ms', j.compile_ms);
        least('first_run_ms', get(j, 'run', 'first_run_ms'));
        row.rss_kb = Math.max(row.rss_kb ?? 0, r.rssKb ?? 0) || undefined;
        row.kernels = j.kernels;
      }
      if (!row.error) row.total_ms = row.import_ms + row.compile_ms;
      ctx.progress(`scaling ${kind} ${n} nodes: ${row.error ? 'error: ' + row.error : row.total_ms.toFixed(1) + ' ms import+compile'}`);
      rows.push(row);
      fs.rmSync(file, { force: true });
    }
  }
  // The fit over all sizes, and the slope between the two largest (fixed costs such as loading
  // the plugins flatten the small end, so the last segment says more about large graphs).
  const slopes = {}, lastSlopes = {}, compileSlopes = {};
  for (const kind of ctx.scalingKinds) {
    const ok = rows.filter((r) => r.kind === kind && !r.error);
    const pts = ok.map((r) => [r.nodes, r.total_ms]);
    slopes[kind] = logLogSlope(pts);
    lastSlopes[kind] = pts.length > 2 ? logLogSlope(pts.slice(-2)) : null;
    compileSlopes[kind] = logLogSlope(ok.map((r) => [r.nodes, r.compile_ms]));
  }
  return { sizes: ctx.scalingSizes, kinds: ctx.scalingKinds, rows, slopes, last_segment_slopes: lastSlopes,
    compile_slopes: compileSlopes };
}

export function printScaling(s, out) {
  printTable([
    { head: 'graph', left: true, cell: (r) => r.kind },
    { head: 'nodes', cell: (r) => r.nodes, digits: 0 },
    { head: 'import ms', cell: (r) => r.import_ms, digits: 1 },
    { head: 'compile ms', cell: (r) => r.compile_ms, digits: 1 },
    { head: 'import+compile ms', cell: (r) => r.total_ms, digits: 1 },
    { head: 'first run ms', cell: (r) => r.first_run_ms, digits: 1 },
    { head: 'µs/node', cell: (r) => (r.total_ms ? (1000 * r.total_ms) / r.nodes : null), digits: 1 },
    { head: 'kernels', cell: (r) => r.kernels, digits: 0 },
    { head: 'RSS MB', cell: (r) => (r.rss_kb ? r.rss_kb / 1024 : null), digits: 0 },
    { head: 'error', left: true, cell: (r) => r.error ?? '' },
  ], s.rows, out);
  const f = (x) => (x === null || x === undefined ? '-' : x.toFixed(2));
  for (const [kind, slope] of Object.entries(s.slopes)) {
    const last = s.last_segment_slopes?.[kind];
    out(`log-log slope of import+compile time vs nodes (${kind}): ${f(slope)} over all sizes` +
        (last !== null && last !== undefined ? `, ${f(last)} between the two largest` : '') + '  (1 = linear, 2 = quadratic)');
    if (s.compile_slopes?.[kind] !== undefined)
      out(`log-log slope of compile time alone (import excluded) vs nodes (${kind}): ${f(s.compile_slopes[kind])} over all sizes`);
  }
}

// ---- conformance -------------------------------------------------------------------------
export function runConformance(ctx) {
  const dir = ctx.conformanceDir;
  if (!fs.existsSync(dir)) return { skipped: `${dir} does not exist` };
  const json = path.join(ctx.work, 'conformance.json');
  fs.rmSync(json, { force: true });
  const argv = [ctx.gec, 'conformance', dir, '--json', json];
  for (const f of ctx.conformanceFilters) argv.push('--filter', f);
  const r = runMeasured(argv, { logFile: path.join(ctx.logs, 'conformance.log') });
  const j = readJson(json);
  // Exit 1 means a claimed op failed: that is a result to report, not a harness error.
  if (!j || r.status > 1) throw new HarnessError(`gec conformance failed: ${lastLine(r.stderr) || `status ${r.status}`}`);
  const perOp = {};
  for (const c of j.cases || []) {
    for (const op of c.ops || []) {
      const e = (perOp[op] ??= { pass: 0, fail: 0, unsupported: 0, crash: 0, claimed: false });
      e[c.outcome] = (e[c.outcome] ?? 0) + 1;
      e.claimed ||= !!c.claimed;
    }
  }
  const prev = new Map((get(ctx.baseline, 'conformance', 'cases') || []).map((c) => [c.name, c.outcome]));
  const cases = (j.cases || []).map((c) => ({ name: c.name, outcome: c.outcome, ops: c.ops, detail: c.detail }));
  const regressions = cases.filter((c) => prev.get(c.name) === 'pass' && c.outcome !== 'pass');
  const newlyPassing = cases.filter((c) => prev.has(c.name) && prev.get(c.name) !== 'pass' && c.outcome === 'pass');
  return { dir, filters: ctx.conformanceFilters, totals: j.totals, claimed_failures: j.claimed_failures, per_op: perOp,
    baseline: prev.size ? ctx.baselinePath : null, regressions, newly_passing: newlyPassing.map((c) => c.name), cases };
}

export function printConformance(c, out) {
  if (c.skipped) { out(`conformance skipped: ${c.skipped}`); return; }
  const ops = Object.entries(c.per_op).map(([op, e]) => ({ op, ...e }));
  const shown = ops.filter((o) => o.claimed || o.pass || o.fail || o.crash).sort((a, b) => a.op.localeCompare(b.op));
  const hidden = ops.length - shown.length;
  printTable([
    { head: 'op', left: true, cell: (r) => r.op },
    { head: 'pass', cell: (r) => r.pass, digits: 0 },
    { head: 'fail', cell: (r) => r.fail, digits: 0 },
    { head: 'unsupported', cell: (r) => r.unsupported, digits: 0 },
    { head: 'crash', cell: (r) => r.crash, digits: 0 },
  ], shown, out);
  if (hidden) out(`(${hidden} more ops appear only in unsupported cases)`);
  const t = c.totals || {};
  out(`total: ${c.cases.length} cases, pass ${t.pass ?? '-'}, fail ${t.fail ?? '-'}, unsupported ${t.unsupported ?? '-'}, ` +
      `crash ${t.crash ?? '-'}; failures or crashes of claimed ops: ${c.claimed_failures ?? '-'}`);
  if (!c.baseline) out('no previous saved result to compare with');
  else if (!c.regressions.length) out(`no regressions against ${c.baseline} (${c.newly_passing.length} newly passing)`);
  else {
    out(`REGRESSIONS against ${c.baseline}: ${c.regressions.length} test(s) passed before and fail now:`);
    for (const r of c.regressions) out(`  ${r.name} [${r.outcome}] ${r.detail ?? ''}`);
  }
}
