// bench/run's body: parses the flags, runs the sections, prints the tables, writes the results.
// Exit codes: 0 all measured; 1 measured, but GE failed a model or its check, or conformance
// regressed; 2 harness error (bad flag, missing tool, the ORT peer failed).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { HarnessError, GNU_TIME, measuredPeak, readJson, writeJsonAtomically } from './util.mjs';
import { runLatency, printLatency } from './latency.mjs';
import { memoryRows, printMemory, runScaling, printScaling, runConformance, printConformance } from './sections.mjs';
import { runSchedulers, printSchedulers } from './schedulers.mjs';
import { runAscend, printAscend, ASCEND_BATCHES } from './ascend.mjs';
import { runDynamic, printDynamic } from './dynamic.mjs';

const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoDir = path.resolve(benchDir, '..');
const SECTIONS = ['latency', 'memory', 'schedulers', 'ascend', 'dynamic', 'scaling', 'conformance'];
const SCALING_KINDS = ['chain', 'residual', 'wide', 'attention', 'mixed'];

const USAGE = `usage: bench/run [flags] [MODEL_DIR_OR_FILE ...]
  --models "A B"          models: names under \$GE_SHARED_DIR/models (resnet50, onnx-light/squeezenet),
                          folders or .onnx files (default: every model folder in \$GE_SHARED_DIR/models)
  --threads "1 2"         thread counts (default "1 2")
  --batch "8"             latency also at these batch sizes: each model's test set repeated along dim 0
                          (GE: --input-shape; ORT: a copy of the model declaring the shape); a model
                          whose graph fixes the batch is listed as not run (default: batch 1 only)
  --rounds N              rounds; GE and ORT alternate within each (default 3)
  --iterations N          timed runs per process after one warm-up (default 50)
  --sections LIST         any of ${SECTIONS.join(',')} (default all)
  --scaling-sizes "..."   node counts of the synthetic graphs (default "1000 10000 100000")
  --scaling-kinds "..."   ${SCALING_KINDS.join(' ')} or all (default mixed)
  --conformance-filter S  only conformance cases whose name contains S (repeatable)
  --soc-version NAME      Ascend platform of the ascend section (default Ascend910A; plugins/ascend_backend/platforms)
  --peak-gflops X         per-core fp32 peak in GFLOP/s (default: measured by gec calibrate --peaks; see README)
  --out FILE              results file (default bench/results/latest.json; the old one becomes previous.json)
  --gec PATH              gec binary (default build/bin/gec, or \$GE_GEC)
  --no-snapshot           run gec from the build tree itself (default: from a private copy of its
                          bin/ and lib/, so a rebuild during a long run cannot mix two builds)
  --smoke                 one round, 1 thread, squeezenet1_1, 5 iterations, small scaling and conformance
                          subsets; writes bench/results/smoke.json and leaves latest.json alone`;

function parseArgs(argv) {
  const env = process.env;
  const o = {
    models: null, threads: [1, 2], batches: [], rounds: 3, iterations: 50, sections: [...SECTIONS],
    scalingSizes: [1000, 10000, 100000], scalingKinds: ['mixed'], conformanceFilters: [],
    peakGflops: env.GE_BENCH_PEAK_GFLOPS ? Number(env.GE_BENCH_PEAK_GFLOPS) : null, out: null, soc: 'Ascend910A',
    gec: env.GE_GEC || path.join(repoDir, 'build', 'bin', 'gec'), smoke: false, snapshot: true, ortDir: path.join(benchDir, '.cache', 'ort'),
  };
  const list = (s) => s.split(/[\s,]+/).filter(Boolean);
  const ints = (flag, s) => list(s).map((x) => {
    const n = Number(x);
    if (!Number.isInteger(n) || n < 0) throw new HarnessError(`${flag}: '${x}' is not a count`);
    return n;
  });
  const positional = [];
  let smokeTouched = new Set();
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i];
    const v = () => { if (i + 1 >= argv.length) throw new HarnessError(`${k} needs a value`); return argv[++i]; };
    switch (k) {
      case '-h': case '--help': console.log(USAGE); process.exit(0); break;
      case '--models': o.models = [...(o.models || []), ...list(v())]; smokeTouched.add('models'); break;
      case '--threads': o.threads = ints(k, v()); smokeTouched.add('threads'); break;
      case '--batch': o.batches = ints(k, v()).filter((b) => b !== 1); break;
      case '--rounds': [o.rounds] = ints(k, v()); smokeTouched.add('rounds'); break;
      case '--iterations': [o.iterations] = ints(k, v()); smokeTouched.add('iterations'); break;
      case '--sections': o.sections = list(v()); break;
      case '--scaling-sizes': o.scalingSizes = ints(k, v()); smokeTouched.add('scalingSizes'); break;
      case '--scaling-kinds': { const s = list(v()); o.scalingKinds = s.includes('all') ? SCALING_KINDS : s; break; }
      case '--conformance-filter': o.conformanceFilters.push(v()); smokeTouched.add('conformanceFilters'); break;
      case '--peak-gflops': o.peakGflops = Number(v()); break;
      case '--soc-version': o.soc = v(); break;
      case '--out': o.out = path.resolve(v()); break;
      case '--gec': o.gec = path.resolve(v()); break;
      case '--ort-dir': o.ortDir = path.resolve(v()); break;
      case '--smoke': o.smoke = true; break;
      case '--no-snapshot': o.snapshot = false; break;
      default:
        if (k.startsWith('-')) throw new HarnessError(`unknown flag '${k}' (bench/run --help)`);
        positional.push(k);
    }
  }
  if (positional.length) o.models = [...(o.models || []), ...positional];
  if (o.smoke) {  // explicit flags win over the smoke defaults
    if (!smokeTouched.has('models')) o.models = ['squeezenet1_1'];
    if (!smokeTouched.has('threads')) o.threads = [1];
    if (!smokeTouched.has('rounds')) o.rounds = 1;
    if (!smokeTouched.has('iterations')) o.iterations = 5;
    if (!smokeTouched.has('scalingSizes')) o.scalingSizes = [300, 1000];
    if (!smokeTouched.has('conformanceFilters')) o.conformanceFilters = ['test_relu'];
  }
  for (const s of o.sections) if (!SECTIONS.includes(s)) throw new HarnessError(`--sections: unknown section '${s}'`);
  for (const k of o.scalingKinds) if (!SCALING_KINDS.includes(k)) throw new HarnessError(`--scaling-kinds: unknown kind '${k}'`);
  if (!o.threads.length || o.threads.some((t) => t < 1)) throw new HarnessError('--threads: give counts >= 1');
  if (o.rounds < 1) throw new HarnessError('--rounds must be >= 1');
  if (o.peakGflops !== null && !(o.peakGflops > 0)) throw new HarnessError('--peak-gflops must be a positive number');
  return o;
}

function sharedDir() {
  return path.resolve(process.env.GE_SHARED_DIR || path.join(repoDir, '..', 'shared'));
}

// The zoo's models (../shared/zoo, and export.py's, wherever ZOO_OUT put them: the folder beside
// export.py or its zoo.json) are compared by relative L2 error alone, as its README says (some
// logits are tiny, and vit_b16_l2's fp32 reference is itself 1.7e-6 off a float64 run, over gec's
// elementwise default atol); GE is within 2e-6 on each, ORT within 2e-6 by the README. Other
// models keep gec's default criterion, as the tests check them.
const ZOO_MAX_REL_L2 = 1e-5;
function zooCriterion(dir) {
  const parent = path.dirname(dir);
  return fs.existsSync(path.join(parent, 'export.py')) || fs.existsSync(path.join(parent, 'zoo.json'))
    ? ZOO_MAX_REL_L2 : null;
}

// A model folder holds NAME.onnx or model.onnx (or one .onnx file) and test_data_set_0/.
function modelFromDir(dir, name) {
  const leaf = path.basename(dir);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.onnx'));
  const file = files.includes(`${leaf}.onnx`) ? `${leaf}.onnx` : files.includes('model.onnx') ? 'model.onnx'
    : files.length === 1 ? files[0] : null;
  if (!file) return null;
  const inputs = path.join(dir, 'test_data_set_0');
  return { name, file: path.join(dir, file), inputs: fs.existsSync(inputs) ? inputs : null, maxRelL2: zooCriterion(dir) };
}

function discoverModels(root) {
  const found = [];
  const walk = (dir, rel, depth) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (!e.isDirectory() || e.name.startsWith('test_data_set')) continue;
      const sub = path.join(dir, e.name), name = rel ? `${rel}/${e.name}` : e.name;
      const m = modelFromDir(sub, name);
      if (m && m.inputs) found.push(m);
      else if (depth < 2) walk(sub, name, depth + 1);
    }
  };
  walk(root, '', 0);
  // Top-level models first, nested collections (onnx-light/...) after.
  return found.sort((a, b) => (a.name.includes('/') - b.name.includes('/')) || 0);
}

function resolveModels(spec, root) {
  if (!spec) {
    if (!fs.existsSync(root)) throw new HarnessError(`no models: ${root} does not exist (set GE_SHARED_DIR)`);
    const all = discoverModels(root);
    if (!all.length) throw new HarnessError(`no model folders with test_data_set_0 under ${root}`);
    return all;
  }
  return spec.map((s) => {
    let m = null;
    if (fs.existsSync(s) && fs.statSync(s).isFile()) {
      const inputs = path.join(path.dirname(s), 'test_data_set_0');
      m = { name: path.basename(s, '.onnx'), file: path.resolve(s), inputs: fs.existsSync(inputs) ? inputs : null,
            maxRelL2: zooCriterion(path.dirname(path.resolve(s))) };
    } else if (fs.existsSync(s) && fs.statSync(s).isDirectory()) m = modelFromDir(path.resolve(s), path.basename(s));
    else if (fs.existsSync(path.join(root, s))) m = modelFromDir(path.join(root, s), s);
    if (!m) throw new HarnessError(`model '${s}': no such file, folder, or folder under ${root} holding an .onnx file`);
    if (!m.inputs) throw new HarnessError(`model '${s}': no test_data_set_0/ beside it (the peer needs the inputs)`);
    return m;
  });
}

// A private copy of gec's tree (bin/gec, bin/gen_graph, bin/xcore_probe, lib/ with the plugins
// and the default manifest, which gec finds relative to libge_core.so), taken once at the start.
function snapshotBuild(gec, work) {
  const prefix = path.resolve(path.dirname(gec), '..');
  const snap = path.join(work, 'build');
  const tools = [path.basename(gec), 'gen_graph', 'xcore_probe'];
  fs.mkdirSync(path.join(snap, 'bin'), { recursive: true });
  for (const tool of tools) {
    const src = path.join(prefix, 'bin', tool);
    if (fs.existsSync(src)) fs.copyFileSync(src, path.join(snap, 'bin', tool));
  }
  fs.cpSync(path.join(prefix, 'lib'), path.join(snap, 'lib'), { recursive: true, verbatimSymlinks: true });
  for (const tool of tools) {
    const p = path.join(snap, 'bin', tool);
    if (fs.existsSync(p)) fs.chmodSync(p, 0o755);
  }
  return path.join(snap, 'bin', path.basename(gec));
}

function gitDescribe() {
  const r = spawnSync('git', ['-C', repoDir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' });
  if (r.status !== 0) return null;
  const dirty = spawnSync('git', ['-C', repoDir, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' });
  return r.stdout.trim() + (dirty.stdout.trim() ? '+dirty' : '');
}

let workDir = null;  // removed on every exit

function main() {
  // `--check-args …`: bench/run's first call — the flags are checked before any tool is
  // installed; prints "ort" when a section needs the ONNX Runtime peer (latency), else "none".
  const argv = process.argv.slice(2);
  if (argv[0] === '--check-args') {
    const c = parseArgs(argv.slice(1));
    console.log(c.sections.includes('latency') ? 'ort' : 'none');
    return 0;
  }
  const o = parseArgs(argv);
  if (!fs.existsSync(o.gec)) throw new HarnessError(`gec not found at ${o.gec} (build it, or pass --gec / GE_GEC)`);
  const resultsDir = path.join(benchDir, 'results');
  const latest = path.join(resultsDir, 'latest.json');
  const out = o.out ?? (o.smoke ? path.join(resultsDir, 'smoke.json') : latest);
  const cacheDir = path.join(benchDir, '.cache');
  const work = (workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ge-bench-')));
  const logs = path.join(cacheDir, 'logs');
  fs.mkdirSync(logs, { recursive: true });
  const shared = sharedDir();
  const gecOrig = o.gec;
  if (o.snapshot && fs.existsSync(path.join(path.dirname(o.gec), '..', 'lib'))) o.gec = snapshotBuild(o.gec, work);
  const probe = spawnSync(o.gec, ['plugins'], { encoding: 'utf8' });
  if (probe.status !== 0) {
    throw new HarnessError(`${gecOrig} does not run (\`gec plugins\` exited with ${probe.status ?? probe.signal}` +
      `${probe.stderr ? ': ' + probe.stderr.trim().split('\n').pop() : ''}); is a rebuild in progress?`);
  }
  const baseline = readJson(latest);
  const ctx = {
    ...o, benchDir, repoDir, cacheDir, work, logs, baseline, baselinePath: baseline ? latest : null,
    models: o.sections.includes('latency') || o.sections.includes('memory') || o.sections.includes('schedulers') ||
      o.sections.includes('ascend')
      ? resolveModels(o.models, path.join(shared, 'models')) : [],
    genGraph: process.env.GE_BENCH_GEN_GRAPH || path.join(path.dirname(o.gec), 'gen_graph'),
    xcoreProbe: process.env.GE_BENCH_XCORE_PROBE || path.join(path.dirname(o.gec), 'xcore_probe'),
    gecSource: gecOrig,
    conformanceDir: path.join(shared, 'onnx-node-tests', 'node'),
    zooDir: path.join(shared, 'zoo'),
    peak: null,
    progress: (s) => process.stderr.write(`bench: ${s}\n`),
  };
  for (const m of ctx.models) m.slug = m.name.replace(/[^A-Za-z0-9_.-]/g, '_');
  ctx.progress('measuring the machine\'s peaks (gec calibrate --peaks)');
  ctx.peak = measuredPeak(o.gec, Math.max(...o.threads, 1), work, o.peakGflops);
  if (o.sections.includes('latency') && ctx.models.length &&
      !fs.existsSync(path.join(o.ortDir, 'node_modules', 'onnxruntime-node'))) {
    throw new HarnessError(`onnxruntime-node is not installed in ${o.ortDir} (bench/run installs it; run that)`);
  }

  const lines = [];
  const say = (s = '') => { lines.push(s); console.log(s); };
  const result = {
    schema: 1,
    date: new Date().toISOString(),
    git: gitDescribe(),
    gec: gecOrig,
    host: { cpu: ctx.peak.cpu, cpus: os.cpus().length, peak: ctx.peak, rss_method: GNU_TIME ? 'GNU time %M (ru_maxrss)' : 'none for GE; Node maxRSS for ORT' },
    args: { models: ctx.models.map((m) => m.name), threads: o.threads, batches: o.batches, rounds: o.rounds, iterations: o.iterations,
      sections: o.sections, smoke: o.smoke },
  };
  let failed = false;

  say(`GE bench — ${result.date}, git ${result.git ?? '-'}, ${ctx.peak.cpu}, ${os.cpus().length} CPUs`);
  if (ctx.peak.per_threads) {
    for (const [t, p] of Object.entries(ctx.peak.per_threads)) {
      say(`peak at ${t} thread(s): ${p.gflops.toFixed(1)} GFLOP/s (MatMul sweep best ${p.gemm_gflops.toFixed(1)} at n=${p.gemm_n}, ` +
          `FMA loop ${p.fma_gflops.toFixed(1)}), STREAM copy ${p.stream_copy_gbps.toFixed(1)} GB/s, triad ${p.stream_triad_gbps.toFixed(1)} GB/s`);
    }
    say(`peak source: ${ctx.peak.source}`);
  } else {
    say(`peak: ${ctx.peak.per_core_gflops ? ctx.peak.per_core_gflops.toFixed(1) + ' GFLOP/s per thread' : '-'} — ${ctx.peak.source}`);
  }
  if (!GNU_TIME) say('peak RSS of GE: "-" (/usr/bin/time missing: install the Debian package "time")');

  if (o.sections.includes('latency')) {
    say();
    say(`== latency: median ms of ${o.iterations} runs after 1 warm-up; median over ${o.rounds} round(s); GE and ORT alternate`);
    result.latency = runLatency(ctx);
    result.latency_not_run = ctx.latencySkipped;
    printLatency(result.latency, baseline, say, ctx.latencySkipped);
    failed ||= result.latency.some((r) => r.ge.errors.length || r.ge.check === 'FAIL');
  }
  if (o.sections.includes('memory')) {
    say();
    say('== memory plans (GE, per model and planner)');
    result.memory = memoryRows(ctx, (result.latency || ctx.models.map((m) => ({ model: m.name, file: m.file })))
      .filter((r) => !(r.batch > 1)));
    printMemory(result.memory, say);
    failed ||= result.memory.some((r) => r.error);
  }
  if (o.sections.includes('schedulers')) {
    say();
    say(`== schedulers: gec run --scheduler S, median ms of ${o.iterations} runs, median over ${o.rounds} round(s); estimate from the cost model`);
    result.schedulers = runSchedulers(ctx);
    printSchedulers(result.schedulers, say);
    failed ||= result.schedulers.some((r) => r.error);
  }
  if (o.sections.includes('ascend')) {
    say();
    say(`== ascend: simulated ${o.soc} (cycle model + timeline; no device, no peer), batches ${ASCEND_BATCHES.join(', ')}; ` +
        'gec profile --backend ascend --simulate-only');
    result.ascend = runAscend(ctx);
    printAscend(result.ascend, say);
    // Batch 1 must compile for the device; a larger batch may be refused by a model whose exported
    // Reshape shapes fix the batch (listed as an error row, not a failure).
    failed ||= result.ascend.some((r) => r.error && r.batch === 1);
  }
  if (o.sections.includes('dynamic')) {
    say();
    say(`== dynamic: the zoo's models with symbolic dims, per test set: a static compile of the shape, the gear of a plan ` +
        `with one gear per set, a plan without gears (specialized on first use); median ms of ${o.iterations} runs, ` +
        `median over ${o.rounds} round(s) in rotating order`);
    result.dynamic = runDynamic(ctx, ctx.zooDir);
    printDynamic(result.dynamic, say);
    failed ||= result.dynamic.rows.some((r) => r.error) || result.dynamic.plans.some((p) => p.error);
  }
  if (o.sections.includes('scaling')) {
    say();
    say(`== compile-time scaling: synthetic graphs, gec run --iterations 0, 1 thread, least of ${Math.max(1, ctx.rounds)} run(s) per size`);
    result.scaling = runScaling(ctx);
    printScaling(result.scaling, say);
    failed ||= result.scaling.rows.some((r) => r.error);
  }
  if (o.sections.includes('conformance')) {
    say();
    say(`== conformance: ${ctx.conformanceDir}${o.conformanceFilters.length ? ' (filter: ' + o.conformanceFilters.join(', ') + ')' : ''}`);
    const c = runConformance(ctx);
    printConformance(c, say);
    if (!c.skipped) {
      failed ||= c.regressions.length > 0;
      // Saved compactly: a detail only where the outcome is not pass/unsupported.
      c.cases = c.cases.map((x) => (x.outcome === 'pass' || x.outcome === 'unsupported'
        ? { name: x.name, outcome: x.outcome } : x));
    }
    result.conformance = c;
  }

  for (const r of result.latency || []) delete r.ge.report?.stages;  // keep the file small; the rest stays
  result.report_text = lines.join('\n');
  if (out === latest && fs.existsSync(latest)) fs.renameSync(latest, path.join(resultsDir, 'previous.json'));
  writeJsonAtomically(out, result);
  say();
  say(`results: ${path.relative(process.cwd(), out) || out}${out === latest && baseline ? ' (the previous run is in previous.json)' : ''}`);
  say('timings are noisy when other work shares the machine; compare ratios taken in the same run');
  return failed ? 1 : 0;
}

try {
  process.exitCode = main();
} catch (e) {
  if (e instanceof HarnessError) {
    console.error(`bench: error: ${e.message}`);
    process.exitCode = 2;
  } else {
    console.error(`bench: internal error: ${e.stack || e}`);
    process.exitCode = 2;
  }
} finally {
  if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
}
