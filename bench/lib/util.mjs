// Helpers of the harness: running a command with its peak RSS, tables, numbers, the host's peak.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';

export class HarnessError extends Error {}

export const DASH = '-';

// Runs argv[0] with argv[1..]; returns {status, stdout, stderr, rssKb, ms}. Peak RSS comes from
// GNU time (`/usr/bin/time -f %M`, the child's ru_maxrss in KiB) when it is installed, so GE and
// the peer are measured the same way; otherwise rssKb is null.
export const GNU_TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
export function runMeasured(argv, { logFile, timeoutMs = 30 * 60 * 1000, env } = {}) {
  const rssFile = logFile ? logFile + '.rss' : path.join(os.tmpdir(), `ge-bench-${process.pid}.rss`);
  fs.rmSync(rssFile, { force: true });
  const full = GNU_TIME ? [GNU_TIME, '-f', '%M', '-o', rssFile, ...argv] : argv;
  const t0 = Date.now();
  const p = spawnSync(full[0], full.slice(1), { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20,
    env: env ?? process.env });
  const ms = Date.now() - t0;
  if (p.error) throw new HarnessError(`cannot run ${argv[0]}: ${p.error.message}`);
  let rssKb = null;
  if (GNU_TIME && fs.existsSync(rssFile)) {
    // GNU time writes "Command exited with non-zero status N" before the figure on failure.
    const lines = fs.readFileSync(rssFile, 'utf8').trim().split('\n');
    const v = Number(lines[lines.length - 1]);
    if (Number.isFinite(v)) rssKb = v;
    fs.rmSync(rssFile, { force: true });
  }
  if (logFile) fs.writeFileSync(logFile, `$ ${argv.join(' ')}\n--- stdout\n${p.stdout}\n--- stderr\n${p.stderr}\n--- status ${p.status} signal ${p.signal}\n`);
  return { status: p.status ?? (p.signal ? 128 : 1), signal: p.signal, stdout: p.stdout, stderr: p.stderr, rssKb, ms };
}

export function lastLine(s) {
  const lines = (s || '').trim().split('\n').filter(Boolean);
  return lines.length ? lines[lines.length - 1] : '';
}

export function median(xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x));
  if (!v.length) return null;
  const s = [...v].sort((a, b) => a - b), m = s.length >> 1;
  return s.length % 2 ? s[m] : 0.5 * (s[m - 1] + s[m]);
}

export function fmt(x, digits = 2) {
  if (x === null || x === undefined || (typeof x === 'number' && !Number.isFinite(x))) return DASH;
  if (typeof x === 'number') return x.toFixed(digits);
  return String(x);
}

// Nested key lookup that yields null for anything missing: get(j, 'run', 'median_ms').
export function get(obj, ...keys) {
  let o = obj;
  for (const k of keys) {
    if (o === null || o === undefined || typeof o !== 'object' || !(k in o)) return null;
    o = o[k];
  }
  return o ?? null;
}

// A table is a list of columns [{head, cell(row) → string|number|null, digits?, left?}]: adding a
// figure is adding one column; a cell that is null prints as "-".
export function printTable(columns, rows, out = console.log) {
  const cells = rows.map((r) => columns.map((c) => {
    let v;
    try { v = c.cell(r); } catch { v = null; }
    return fmt(v, c.digits ?? 2);
  }));
  const widths = columns.map((c, i) => Math.max(c.head.length, ...cells.map((r) => r[i].length)));
  const line = (vals) => vals.map((v, i) => (columns[i].left ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join('  ');
  out(line(columns.map((c) => c.head)));
  out(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of cells) out(line(r));
}

// Nominal fp32 peak of this host: cores × clock × FLOP/cycle. FLOP/cycle is an assumption made
// from the CPU flags (32 for AVX-512F or AVX2+FMA: e.g. one 512-bit FMA unit, or two 256-bit
// FMA pipes as on AMD Zen 4 — 16 lanes × 2 FLOP; 16 for AVX; 8 otherwise) and is printed with
// the figure. --peak-gflops / GE_BENCH_PEAK_GFLOPS (per core) replaces the whole estimate.
export function nominalPeak(overridePerCore) {
  const cpuinfo = fs.existsSync('/proc/cpuinfo') ? fs.readFileSync('/proc/cpuinfo', 'utf8') : '';
  const flags = new Set(((cpuinfo.match(/^flags\s*:\s*(.*)$/m) || [])[1] || '').split(/\s+/));
  const model = ((cpuinfo.match(/^model name\s*:\s*(.*)$/m) || [])[1] || os.cpus()[0]?.model || 'unknown').trim();
  if (overridePerCore) {
    return { per_core_gflops: overridePerCore, source: 'given (--peak-gflops / GE_BENCH_PEAK_GFLOPS)', cpu: model };
  }
  let mhz = null, clockSource = null;
  const lscpu = spawnSync('lscpu', [], { encoding: 'utf8' });
  const max = lscpu.status === 0 && lscpu.stdout.match(/^CPU max MHz:\s*([\d.]+)/m);
  if (max) { mhz = Number(max[1]); clockSource = 'lscpu CPU max MHz'; }
  if (!mhz) {
    const m = cpuinfo.match(/^cpu MHz\s*:\s*([\d.]+)/m);
    if (m) { mhz = Number(m[1]); clockSource = '/proc/cpuinfo cpu MHz'; }
  }
  if (!mhz) {
    const b = cpuinfo.match(/^bogomips\s*:\s*([\d.]+)/m);
    if (b) { mhz = Number(b[1]) / 2; clockSource = 'bogomips/2'; }
  }
  let fpc = 8, isa = 'SSE';
  if (flags.has('avx512f')) { fpc = 32; isa = 'AVX-512F'; }
  else if (flags.has('avx2') && flags.has('fma')) { fpc = 32; isa = 'AVX2+FMA'; }
  else if (flags.has('avx')) { fpc = 16; isa = 'AVX'; }
  if (!mhz) return { per_core_gflops: null, source: 'clock unknown', cpu: model };
  const ghz = mhz / 1000;
  return {
    per_core_gflops: ghz * fpc,
    ghz,
    flop_per_cycle: fpc,
    cpu: model,
    source: `nominal: ${ghz.toFixed(3)} GHz (${clockSource}) × ${fpc} fp32 FLOP/cycle/core (${isa}; assumes ` +
            `16 fp32 FMA lanes per cycle, e.g. one 512-bit or two 256-bit FMA pipes) × threads`,
  };
}

export function readJson(p) {
  try { return JSON.parse(fs.readFileSync(p, 'utf8')); } catch { return null; }
}

export function writeJsonAtomically(p, value) {
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p + '.tmp', JSON.stringify(value, null, 2) + '\n');
  fs.renameSync(p + '.tmp', p);
}

// Measured peaks of this host: `gec calibrate --peaks` (a MatMul sweep 128..2048 through GE's
// kernels, an FMA-throughput loop and STREAM copy/triad, at 1 and maxThreads threads). The
// arithmetic peak at T threads is the larger of the sweep's best GEMM and the FMA loop; the
// memory peak the STREAM triad. Falls back to the nominal figure (labelled so) when gec cannot
// measure; --peak-gflops / GE_BENCH_PEAK_GFLOPS still replaces everything.
export function measuredPeak(gec, maxThreads, work, overridePerCore) {
  const nominal = nominalPeak(overridePerCore);
  if (overridePerCore) return nominal;
  const out = path.join(work, 'peaks.json');
  const r = spawnSync(gec, ['calibrate', '--peaks', '--threads', String(maxThreads), '-o', out], { encoding: 'utf8' });
  const j = r.status === 0 ? readJson(out) : null;
  if (!j || !Array.isArray(j.threads)) {
    const why = (r.stderr || '').trim().split('\n').pop() || `exit ${r.status ?? r.signal}`;
    return { ...nominal, source: `${nominal.source} — FALLBACK: gec calibrate --peaks failed (${why})` };
  }
  const perThreads = {};
  for (const t of j.threads) {
    perThreads[t.threads] = {
      gflops: Math.max(t.gemm_gflops, t.fma_gflops), gemm_gflops: t.gemm_gflops, gemm_n: t.gemm_n,
      fma_gflops: t.fma_gflops, stream_copy_gbps: t.stream_copy_gbps, stream_triad_gbps: t.stream_triad_gbps,
      gemm_sweep: t.gemm_sweep,
    };
  }
  return {
    per_core_gflops: perThreads[1]?.gflops ?? null,
    per_threads: perThreads,
    cpu: j.cpu || nominal.cpu,
    isa: j.isa,
    nominal_per_core_gflops: nominal.per_core_gflops,
    source: 'measured (gec calibrate --peaks: max of a MatMul sweep 128..2048 and an FMA loop, per thread count)',
  };
}

/// The arithmetic peak (GFLOP/s) at `threads` threads: measured when that count was, else per core × threads.
export function peakAt(peak, threads) {
  const m = peak.per_threads?.[threads];
  if (m) return m.gflops;
  return peak.per_core_gflops ? peak.per_core_gflops * threads : null;
}
