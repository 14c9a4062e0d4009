// The dynamic table (docs/plan.md, "Dynamic shapes"): for each model of $GE_SHARED_DIR/zoo with
// symbolic input dims (gpt2_tiny_dyn, mobilenet_v3_small_dyn) and each of its test_data_set_K,
// per thread count and round (the three in rotating order):
//   static  — `gec run model.onnx --input-shape …` (a plan compiled for that shape alone);
//   gear    — `gec run G.gep`, G compiled once with one gear per test set (`--gears` profiles);
//   special — `gec run S.gep`, S compiled without gears: the shape specializes on first use
//             (its compile + kernel build against the static compile of the shape: import,
//             compile, kernels), later runs timed like the others.
// Every run checks the set's references (relative L2 ≤ 1e-4, the zoo README's criterion). Plan
// sizes: G (N gears, weights stored once) against N static plans.
import fs from 'node:fs';
import path from 'node:path';
import { decodeTensor } from './pb.mjs';
import { runMeasured, lastLine, median, printTable, readJson } from './util.mjs';

export const DYNAMIC_MODELS = ['gpt2_tiny_dyn', 'mobilenet_v3_small_dyn'];

function testSets(dir) {
  return fs.readdirSync(dir).filter((n) => /^test_data_set_\d+$/.test(n))
    .sort((a, b) => Number(a.slice(14)) - Number(b.slice(14))).map((n) => path.join(dir, n));
}

// [{name, dims}] of a set's inputs (input_K.pb carry the graph input's name).
function setShapes(set) {
  const out = [];
  for (let k = 0; fs.existsSync(path.join(set, `input_${k}.pb`)); ++k) {
    const t = decodeTensor(fs.readFileSync(path.join(set, `input_${k}.pb`)));
    out.push({ name: t.name, dims: t.dims });
  }
  return out;
}

export function runDynamic(ctx, zooDir) {
  const rows = [], plans = [];
  for (const name of DYNAMIC_MODELS) {
    const dir = path.join(zooDir, name), model = path.join(dir, 'model.onnx');
    if (!fs.existsSync(model)) { plans.push({ model: name, error: `${model} not found` }); continue; }
    const sets = testSets(dir);
    const shapes = sets.map(setShapes);
    const log = (tag) => path.join(ctx.logs, `dyn-${name}-${tag}.log`);
    const plan = { model: name, gears: sets.length };
    const gears = path.join(ctx.work, `dyn-${name}-gears.gep`), none = path.join(ctx.work, `dyn-${name}-none.gep`);
    const profiles = shapes.map((s) => s.map((i) => `${i.name}:${i.dims.join('x')}`).join(',')).join(';');
    let p = runMeasured([ctx.gec, 'compile', model, '--gears', profiles, '-o', gears], { logFile: log('compile-gears') });
    if (p.status !== 0) { plans.push({ ...plan, error: lastLine(p.stderr) || 'gec compile --gears failed' }); continue; }
    p = runMeasured([ctx.gec, 'compile', model, '-o', none], { logFile: log('compile-none') });
    if (p.status !== 0) { plans.push({ ...plan, error: lastLine(p.stderr) || 'gec compile failed' }); continue; }
    plan.gears_bytes = fs.statSync(gears).size;
    plan.no_gear_bytes = fs.statSync(none).size;
    plan.static_bytes = 0;
    shapes.forEach((s, k) => {
      const f = path.join(ctx.work, `dyn-${name}-static-${k}.gep`);
      const q = runMeasured([ctx.gec, 'compile', model, ...s.flatMap((i) => ['--input-shape', `${i.name}:${i.dims.join(',')}`]),
        '-o', f], { logFile: log(`compile-static-${k}`) });
      plan.static_bytes = q.status === 0 && plan.static_bytes !== null ? plan.static_bytes + fs.statSync(f).size : null;
    });
    plans.push(plan);

    for (const threads of ctx.threads) {
      sets.forEach((set, k) => {
        const shapeText = shapes[k].map((i) => `${i.name}[${i.dims.join(',')}]`).join(' ');
        const row = { model: name, set: path.basename(set), shape: shapeText, threads, static: [], gear: [], special: [],
          static_compile_ms: [], first_use_ms: [], ran: null };
        const check = ['--inputs', set, '--check', set, '--max-rel-l2', '1e-4'];
        const common = ['--threads', String(threads), '--iterations', String(ctx.iterations), '--quiet'];
        const kinds = {
          static: (json) => [ctx.gec, 'run', model, ...shapes[k].flatMap((i) => ['--input-shape', `${i.name}:${i.dims.join(',')}`]),
            ...check, ...common, '--json', json],
          gear: (json) => [ctx.gec, 'run', gears, ...check, ...common, '--json', json],
          special: (json) => [ctx.gec, 'run', none, ...check, ...common, '--json', json],
        };
        const order = Object.keys(kinds);
        for (let round = 0; round < ctx.rounds && !row.error; ++round) {
          for (let i = 0; i < order.length && !row.error; ++i) {
            const kind = order[(i + round) % order.length];  // rotating order
            const tag = `${kind}-${k}-${threads}-${round}`;
            const json = path.join(ctx.work, `dyn-${name}-${tag}.json`);
            ctx.progress(`dynamic: ${name} ${path.basename(set)} ${kind} ${threads}T round ${round + 1}/${ctx.rounds}`);
            const q = runMeasured(kinds[kind](json), { logFile: log(tag) });
            const j = readJson(json);
            if (q.status !== 0 || !j) {
              row.error = `${kind}: ${lastLine(q.stderr) || lastLine(q.stdout) || 'gec exited with status ' + q.status}`;
              break;
            }
            if (kind === 'static') {
              row.static.push(j.run?.median_ms ?? null);
              row.static_compile_ms.push((j.import_ms ?? 0) + (j.compile_ms ?? 0));
            } else {
              const s = j.dynamic?.sets?.[0] || {};
              row[kind].push(s.median_ms ?? null);
              if (kind === 'gear') row.ran = s.ran;
              if (kind === 'special') {
                row.first_use_ms.push((s.compiled_ms ?? 0) + (s.build_ms ?? 0));
                row.arena_bytes = s.arena_bytes;
              }
            }
          }
        }
        for (const kind of ['static', 'gear', 'special']) row[`${kind}_ms`] = median(row[kind]);
        row.static_compile = median(row.static_compile_ms);
        row.first_use = median(row.first_use_ms);
        row.gear_vs_static = row.gear_ms && row.static_ms ? row.gear_ms / row.static_ms : null;
        row.special_vs_gear = row.special_ms && row.gear_ms ? row.special_ms / row.gear_ms : null;
        row.first_use_vs_compile = row.first_use && row.static_compile ? row.first_use / row.static_compile : null;
        rows.push(row);
      });
    }
  }
  return { rows, plans };
}

export function printDynamic(r, out) {
  if (!r.rows.length && !r.plans.length) { out('no dynamic models'); return; }
  printTable([
    { head: 'model', left: true, cell: (x) => x.model },
    { head: 'shape', left: true, cell: (x) => x.shape },
    { head: 'T', cell: (x) => x.threads, digits: 0 },
    { head: 'static ms', cell: (x) => x.static_ms, digits: 3 },
    { head: 'gear ms', cell: (x) => x.gear_ms, digits: 3 },
    { head: 'gear/static', cell: (x) => x.gear_vs_static, digits: 3 },
    { head: 'spec ms', cell: (x) => x.special_ms, digits: 3 },
    { head: 'spec/gear', cell: (x) => x.special_vs_gear, digits: 3 },
    { head: 'first use ms', cell: (x) => x.first_use, digits: 1 },
    { head: 'static compile ms', cell: (x) => x.static_compile, digits: 1 },
    { head: 'first/compile', cell: (x) => x.first_use_vs_compile, digits: 2 },
    { head: 'arena B', cell: (x) => x.arena_bytes ?? null, digits: 0 },
    { head: 'error', left: true, cell: (x) => x.error ?? '' },
  ], r.rows, out);
  for (const p of r.plans) {
    if (p.error) out(`${p.model}: ${p.error}`);
    else out(`${p.model}: plan with ${p.gears} gears ${p.gears_bytes} bytes, without gears ${p.no_gear_bytes} bytes, ` +
             `${p.gears} static plans ${p.static_bytes ?? '-'} bytes`);
  }
}
