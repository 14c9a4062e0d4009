// The peer: runs one model with onnxruntime-node the way `gec run --iterations` runs it in GE
// (same input_K.pb files, one warm-up, N timed runs, median) and writes the figures as JSON.
//
//   node ort_run.mjs --ort-dir DIR --model M.onnx [--inputs DIR] [--check DIR] --threads T
//                    --iterations N --json OUT [--optimized-model F] [--keep-initializer-inputs]
//
// Session: graphOptimizationLevel 'all', intraOpNumThreads T, interOpNumThreads 1, sequential.
// --optimized-model writes ORT's optimized graph and reports its node count (do this in a run of
// its own: the timing runs do not save anything).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { decodeTensor, countGraphNodes, withoutInitializerInputs } from './pb.mjs';

function parseArgs(argv) {
  const a = { threads: 1, iterations: 10, keepInitializerInputs: false };
  for (let i = 0; i < argv.length; ++i) {
    const k = argv[i], v = () => { if (i + 1 >= argv.length) throw new Error(`${k} needs a value`); return argv[++i]; };
    switch (k) {
      case '--ort-dir': a.ortDir = v(); break;
      case '--model': a.model = v(); break;
      case '--inputs': a.inputs = v(); break;
      case '--check': a.check = v(); break;
      case '--threads': a.threads = Number(v()); break;
      case '--iterations': a.iterations = Number(v()); break;
      case '--json': a.json = v(); break;
      case '--optimized-model': a.optimizedModel = v(); break;
      case '--keep-initializer-inputs': a.keepInitializerInputs = true; break;
      default: throw new Error(`unknown argument '${k}'`);
    }
  }
  if (!a.ortDir || !a.model || !a.json) throw new Error('--ort-dir, --model and --json are required');
  return a;
}

function median(xs) {
  if (!xs.length) return 0;
  const s = [...xs].sort((x, y) => x - y), m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

function readTensors(dir, prefix, count, names) {
  const out = [];
  for (let k = 0; k < count; ++k) {
    const p = path.join(dir, `${prefix}_${k}.pb`);
    if (!fs.existsSync(p)) throw new Error(`'${p}' is missing (graph ${prefix} #${k} '${names[k]}')`);
    out.push(decodeTensor(fs.readFileSync(p)));
  }
  return out;
}

// Relative L2 error ||out - ref|| / ||ref||, the figure gec --check bounds.
function relL2(out, ref) {
  let num = 0, den = 0;
  for (let i = 0; i < ref.length; ++i) {
    const r = Number(ref[i]), d = Number(out[i]) - r;
    num += d * d;
    den += r * r;
  }
  return den > 0 ? Math.sqrt(num / den) : Math.sqrt(num);
}

async function main() {
  const a = parseArgs(process.argv.slice(2));
  const require = createRequire(path.join(path.resolve(a.ortDir), 'node_modules', 'x.js'));
  const ort = require('onnxruntime-node');
  const baseRssKb = process.resourceUsage().maxRSS;

  let modelBuf = fs.readFileSync(a.model);
  const nodesBefore = countGraphNodes(modelBuf);
  let removed = 0;
  if (!a.keepInitializerInputs) ({ buf: modelBuf, removed } = withoutInitializerInputs(modelBuf));

  const opts = {
    graphOptimizationLevel: 'all',
    intraOpNumThreads: a.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    logSeverityLevel: 3,
  };
  if (a.optimizedModel) opts.optimizedModelFilePath = a.optimizedModel;
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(modelBuf, opts);
  const createMs = performance.now() - t0;
  modelBuf = null;

  const feeds = {};
  if (a.inputs) {
    const ts = readTensors(a.inputs, 'input', session.inputNames.length, session.inputNames);
    session.inputNames.forEach((n, k) => { feeds[n] = new ort.Tensor(ts[k].type, ts[k].data, ts[k].dims); });
  } else {
    throw new Error('--inputs is required (the peer does not invent inputs)');
  }

  const tFirst = performance.now();
  let outputs = await session.run(feeds);
  const firstMs = performance.now() - tFirst;
  const times = [];
  for (let i = 0; i < a.iterations; ++i) {
    const t = performance.now();
    outputs = await session.run(feeds);
    times.push(performance.now() - t);
  }

  let check = null;
  if (a.check) {
    const refs = readTensors(a.check, 'output', session.outputNames.length, session.outputNames);
    check = session.outputNames.map((n, k) => ({ output: n, rel_l2: relL2(outputs[n].data, refs[k].data) }));
  }

  let optimizedNodes = null;
  if (a.optimizedModel) optimizedNodes = countGraphNodes(fs.readFileSync(a.optimizedModel));

  const result = {
    peer: 'onnxruntime-node',
    version: ort.env.versions?.node ?? ort.env.versions?.common ?? null,
    model: a.model,
    nodes_before: nodesBefore,
    initializer_inputs_removed: removed,
    optimized_nodes: optimizedNodes,
    session_create_ms: createMs,
    run: {
      threads: a.threads,
      iterations: a.iterations,
      min_ms: times.length ? Math.min(...times) : 0,
      median_ms: median(times),
      first_run_ms: firstMs,
      check,
    },
    // Peak RSS of this Node process (KiB), and what Node + the ORT library took before the session.
    max_rss_kb: process.resourceUsage().maxRSS,
    base_rss_kb: baseRssKb,
  };
  await session.release?.();
  fs.writeFileSync(a.json + '.tmp', JSON.stringify(result, null, 2) + '\n');
  fs.renameSync(a.json + '.tmp', a.json);
  console.log(`ort ${path.basename(a.model)}: ${a.threads} thread(s), median ${result.run.median_ms.toFixed(3)} ms` +
              (optimizedNodes !== null ? `, ${optimizedNodes} optimized nodes` : ''));
}

main().catch((e) => {
  console.error(`ort_run: error: ${e.message}`);
  process.exit(2);
});
