#!/usr/bin/env node
// bench/bf16.mjs — GE fp32 against GE bf16 (cpu.precision_mode = allow_mix_precision_bf16,
// docs/cpu.md) in one run: per model and thread count, per round, one `gec run` process per mode
// in alternating order (fp32 first in odd rounds, bf16 first in even ones), so load from other
// work affects both. Each process does one warm-up and N timed runs and reports its median; the
// table shows the median of the per-round medians, their ratio, and bf16's relative L2 error
// against the fp32 reference outputs of test_data_set_0 (`--check --max-rel-l2 1e-2`).
// It also counts which oneDNN implementations the bf16 plan runs (`ONEDNN_VERBOSE=1`, one run),
// so a CPU where oneDNN falls back to emulated or non-bf16 kernels is visible.
//
// usage: node bench/bf16.mjs [--threads "1 2"] [--rounds N] [--iterations N] [--gec PATH]
//                            [--json FILE] MODEL_DIR ...
// A MODEL_DIR holds NAME.onnx or model.onnx and test_data_set_0/. No speed thresholds: the
// ratio is what to read. Exit 1 when a run fails or bf16 misses rel L2 <= 1e-2.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const o = { threads: [1, 2], rounds: 2, iterations: 10, gec: path.join(repo, 'build', 'bin', 'gec'), json: null, models: [] };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const k = argv[i];
  const v = () => { if (i + 1 >= argv.length) { console.error(`bf16: ${k} needs a value`); process.exit(2); } return argv[++i]; };
  if (k === '--threads') o.threads = v().split(/[\s,]+/).filter(Boolean).map(Number);
  else if (k === '--rounds') o.rounds = Number(v());
  else if (k === '--iterations') o.iterations = Number(v());
  else if (k === '--gec') o.gec = path.resolve(v());
  else if (k === '--json') o.json = path.resolve(v());
  else if (k.startsWith('-')) { console.error(`bf16: unknown flag '${k}'`); process.exit(2); }
  else o.models.push(path.resolve(k));
}
if (!o.models.length) { console.error('usage: node bench/bf16.mjs [--threads "1 2"] [--rounds N] [--iterations N] MODEL_DIR ...'); process.exit(2); }
if (!fs.existsSync(o.gec)) { console.error(`bf16: gec not found at ${o.gec}`); process.exit(2); }

const MODES = { fp32: 'must_keep_origin_dtype', bf16: 'allow_mix_precision_bf16' };
const env = { ...process.env, OMP_WAIT_POLICY: 'PASSIVE' };
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ge-bf16-'));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[(s.length - 1) >> 1] : null; };

function modelFile(dir) {
  const leaf = path.basename(dir);
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.onnx'));
  const f = files.includes(`${leaf}.onnx`) ? `${leaf}.onnx` : files.includes('model.onnx') ? 'model.onnx' : files[0];
  if (!f) throw new Error(`${dir}: no .onnx file`);
  return path.join(dir, f);
}

function run(file, data, mode, threads, iterations) {
  const json = path.join(work, 'r.json');
  fs.rmSync(json, { force: true });
  const p = spawnSync(o.gec, ['run', file, '--set', `cpu.precision_mode=${MODES[mode]}`, '--inputs', data, '--check', data,
    '--max-rel-l2', '1e-2', '--threads', String(threads), '--iterations', String(iterations), '--json', json],
  { encoding: 'utf8', env, maxBuffer: 1 << 28 });
  let j = null;
  try { j = JSON.parse(fs.readFileSync(json, 'utf8')); } catch { j = null; }
  const err = p.status !== 0 || !j ? (p.stderr || '').trim().split('\n').pop() || `exit ${p.status}` : null;
  const checks = j?.run?.check || [];
  return { ms: j?.run?.median_ms ?? null, rel_l2: checks.length ? Math.max(...checks.map((c) => c.rel_l2)) : null, error: err };
}

function bf16Impls(file, data) {
  const p = spawnSync(o.gec, ['run', file, '--set', `cpu.precision_mode=${MODES.bf16}`, '--inputs', data, '--threads', '1',
    '--iterations', '0'], { encoding: 'utf8', env: { ...env, ONEDNN_VERBOSE: '1' }, maxBuffer: 1 << 28 });
  const n = {};
  for (const line of (p.stdout + p.stderr).split('\n')) {
    const f = line.split(',');
    if (f[0] !== 'onednn_verbose' || f[1] !== 'exec' || !/convolution|matmul|inner_product|deconvolution/.test(f[3])) continue;
    const k = `${f[3]}:${f[4]}`;
    n[k] = (n[k] || 0) + 1;
  }
  return n;
}

const rows = [];
let failed = false;
for (const dir of o.models) {
  const file = modelFile(dir), data = path.join(dir, 'test_data_set_0'), name = path.basename(dir);
  const impls = bf16Impls(file, data);
  for (const t of o.threads) {
    const per = { fp32: [], bf16: [] };
    let rel = null, error = null;
    for (let r = 0; r < o.rounds; ++r) {
      for (const mode of r % 2 === 0 ? ['fp32', 'bf16'] : ['bf16', 'fp32']) {
        const x = run(file, data, mode, t, o.iterations);
        if (x.error) error = `${mode}: ${x.error}`;
        if (x.ms !== null) per[mode].push(x.ms);
        if (mode === 'bf16' && x.rel_l2 !== null) rel = x.rel_l2;
      }
    }
    const fp32 = median(per.fp32), bf16 = median(per.bf16);
    const row = { model: name, threads: t, fp32_ms: fp32, bf16_ms: bf16, speedup: fp32 && bf16 ? fp32 / bf16 : null, bf16_rel_l2: rel, error,
      bf16_impls: impls };
    failed ||= !!error || rel === null || rel > 1e-2;
    rows.push(row);
    const f = (x, d) => (x === null ? '-' : x.toFixed(d));
    console.log(`${name.padEnd(30)} ${String(t).padStart(2)} thr  fp32 ${f(fp32, 2).padStart(8)} ms  bf16 ${f(bf16, 2).padStart(8)} ms  ` +
      `fp32/bf16 ${f(row.speedup, 2).padStart(5)}  rel_l2 ${rel === null ? '-' : rel.toExponential(2)}${error ? '  ERROR ' + error : ''}`);
  }
  console.log(`${''.padEnd(30)} bf16 plan's oneDNN kernels: ${Object.entries(impls).map(([k, v]) => `${k} ×${v}`).join(', ') || 'none'}`);
}
if (o.json) fs.writeFileSync(o.json, JSON.stringify({ date: new Date().toISOString(), loadavg: os.loadavg(), cpus: os.cpus().length, rows }, null, 1));
fs.rmSync(work, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
