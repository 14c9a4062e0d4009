// Latency: GE (`gec run --iterations`) and the ORT peer (ort_run.mjs) on the same inputs,
// alternating per round (GE first in odd rounds, ORT first in even ones, so a slow drift of the
// machine does not favour one side), at each thread count.
import fs from 'node:fs';
import path from 'node:path';
import { runMeasured, lastLine, median, get, printTable, readJson, HarnessError, peakAt } from './util.mjs';
import { decodeTensor, encodeTensor, dataTypeOf, withInputShapes } from './pb.mjs';

// The latency goal of a row: GE's median ≤ max(GOAL_ORT_RATIO × ORT's median, the time the
// model's Conv/MatMul/Gemm FLOPs take at GOAL_PEAK_SHARE of the measured peak). The FLOPs are
// GE's count of the imported model at the row's shapes (report key `dense_flops`, docs/report.md).
export const GOAL_ORT_RATIO = 0.90;
export const GOAL_PEAK_SHARE = 0.92;

// Disturbed rounds (bench/README.md): before each multi-thread GE/ORT pair, bin/xcore_probe
// measures an OpenMP fork/join and a cross-core handoff of 256 KiB. A round whose handoff takes
// more than DISTURBED_RATIO × the run's best at that thread count (or whose fork/join does) ran
// while the VM slowed its cross-core traffic (several-fold, for minutes, both engines alike); a
// row's medians then use its other rounds, and a row with no other round is flagged.
export const DISTURBED_RATIO = 1.5;

function probeCores(ctx, threads) {
  if (threads < 2 || !fs.existsSync(ctx.xcoreProbe)) return null;
  const r = runMeasured([ctx.xcoreProbe, '--threads', String(threads)], { logFile: path.join(ctx.logs, `xcore_t${threads}.log`) });
  try {
    const j = JSON.parse(lastLine(r.stdout));
    return { region_us: j.region_us, handoff_us: j.handoff_us };
  } catch {
    return null;
  }
}

// The Debian interpreter, whose python3-onnx scripts/bootstrap installs (a python3 earlier on PATH,
// e.g. pyenv's, may not have onnx).
const PYTHON = fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

function runGe(ctx, model, threads, round) {
  const tmp = path.join(ctx.work, `ge_${model.slug}_t${threads}_r${round}.json`);
  fs.rmSync(tmp, { force: true });
  const argv = [ctx.gec, 'run', model.file, '--iterations', String(ctx.iterations), '--threads', String(threads),
    '--json', tmp];
  if (model.inputs) argv.push('--inputs', model.inputs, '--check', model.inputs);
  if (model.inputs && model.maxRelL2) argv.push('--max-rel-l2', String(model.maxRelL2));
  for (const [name, dims] of Object.entries(model.inputShapes ?? {})) argv.push('--input-shape', `${name}:${dims.join(',')}`);
  const r = runMeasured(argv, { logFile: path.join(ctx.logs, `ge_${model.slug}_t${threads}_r${round}.log`) });
  const j = readJson(tmp);
  const rec = { round, status: r.status, rss_kb: r.rssKb, wall_ms: r.ms };
  if (r.status > 1 || !j) {
    rec.error = lastLine(r.stderr) || `gec exited with status ${r.status}`;
    return rec;
  }
  const checks = get(j, 'run', 'check');
  Object.assign(rec, {
    median_ms: get(j, 'run', 'median_ms'),
    min_ms: get(j, 'run', 'min_ms'),
    first_run_ms: get(j, 'run', 'first_run_ms'),
    import_ms: get(j, 'import_ms'),
    compile_ms: get(j, 'compile_ms'),
    kernels: get(j, 'kernels'),
    nodes_before: get(j, 'nodes_before'),
    dense_flops: get(j, 'dense_flops'),
    check: Array.isArray(checks) ? (checks.every((c) => c.ok) ? 'PASS' : 'FAIL') : null,
    report: j,  // the whole gec report: later keys (memory, fusions, ...) are read from here
  });
  return rec;
}

function runOrt(ctx, model, threads, round, { optimizedModel } = {}) {
  const tag = optimizedModel ? 'count' : `t${threads}_r${round}`;
  const tmp = path.join(ctx.work, `ort_${model.slug}_${tag}.json`);
  fs.rmSync(tmp, { force: true });
  const argv = [process.execPath, path.join(ctx.benchDir, 'lib', 'ort_run.mjs'), '--ort-dir', ctx.ortDir,
    '--model', model.ortFile ?? model.file, '--threads', String(threads), '--iterations', String(optimizedModel ? 0 : ctx.iterations),
    '--json', tmp];
  if (model.inputs) argv.push('--inputs', model.inputs, '--check', model.inputs);
  if (optimizedModel) argv.push('--optimized-model', optimizedModel);
  const r = runMeasured(argv, { logFile: path.join(ctx.logs, `ort_${model.slug}_${tag}.log`) });
  const j = readJson(tmp);
  if (r.status !== 0 || !j) {
    // The peer is part of the harness: when it cannot run a model, the comparison is void.
    throw new HarnessError(`ORT peer failed on ${model.name} (${threads} thread(s)): ` +
      `${lastLine(r.stderr) || `status ${r.status}`} — log: ${path.join(ctx.logs, `ort_${model.slug}_${tag}.log`)}`);
  }
  const checks = get(j, 'run', 'check');
  return {
    round,
    median_ms: get(j, 'run', 'median_ms'),
    min_ms: get(j, 'run', 'min_ms'),
    first_run_ms: get(j, 'run', 'first_run_ms'),
    session_create_ms: get(j, 'session_create_ms'),
    optimized_nodes: get(j, 'optimized_nodes'),
    rel_l2: Array.isArray(checks) ? Math.max(...checks.map((c) => c.rel_l2)) : null,
    // GNU time's figure when present (same method as GE's), else Node's own ru_maxrss.
    rss_kb: r.rssKb ?? get(j, 'max_rss_kb'),
    node_base_rss_kb: get(j, 'base_rss_kb'),
    version: get(j, 'version'),
  };
}

// The model at batch B (--batch): the inputs and reference outputs of its test set repeated B
// times along dim 0 (images and sequences of a batch are computed independently, so the
// reference stays the reference), GE given the input shapes by --input-shape, the ORT peer a copy
// of the model declaring them (pb.mjs withInputShapes: exported models fix the batch at 1).
// Returns {variant} or {skip: reason}.
function batchedVariant(ctx, model, B) {
  if (!model.inputs) return { skip: 'no test set to repeat' };
  const dir = path.join(ctx.work, `batch_${model.slug}_b${B}`);
  fs.mkdirSync(dir, { recursive: true });
  const inputShapes = {};
  for (const f of fs.readdirSync(model.inputs).filter((n) => /^(input|output)_\d+\.pb$/.test(n)).sort()) {
    const t = decodeTensor(fs.readFileSync(path.join(model.inputs, f)));
    if (t.dims[0] !== 1) return { skip: `${f} has dim 0 = ${t.dims[0]}, not 1` };
    if (f.startsWith('input') && !t.name) return { skip: `${f} names no graph input` };
    const one = Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    const dims = [B, ...t.dims.slice(1)];
    fs.writeFileSync(path.join(dir, f), encodeTensor({ name: t.name, dims, dataType: dataTypeOf(t.type),
      raw: Buffer.concat(Array(B).fill(one)) }));
    if (f.startsWith('input')) inputShapes[t.name] = dims;
  }
  // Exporters fold the batch of a Reshape target to 1 (bert_small's attention, the shufflenets'
  // channel shuffle): both runtimes refuse another batch. free_batch.py gives such a target -1
  // for its batch entry (the model is unchanged at batch 1; the row's check tests the rewrite);
  // both sides run that copy, and the row is marked.
  const freed = path.join(dir, 'model_batch_freed.onnx');
  const fb = runMeasured([PYTHON, path.join(path.dirname(new URL(import.meta.url).pathname), 'free_batch.py'),
    model.file, freed], { logFile: path.join(ctx.logs, `free_batch_${model.slug}_b${B}.log`) });
  const nFreed = fb.status === 0 ? Number(lastLine(fb.stdout)) : NaN;
  if (!Number.isInteger(nFreed)) return { skip: `free_batch.py failed (${lastLine(fb.stderr) || `status ${fb.status}`})` };
  const file = nFreed > 0 ? freed : model.file;
  const ortFile = path.join(dir, 'model.onnx');
  fs.writeFileSync(ortFile, withInputShapes(fs.readFileSync(file), inputShapes));
  const mark = nFreed > 0 ? `*` : '';
  return { variant: { name: `${model.name}@b${B}${mark}`, slug: `${model.slug}_b${B}`, file, ortFile, inputs: dir,
    inputShapes, batch: B, base: model.name, batchFreedReshapes: nFreed, maxRelL2: model.maxRelL2 } };
}

export function runLatency(ctx) {
  const rows = [];
  ctx.latencySkipped = [];
  const models = [...ctx.models];
  for (const B of ctx.batches ?? []) {
    for (const model of ctx.models) {
      const v = batchedVariant(ctx, model, B);
      if (v.skip) ctx.latencySkipped.push(`${model.name}@b${B}: ${v.skip}`);
      else models.push(v.variant);
    }
  }
  for (const model of models) {
    // ORT's optimized node count, from a session of its own that saves the optimized graph.
    const opt = path.join(ctx.work, `ort_opt_${model.slug}.onnx`);
    let count;
    try {
      count = runOrt(ctx, model, ctx.threads[0], 0, { optimizedModel: opt });
    } catch (e) {
      // A model whose graph fixes the batch (a Reshape to [1, ...]) runs at batch 1 only: ORT
      // refuses it too, and the row is left out with ORT's reason. At batch 1 the peer must run.
      if (!model.batch || !(e instanceof HarnessError)) throw e;
      ctx.latencySkipped.push(`${model.name}: the ORT peer does not run it (${e.message.split(' — log:')[0]})`);
      continue;
    } finally {
      fs.rmSync(opt, { force: true });
    }
    for (const t of ctx.threads) rows.push({ model, threads: t, ge: [], ort: [], ortNodes: count.optimized_nodes });
  }
  for (let round = 1; round <= ctx.rounds; ++round) {
    for (const row of rows) {
      (row.probes ??= []).push(probeCores(ctx, row.threads));
      const order = round % 2 ? ['ge', 'ort'] : ['ort', 'ge'];
      for (const side of order) {
        if (side === 'ge') row.ge.push(runGe(ctx, row.model, row.threads, round));
        else row.ort.push(runOrt(ctx, row.model, row.threads, round));
      }
      const g = row.ge[row.ge.length - 1], o = row.ort[row.ort.length - 1];
      ctx.progress(`round ${round}/${ctx.rounds} ${row.model.name} ${row.threads}t: ` +
        `GE ${g.error ? 'error: ' + g.error : (g.median_ms?.toFixed(3) + ' ms')}, ORT ${o.median_ms?.toFixed(3)} ms`);
    }
  }
  // The run's best probe per thread count; each round of a row is disturbed or not against it.
  const best = new Map();
  for (const row of rows)
    for (const p of row.probes ?? [])
      if (p) {
        const b = best.get(row.threads) ?? { region_us: Infinity, handoff_us: Infinity };
        best.set(row.threads, { region_us: Math.min(b.region_us, p.region_us), handoff_us: Math.min(b.handoff_us, p.handoff_us) });
      }
  for (const row of rows) {
    const b = best.get(row.threads);
    row.disturbed = (row.probes ?? []).map((p) => !!(p && b &&
      (p.handoff_us > DISTURBED_RATIO * b.handoff_us || p.region_us > DISTURBED_RATIO * b.region_us)));
  }
  return rows.map((row) => summarize(ctx, row));
}

function summarize(ctx, row) {
  // Rounds measured while the cores were disturbed count only when every round was.
  const disturbed = row.disturbed ?? [];
  const clean = (r) => !disturbed[r.round - 1];
  const usable = row.ge.some(clean) ? clean : () => true;
  row = { ...row, ge: row.ge.filter(usable), ort: row.ort.filter(usable), allRounds: row };
  const ok = row.ge.filter((g) => !g.error);
  const last = ok[ok.length - 1] ?? null;
  const ge = {
    median_ms: median(ok.map((g) => g.median_ms)),
    round_medians_ms: row.ge.map((g) => g.median_ms ?? null),
    kernels: last?.kernels ?? null,
    nodes_before: last?.nodes_before ?? null,
    import_ms: median(ok.map((g) => g.import_ms)),
    compile_ms: median(ok.map((g) => g.compile_ms)),
    first_run_ms: median(ok.map((g) => g.first_run_ms)),
    rss_kb: ok.some((g) => g.rss_kb !== null) ? Math.max(...ok.map((g) => g.rss_kb ?? 0)) : null,
    check: ok.length ? (ok.every((g) => g.check !== 'FAIL') ? (last.check ?? null) : 'FAIL') : null,
    errors: row.ge.filter((g) => g.error).map((g) => `round ${g.round}: ${g.error}`),
    report: last?.report ?? null,
  };
  const ort = {
    median_ms: median(row.ort.map((o) => o.median_ms)),
    round_medians_ms: row.ort.map((o) => o.median_ms),
    optimized_nodes: row.ortNodes,
    session_create_ms: median(row.ort.map((o) => o.session_create_ms)),
    rss_kb: Math.max(...row.ort.map((o) => o.rss_kb ?? 0)) || null,
    node_base_rss_kb: row.ort[0]?.node_base_rss_kb ?? null,
    rel_l2_vs_reference: row.ort[row.ort.length - 1]?.rel_l2 ?? null,
    version: row.ort[0]?.version ?? null,
  };
  // Round medians of every round (disturbed ones included), the probes and which rounds count.
  ge.round_medians_ms = row.allRounds.ge.map((g) => g.median_ms ?? null);
  ort.round_medians_ms = row.allRounds.ort.map((o) => o.median_ms);
  const gflop = last?.dense_flops ? last.dense_flops / 1e9 : null;
  const gflops = gflop !== null && ge.median_ms ? gflop / (ge.median_ms / 1000) : null;
  const peak = peakAt(ctx.peak, row.threads);
  // The goal's two bounds (GOAL_ORT_RATIO, GOAL_PEAK_SHARE above).
  const roofline_ms = gflop !== null && peak ? (1000 * gflop) / (GOAL_PEAK_SHARE * peak) : null;
  const goal_ms = ort.median_ms ? Math.max(GOAL_ORT_RATIO * ort.median_ms, roofline_ms ?? 0) : null;
  const goal_met = goal_ms !== null && ge.median_ms !== null && ge.check !== 'FAIL' ? ge.median_ms <= goal_ms : null;
  return {
    model: row.model.name,
    file: row.model.file,
    batch: row.model.batch ?? 1,
    // Reshape targets whose fixed batch free_batch.py replaced by -1 (the row's model is that copy).
    batch_freed_reshapes: row.model.batchFreedReshapes ?? 0,
    threads: row.threads,
    iterations: ctx.iterations,
    rounds: ctx.rounds,
    ge,
    ort,
    ge_over_ort: ge.median_ms && ort.median_ms ? ge.median_ms / ort.median_ms : null,
    gflop,
    ge_gflops: gflops,
    ge_pct_peak: gflops !== null && peak ? (100 * gflops) / peak : null,
    roofline_ms,
    goal_ms,
    goal_met,
    core_probes: row.allRounds.probes ?? [],
    disturbed_rounds: (row.allRounds.disturbed ?? []).flatMap((d, i) => (d ? [i + 1] : [])),
    rounds_used: row.ge.length,
  };
}

export function printLatency(rows, baseline, out, skipped) {
  const prev = new Map((get(baseline, 'latency') || []).map((r) => [`${r.model}@${r.threads}`, r]));
  const mb = (kb) => (kb ? kb / 1024 : null);
  const columns = [
    { head: 'model', left: true, cell: (r) => r.model },
    { head: 'thr', cell: (r) => r.threads, digits: 0 },
    { head: 'GE ms', cell: (r) => r.ge.median_ms, digits: 3 },
    { head: 'ORT ms', cell: (r) => r.ort.median_ms, digits: 3 },
    { head: 'GE/ORT', cell: (r) => r.ge_over_ort, digits: 2 },
    { head: 'GE GFLOP/s', cell: (r) => r.ge_gflops, digits: 1 },
    { head: '% peak', cell: (r) => r.ge_pct_peak, digits: 1 },
    { head: 'goal ms', cell: (r) => r.goal_ms, digits: 3 },
    { head: 'goal', cell: (r) => (r.goal_met === null ? null : r.goal_met ? 'met' : 'miss') },
    { head: 'GE nodes', cell: (r) => r.ge.nodes_before, digits: 0 },
    { head: 'GE kernels', cell: (r) => r.ge.kernels, digits: 0 },
    { head: 'ORT nodes', cell: (r) => r.ort.optimized_nodes, digits: 0 },
    { head: 'GE RSS MB', cell: (r) => mb(r.ge.rss_kb), digits: 0 },
    { head: 'ORT RSS MB', cell: (r) => mb(r.ort.rss_kb), digits: 0 },
    { head: 'check', cell: (r) => (r.ge.errors.length && r.ge.median_ms === null ? 'ERROR' : r.ge.check) },
    { head: 'rounds', cell: (r) => `${r.rounds_used ?? r.rounds}/${r.rounds}` +
      ((r.disturbed_rounds ?? []).length === r.rounds && r.rounds > 0 ? ' !' : '') },
    { head: 'GE vs prev', cell: (r) => {
      const p = prev.get(`${r.model}@${r.threads}`);
      return p && get(p, 'ge', 'median_ms') && r.ge.median_ms ? r.ge.median_ms / p.ge.median_ms : null;
    } },
  ];
  printTable(columns, rows, out);
  out(`  goal ms = max(${GOAL_ORT_RATIO.toFixed(2)} × ORT ms, the model's Conv/MatMul/Gemm GFLOP at ${Math.round(100 * GOAL_PEAK_SHARE)} % of ` +
      `the measured peak); GFLOP = GE's count at the row's shapes (report dense_flops). ` +
      `Goal met on ${rows.filter((r) => r.goal_met).length} of ${rows.length} rows.`);
  const disturbed = rows.filter((r) => (r.disturbed_rounds ?? []).length);
  if (disturbed.length) {
    out(`  rounds: those used for the medians. Disturbed (cross-core handoff or fork/join > ${DISTURBED_RATIO}× the run's best, ` +
        'bin/xcore_probe before the pair; "!" = every round was, the row is not trustworthy):');
    for (const r of disturbed) {
      const ps = r.core_probes.map((p, i) => (p ? `r${i + 1} ${p.handoff_us.toFixed(1)}/${p.region_us.toFixed(2)} µs` : `r${i + 1} -`));
      out(`    ${r.model} (${r.threads}t): rounds ${r.disturbed_rounds.join(', ')}; handoff/fork-join ${ps.join(', ')}`);
    }
  }
  for (const r of rows) for (const e of r.ge.errors) out(`  GE error on ${r.model} (${r.threads}t) ${e}`);
  for (const s of skipped ?? []) out(`  not run: ${s}`);
  const freed = rows.filter((r) => r.batch_freed_reshapes > 0 && r.threads === rows[0].threads);
  for (const r of freed)
    out(`  * ${r.model}: the export fixes batch 1 in ${r.batch_freed_reshapes} Reshape targets; GE and ORT run a copy ` +
        'with -1 for it (0 beside a -1: bench/lib/free_batch.py; unchanged at batch 1, checked at this batch)');
}
