// The pass manager: orders passes by stage, skips by level / name / numerics policy, applies
// fusion rules, times everything, verifies and prints on request, and restores the graph from
// before a pass that throws.
#include "ge/core/pipeline.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "ge/sdk/error.h"
#include "ge/sdk/log.h"
#include "ge/sdk/text_ir.h"
#include "ge/sdk/verifier.h"
#include "pass_context.h"

namespace ge::core {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

/// The most sweeps one fusion rule gets; a rule still matching after them rewrites without end
/// (its rewrite creates its own pattern again) and is reported, not run on.
constexpr int kMaxSweeps = 64;

/// A match may be anchored at `n`: its op type is one of the rule's anchors, or the rule gave
/// none (every op type; FusionRule::anchor_ops).
bool anchored(const std::vector<std::string>& anchors, const Node& n) {
  return anchors.empty() || std::find(anchors.begin(), anchors.end(), n.op_type()) != anchors.end();
}

/// Applies one fusion rule at every anchor until no match is left. Each sweep walks a snapshot of
/// the topological order by node id (a rewrite removes nodes, so pointers from the snapshot may
/// dangle; ids are looked up again, and never reused) and rewrites every match it meets; nodes a
/// rewrite creates are seen by the next sweep. Linear per sweep, so compile time stays linear in graph size.
/// `capped` is set when the last allowed sweep still rewrote (matches may be left).
bool apply_rule(const FusionRule& rule, Graph& g, HostPassContext& ctx, bool& capped) {
  FusionRuleInfo info = rule.info();
  std::vector<std::string> anchors = rule.anchor_ops();
  bool changed = false;
  capped = false;
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    std::vector<uint32_t> order;  // Node::id: a node a rewrite removed is no longer found by it
    // The node list itself when it is an order to run in (it is after every earlier rule's
    // sort_topologically): checking is cheaper than sorting.
    const std::vector<Node*> list = g.nodes();
    for (Node* n : g.is_topological(list) ? list : g.topological_order())
      if (anchored(anchors, *n)) order.push_back(n->id());
    bool any = false;
    for (const uint32_t id : order) {
      Node* n = g.node_by_id(id);
      if (!n || !anchored(anchors, *n)) continue;
      Match m;
      if (!rule.match(*n, ctx, m)) continue;
      rule.rewrite(g, ctx, m);
      ctx.count("fusion." + info.name, 1);
      any = true;
    }
    if (!any) break;
    changed = true;
    capped = sweep + 1 == kMaxSweeps;
  }
  // Rewrites append their new nodes: put the node list back in dataflow order, once per rule.
  if (changed) g.sort_topologically();
  return changed;
}

/// Whether the rule matches anywhere (pattern and legality check only, no rewrite). Most rules
/// match nothing on a given graph; the pass manager then skips the backup copy it makes before a
/// unit that may change the graph (a whole-graph clone per rule dominated large compiles).
bool rule_matches_somewhere(const FusionRule& rule, Graph& g, const HostPassContext& ctx) {
  const std::vector<std::string> anchors = rule.anchor_ops();
  for (Node* n : g.nodes()) {
    if (!anchored(anchors, *n)) continue;
    Match m;
    if (rule.match(*n, ctx, m)) return true;
  }
  return false;
}

void check_names(const Environment& env, const CompileOptions& o) {
  std::set<std::string> known;
  for (auto& [p, src] : env.passes) known.insert(p->info().name);
  for (auto& [r, src] : env.fusion_rules) known.insert(r->info().name);
  auto check = [&](const std::string& name, const char* where) {
    if (known.count(name)) return;
    std::string list;
    for (auto& k : known) list += (list.empty() ? "" : ", ") + k;
    throw Error(std::string(where) + " names '" + name + "', which is no loaded pass or fusion rule (known: " +
                (list.empty() ? "none" : list) + ")");
  };
  for (auto& d : o.disabled) check(d, "disable");
  if (o.fusion_enable)
    for (auto& e : *o.fusion_enable) check(e, "[fusion] enable");
  if (o.only)
    for (auto& e : *o.only) check(e, "only");
  for (auto& p : o.print_after)
    if (p != "all") check(p, "--print-after");
}

/// Every key of the option sections must be declared by a loaded plugin (or the core itself,
/// Environment::option_decls) or read by a loaded pass.
void check_options(const Environment& env) {
  std::set<std::string> declared;
  for (auto& [key, d] : env.option_decls) declared.insert(key);
  for (auto& [p, src] : env.passes)
    for (auto& o : p->info().options) declared.insert(o);
  for (auto& [n, s] : env.schedulers)
    for (auto& o : s->options()) declared.insert("scheduler." + o);
  for (auto& [section, keys] : env.manifest.sections)
    for (auto& [key, val] : keys)
      if (!declared.count(section + "." + key)) {
        // The keys the loaded plugins read in that section (a typo's neighbours).
        std::string known;
        for (const std::string& d : declared)
          if (d.compare(0, section.size() + 1, section + ".") == 0) known += (known.empty() ? "" : ", ") + d.substr(section.size() + 1);
        // A plugin turned off by `enabled = false` reads nothing: name it, so that the key is not
        // taken for a typo (a section is named after its plugin, "ascend" after ascend_backend).
        std::string off;
        for (const PluginEntry& e : env.manifest.plugins)
          if (!e.enabled && (e.name == section || e.name == section + "_backend"))
            off = "; plugin '" + e.name + "' would, but " + e.origin + " turns it off (enabled = false)";
        if (known.empty() && off.empty()) {
          // No loaded plugin reads the section at all: a misspelt section, or a plugin not loaded.
          std::set<std::string> sections;
          for (const std::string& d : declared) sections.insert(d.substr(0, d.find('.')));
          std::string list;
          for (const std::string& s : sections) list += (list.empty() ? "" : ", ") + s;
          throw ConfigError(val.origin + ": unknown section [" + section + "]: no loaded plugin reads it (sections: " + list + ")");
        }
        throw Error(val.origin + ": unknown key '" + key + "' in [" + section + "]: no loaded plugin reads it" + off +
                    (known.empty() ? std::string() : " (known: " + known + ")"));
      }
}

/// The manifest line of the option a ConfigError names ("file:line: " before its text), found as
/// the first "section.key" of the manifest in the message. An option given with --set has no
/// line: its text names it already.
std::string with_option_origin(const Environment& env, const std::string& msg) {
  const OptionValue* found = nullptr;
  size_t found_at = std::string::npos, found_len = 0;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (auto& [section, keys] : env.manifest.sections)
    for (auto& [key, val] : keys) {
      const std::string name = section + "." + key;
      for (size_t at = msg.find(name); at != std::string::npos; at = msg.find(name, at + 1)) {
        const bool whole = (at == 0 || (!ident(msg[at - 1]) && msg[at - 1] != '.')) &&
                           (at + name.size() == msg.size() || !ident(msg[at + name.size()]));
        if (!whole) continue;
        if (at < found_at || (at == found_at && name.size() > found_len)) found = &val, found_at = at, found_len = name.size();
        break;
      }
    }
  if (!found || found->origin == "--set" || found->origin.empty()) return msg;
  return found->origin + ": " + msg;
}

}  // namespace

const std::vector<std::string>& pipeline_stages() {
  static const std::vector<std::string> stages = {"import", "canonicalize", "simplify", "fusion",
                                                  "layout", "schedule",     "memory",   "codegen"};
  return stages;
}

CompileOptions CompileOptions::from_manifest(const Manifest& m) {
  CompileOptions o;
  o.opt_level = opt_level_from_name(m.opt_level);
  o.strict_numerics = m.numerics == "strict";
  o.disabled = m.disabled_passes;
  o.backend = m.backend;
  auto strings = [&](const std::string& key) -> std::optional<std::vector<std::string>> {
    auto s = m.sections.find("fusion");
    if (s == m.sections.end() || !s->second.count(key)) return std::nullopt;
    return std::get<std::vector<std::string>>(parse_option_as(OptionType::Strings, "fusion." + key, s->second.at(key).toml));
  };
  o.fusion_enable = strings("enable");
  if (auto d = strings("disable")) o.disabled.insert(o.disabled.end(), d->begin(), d->end());
  return o;
}

/// Reorders the units of each stage so that every PassInfo::after / before constraint holds,
/// otherwise keeping the given order (Kahn's algorithm taking the earliest ready unit).
template <class Unit>
void order_by_constraints(std::vector<Unit>& units, const Environment& env) {
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < units.size(); ++i) at[units[i].name] = i;
  std::vector<std::set<size_t>> preds(units.size());  // must run before unit i
  bool any = false;
  for (auto& entry : env.passes) {
    // Not a structured binding: clang 14 (the fuzz build, docs/fuzzing.md) cannot capture one.
    const std::string& src = entry.second;
    const PassInfo info = entry.first->info();
    auto self = at.find(info.name);
    if (self == at.end()) continue;
    auto constrain = [&](size_t first, size_t second) {
      const Unit &a = units[first], &b = units[second];
      if (a.stage > b.stage)
        throw Error("pass '" + info.name + "' (plugin '" + src + "') asks that '" + a.name + "' (stage " +
                    std::string(stage_name(a.stage)) + ") run before '" + b.name + "' (stage " +
                    std::string(stage_name(b.stage)) + "), against the stage order");
      if (a.stage == b.stage) preds[second].insert(first), any = true;
    };
    for (const std::string& n : info.after)
      if (auto o = at.find(n); o != at.end()) constrain(o->second, self->second);
    for (const std::string& n : info.before)
      if (auto o = at.find(n); o != at.end()) constrain(self->second, o->second);
  }
  if (!any) return;
  std::vector<Unit> out;
  std::vector<bool> done(units.size(), false);
  while (out.size() < units.size()) {
    size_t pick = units.size();
    for (size_t i = 0; i < units.size() && pick == units.size(); ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (size_t p : preds[i]) ready &= done[p];
      if (ready) pick = i;
    }
    if (pick == units.size()) {
      std::string cycle;
      for (size_t i = 0; i < units.size(); ++i)
        if (!done[i] && !preds[i].empty()) cycle += (cycle.empty() ? "" : ", ") + units[i].name;
      throw Error("the passes' order constraints (PassInfo::after / before) form a cycle among: " + cycle);
    }
    done[pick] = true;
    out.push_back(std::move(units[pick]));
  }
  units = std::move(out);
}

CompileResult compile_graph(Graph& g, const Environment& env, const CompileOptions& opts) {
  auto t_all = Clock::now();
  check_names(env, opts);
  check_options(env);
  g.ops = &env.ops;
  CompileResult result;
  HostPassContext ctx(env, opts, g, result.counters);
  std::ostream& print_to = opts.print_to ? *opts.print_to : std::cerr;
  bool print_all = std::find(opts.print_after.begin(), opts.print_after.end(), "all") != opts.print_after.end();

  // One unit of work: a pass, or a fusion rule applied to a fixed point.
  struct Unit {
    std::string name;
    Stage stage;
    OptLevel min_level;
    NumericsEffect numerics;
    /// Runs the unit; may set `note` (a fusion rule stopped at the sweep cap).
    std::function<bool(Graph&, std::string& note)> run;
    /// When set and false, the unit cannot change the graph: it is recorded as run, unchanged.
    std::function<bool(Graph&)> may_change = nullptr;
  };
  std::vector<Unit> units;
  std::vector<std::pair<std::shared_ptr<FusionRule>, std::string>> rules = env.fusion_rules;
  std::stable_sort(rules.begin(), rules.end(),
                   [](auto& a, auto& b) { return a.first->info().priority > b.first->info().priority; });
  for (auto& [r, src] : rules) {
    FusionRuleInfo i = r->info();
    FusionRule* rule = r.get();
    units.push_back({i.name, Stage::Fusion, i.min_level, i.numerics,
                     [rule, &ctx](Graph& gr, std::string& note) {
                       bool capped = false;
                       const bool changed = apply_rule(*rule, gr, ctx, capped);
                       if (capped)
                         note = "stopped: still matching after " + std::to_string(kMaxSweeps) +
                                " sweeps (its rewrites create new matches); the rest were not applied";
                       return changed;
                     },
                     [rule, &ctx](Graph& gr) { return rule_matches_somewhere(*rule, gr, ctx); }});
  }
  for (auto& [p, src] : env.passes) {
    PassInfo i = p->info();
    Pass* pass = p.get();
    units.push_back({i.name, i.stage, i.min_level, i.numerics, [pass, &ctx](Graph& gr, std::string&) { return pass->run(gr, ctx); }});
  }
  // Stable: within a stage, fusion rules (by priority) first, then passes in registration order;
  // then the passes' own order constraints (PassInfo::after / before).
  std::stable_sort(units.begin(), units.end(), [](const Unit& a, const Unit& b) { return a.stage < b.stage; });
  order_by_constraints(units, env);

  // Undoing a failed pass. Copying the whole graph before every pass costs as much as the
  // cheap passes themselves on large graphs (one clone and one destruction per pass), so only
  // the graph as compile_graph received it is kept; a failed pass is undone by replaying, on a
  // copy of that graph, the passes that ran before it (the passes are deterministic functions
  // of the graph and the options, so the replay rebuilds the graph the failed pass started
  // from). With fail_on_pass_error nothing is ever undone and nothing is kept.
  // A caller that can rebuild the received graph (rebuild_received) saves the copy, whose making
  // and freeing cost as much as several passes on large graphs.
  std::unique_ptr<Graph> received = opts.fail_on_pass_error || opts.rebuild_received ? nullptr : g.clone();
  std::vector<const Unit*> ran;  // the units whose run() completed, in order
  auto undo = [&](const std::map<std::string, int64_t>& counters_before) {
    std::unique_ptr<Graph> start = received ? received->clone() : opts.rebuild_received();
    if (!start) throw Error("compile: the received graph could not be rebuilt to undo a failed pass");
    g.swap(*start);
    for (const Unit* r : ran) {
      std::string ignored;
      try {
        r->run(g, ignored);
      } catch (const std::exception& e) {
        throw Error("pass '" + r->name + "' failed while its earlier run was replayed to undo a later pass: " +
                    e.what());
      }
    }
    result.counters = counters_before;  // the replay counted its rewrites again
  };

  std::optional<Stage> current;
  auto stage_done = [&] {
    if (current && opts.on_stage_done) opts.on_stage_done(std::string(stage_name(*current)), g.num_nodes());
  };
  for (Unit& u : units) {
    if (current != u.stage) {
      stage_done();
      current = u.stage;
    }
    PassRecord rec{u.name, std::string(stage_name(u.stage)), 0, false, g.num_nodes(), "ran"};
    std::string skip = ctx.skip_reason(u.name, u.min_level, u.numerics);
    if (opts.only && std::find(opts.only->begin(), opts.only->end(), u.name) == opts.only->end())
      skip = "skipped: not selected";
    if (u.stage == Stage::Fusion && skip.empty() && opts.fusion_enable && !ctx.rule_enabled(u.name)) {
      bool is_rule = std::any_of(env.fusion_rules.begin(), env.fusion_rules.end(),
                                 [&](auto& r) { return r.first->info().name == u.name; });
      if (is_rule) skip = "skipped: not in [fusion] enable";
    }
    if (!skip.empty()) {
      rec.status = skip;
      result.passes.push_back(rec);
      continue;
    }
    auto t0 = Clock::now();
    const bool print_this =
        print_all || std::find(opts.print_after.begin(), opts.print_after.end(), u.name) != opts.print_after.end();
    if (u.may_change && !u.may_change(g)) {
      rec.ms = ms_since(t0);
      result.passes.push_back(rec);
      if (print_this) print_to << "// after " << u.name << " (" << rec.stage << ")\n" << print_graph(g);
      continue;
    }
    const std::map<std::string, int64_t> counters_before =
        opts.fail_on_pass_error ? std::map<std::string, int64_t>{} : result.counters;
    std::string note;
    try {
      rec.changed = u.run(g, note);
      if (opts.verify_each) verify_graph_or_throw(g, &env.ops);
    } catch (const ConfigError& e) {
      // A bad option: never undone and ignored.
      throw Error(with_option_origin(env, "pass '" + u.name + "': " + e.what()));
    } catch (const std::exception& e) {
      rec.ms = ms_since(t0);
      if (opts.fail_on_pass_error) throw Error("pass '" + u.name + "' failed: " + e.what());
      undo(counters_before);  // the graph as it was before this pass
      rec.status = std::string("failed: ") + e.what() + " (graph restored)";
      log(LogLevel::Warn, "pass '" + u.name + "' failed and was undone: " + e.what());
      rec.nodes_after = g.num_nodes();
      result.passes.push_back(rec);
      continue;
    }
    ran.push_back(&u);
    rec.ms = ms_since(t0);
    rec.nodes_after = g.num_nodes();
    if (!note.empty()) {
      rec.status = note;
      log(LogLevel::Warn, "fusion rule '" + u.name + "' " + note);
    }
    result.passes.push_back(rec);
    if (print_this)
      print_to << "// after " << u.name << " (" << rec.stage << ")\n" << print_graph(g);
  }
  stage_done();
  verify_graph_or_throw(g, &env.ops);
  result.ms = ms_since(t_all);
  return result;
}

}  // namespace ge::core
